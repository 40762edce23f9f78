#!/usr/bin/env bash
# Make sure a system program the course needs is present: install it with apt when we can
# (Debian/Ubuntu, running as root), otherwise print the command for this system and go on.
#   bash tools/system_deps.sh graphviz   -> the `dot` binary (graph pictures)
#   bash tools/system_deps.sh chromium   -> /usr/bin/chromium (the browser test of the live gauge)
#   bash tools/system_deps.sh make       -> make (runs the two commands; .ci/run asks for it on bare images)
#   bash tools/system_deps.sh venv       -> python3's venv with ensurepip (Debian ships it as python3-venv)
#   bash tools/system_deps.sh npm        -> npm (installs configurable-http-proxy for `make hub` and `make test-class`)
set -u
what=${1:?usage: system_deps.sh graphviz|chromium|make|venv|npm}
case "$what" in
  graphviz) present="command -v dot"; package=graphviz;
            hint="Debian/Ubuntu: sudo apt-get install graphviz | macOS: brew install graphviz | conda: conda install -c conda-forge graphviz" ;;
  chromium) present="command -v chromium"; package=chromium;
            hint="Debian: sudo apt-get install chromium (only the browser test needs it)" ;;
  make)     present="command -v make"; package=make; hint="Debian/Ubuntu: sudo apt-get install make" ;;
  venv)     present="python3 -c 'import ensurepip, venv'"; package=python3-venv;
            hint="Debian/Ubuntu: sudo apt-get install python3-venv" ;;
  npm)      present="command -v npm"; package=npm; hint="Debian/Ubuntu: sudo apt-get install npm (only a class's hub needs it)" ;;
  *) echo "system_deps.sh: unknown dependency '$what'" >&2; exit 2 ;;
esac

eval "$present" >/dev/null 2>&1 && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "[setup] installing $package with apt-get ..."
  export DEBIAN_FRONTEND=noninteractive
  # try with the package lists as they are; if that fails (stale or emptied lists), update them and retry
  if apt-get install -y -qq "$package" >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq "$package" >/dev/null; }; then
    eval "$present" >/dev/null 2>&1 && exit 0
  fi
  echo "[setup] apt-get could not install $package." >&2
fi
echo "[setup] '$what' is missing. Install it with: $hint" >&2
echo "[setup] going on without it; 'python -m course_utils check' shows what is still missing." >&2
exit 0

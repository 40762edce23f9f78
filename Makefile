# The course's two commands:
#   make lab   set everything up, then open JupyterLab on notebooks/00_start_here.ipynb
#   make test  set everything up, then run the whole test suite (what .ci/run calls)
# Both are fast when nothing changed: the virtual environment is rebuilt only when pyproject.toml is newer.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
KERNEL := autograd-memory-lab
PORT   ?= 8888
# Extra options for `jupyter lab`, e.g. LAB_ARGS=--ServerApp.port_retries=0
LAB_ARGS ?=
# Optional package index for torch, e.g. https://download.pytorch.org/whl/cpu (CPU-only build on Linux)
TORCH_INDEX ?=
TORCH_PIN := $(shell grep -o 'torch==[0-9.]*' pyproject.toml)
# No screen (a server, a container, CI): do not try to open a browser, just print the URL with its token.
NO_BROWSER := $(if $(filter Darwin,$(shell uname -s)),,$(if $(or $(DISPLAY),$(WAYLAND_DISPLAY)),,--no-browser))
# Containers and CI often run as root, which JupyterLab refuses unless told.
AS_ROOT    := $(if $(filter 0,$(shell id -u)),--allow-root)

.PHONY: setup lab test check clean

$(STAMP): pyproject.toml
	@$(PYTHON) -m venv $(VENV) || { echo "[setup] could not create $(VENV): on Debian/Ubuntu install python3-venv"; exit 1; }
	$(if $(TORCH_INDEX),$(BIN)/python -m pip install --quiet --disable-pip-version-check --index-url $(TORCH_INDEX) "$(TORCH_PIN)")
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[test]"
	$(BIN)/python -m ipykernel install --sys-prefix --name $(KERNEL) --display-name "Autograd Memory Lab" >/dev/null
	touch $(STAMP)

setup: $(STAMP)
	@bash tools/system_deps.sh graphviz

lab: setup
	$(BIN)/jupyter lab --ip=127.0.0.1 --port=$(PORT) $(NO_BROWSER) $(AS_ROOT) $(LAB_ARGS) --ServerApp.root_dir="$(CURDIR)" notebooks/00_start_here.ipynb

test: setup
	@bash tools/system_deps.sh chromium
	$(BIN)/python -m course_utils check
	$(BIN)/python -m pytest $(PYTEST_ARGS)

check: setup
	$(BIN)/python -m course_utils check

clean:
	rm -rf $(VENV) artifacts *.egg-info

# The course's two commands:
#   make lab   set everything up, then open JupyterLab on your own copy of notebooks/00_start_here.ipynb (no speaker notes)
#   make test  set everything up, then run the whole test suite (what .ci/run and .github/workflows call)
# More:
#   make test TORCH=2.14.1   the same suite on another torch, in its own environment (.venv-torch-2.14.1)
#   make test-fast           the inner loop: unit tests and doctests, no notebooks, no browser, no test that starts a Python
#   make fresh NOTEBOOK=01_graph_lifecycle   a fresh copy of one notebook in my_notebooks/ (the old one is kept)
#   make present             lecturers: JupyterLab with RISE on lecture_notebooks/00 (speaker notes kept, each live section's minutes in
#                            its notes), projector-readable slides, plots and gauges
#   make slides              lecturers: a reveal.js deck per notebook in build/slides/, opens offline
#   make present CONDENSED=1 the condensed lecture as one notebook, lecture_condensed/lecture.ipynb: the lecture path's notebooks in
#                            order, only its live sections and each title on slides (the rest hidden, still run); make slides
#                            CONDENSED=1: its decks in build/slides-condensed/
#   make site                a static reading site of the executed notebooks in build/site/, opens offline
#   make gpu-check           one GPU: selftest, benchmark, meters vs the allocator, instruments' CUDA tests, overhead, every notebook on CUDA (PYTHON=python3: no venv)
#   make generate            contributors: write every generated file from course.toml, the notebooks and data/ (python -m tools build;
#                            text from text, seconds, runs no notebook)
#   make measure             contributors: record what is measured (run times, slide fit, class sizing), re-running only what changed
#   make hub                 a class on this machine: JupyterHub with a server per student, each with their own copies (deploy/README.md)
#   make assignments         the nbgrader course of the notebooks' exercises, in build/nbgrader/ (deploy/README.md)
#   make test-class          the class's tests: a real hub with three students, and nbgrader grading three submissions
#   make hooks               contributors: strip notebook outputs before every commit (pre-commit + nbstripout)
# All are fast when nothing changed: an environment is rebuilt only when a pyproject.toml is newer.
# The course (course_utils/) and its instruments (instruments/, the autograd-memory package) install together, editable.

PYTHON ?= python3
KERNEL := autograd-memory-lab
PORT   ?= 8888
# Extra options for `jupyter lab`, e.g. LAB_ARGS=--ServerApp.port_retries=0
LAB_ARGS ?=
# Optional package index for torch, e.g. https://download.pytorch.org/whl/cpu (CPU-only build on Linux)
TORCH_INDEX ?=
# The torch CI installs: pyproject.toml's `pinned` extra. TORCH=x.y.z tries another one in its own environment.
TORCH_PIN := $(shell grep -o 'torch==[0-9.]*' pyproject.toml | cut -d= -f3)
override TORCH := $(or $(TORCH),$(TORCH_PIN))
VENV   ?= $(if $(filter $(TORCH_PIN),$(TORCH)),.venv,.venv-torch-$(TORCH))
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# `make test` and `make test-class` run on 2 workers; --dist loadscope keeps each notebook's cells on one worker (its
# kernel's state), and each class test module with its fixture on one (the hub on one, nbgrader's grading on the other);
# --no-loadscope-reorder hands them out in the suite's run order (tests/conftest.py: the notebooks before the handouts
# that wait for their executed copies), not largest first.
WORKERS ?= 2
PYTEST_PARALLEL := $(if $(filter-out 0 1,$(WORKERS)),-n $(WORKERS) --dist loadscope --no-loadscope-reorder)
# CONDENSED=1: `make present` and `make slides` show the condensed lecture (tools/lecture_edition.py); CONDENSED=0 or unset: all
CONDENSED ?=
CONDENSE := $(filter-out 0,$(CONDENSED))
LECTURE_DIR := $(if $(CONDENSE),lecture_condensed,lecture_notebooks)
# No screen (a server, a container, CI): do not try to open a browser, just print the URL with its token.
NO_BROWSER := $(if $(filter Darwin,$(shell uname -s)),,$(if $(or $(DISPLAY),$(WAYLAND_DISPLAY)),,--no-browser))
# Containers and CI often run as root, which JupyterLab refuses unless told.
AS_ROOT    := $(if $(filter 0,$(shell id -u)),--allow-root)

# --no-compile: pip byte-compiles every module it installs (torch's CPU wheel: 127 s with it, 69 s without, on 2 busy
# cores); Python compiles the few a run imports on first use instead (import torch: +6 s once).
PIP_FLAGS := --quiet --disable-pip-version-check --no-compile

.PHONY: setup class-setup hub assignments test-class lab present slides site test test-torch test-fast gpu-check fresh generate measure hooks check clean

$(STAMP): pyproject.toml instruments/pyproject.toml
	@$(PYTHON) -m venv $(VENV) || { echo "[setup] could not create $(VENV): on Debian/Ubuntu install python3-venv"; exit 1; }
	$(if $(TORCH_INDEX),$(BIN)/python -m pip install $(PIP_FLAGS) --index-url $(TORCH_INDEX) "torch==$(TORCH)")
	@$(BIN)/python -m pip install $(PIP_FLAGS) -e ".[test,teach,torchviz]" -e ./instruments "torch==$(TORCH)" \
	  || { echo "[setup] pip failed (see above); if torch==$(TORCH) conflicts, it is outside pyproject.toml's torch range"; exit 1; }
	$(BIN)/python -m ipykernel install --sys-prefix --name $(KERNEL) --display-name "Autograd Memory Lab" >/dev/null
	@# JupyterLab's settings for this environment: no "news?" pop-up over the notebook (or the projector), no update checks
	@mkdir -p $(VENV)/share/jupyter/lab/settings
	cp tools/jupyterlab_overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
	touch $(STAMP)

setup: $(STAMP)
	@bash tools/system_deps.sh graphviz

# The class extra (JupyterHub, its idle culler, nbgrader) and configurable-http-proxy (npm, deploy/package-lock.json).
CLASS_STAMP := $(VENV)/.installed-class
$(CLASS_STAMP): $(STAMP) deploy/package-lock.json
	@$(BIN)/python -m pip install $(PIP_FLAGS) -e ".[class]" "torch==$(TORCH)"
	@# nbgrader's notebook extensions, and the "open in Notebook" button of the notebook package nbgrader brings, stay off:
	@# `make lab` stays the course's own (the hub's students get the Assignments tab from their own config, deploy/jupyterhub_config.py)
	@# (one `jupyter server extension disable` for the four: each call is a Python start, 1.8 s)
	$(BIN)/jupyter server extension disable --sys-prefix \
	  $(foreach e,formgrader validate_assignment assignment_list course_list,nbgrader.server_extensions.$(e)) >/dev/null 2>&1
	$(BIN)/jupyter labextension disable --level=sys_prefix @jupyter/nbgrader @jupyter-notebook/lab-extension >/dev/null 2>&1
	@bash tools/system_deps.sh npm
	cd deploy && npm ci --no-audit --no-fund --silent
	touch $(CLASS_STAMP)

class-setup: setup $(CLASS_STAMP)

hub: class-setup
	$(BIN)/jupyterhub -f deploy/jupyterhub_config.py $(HUB_ARGS)

assignments: class-setup
	$(BIN)/python -m deploy.assignments

test-class: class-setup
	$(BIN)/python -m pytest $(PYTEST_PARALLEL) -p no:cacheprovider tests/class $(PYTEST_ARGS)

lab: setup
	$(BIN)/python -m tools.my_notebooks
	$(BIN)/jupyter lab --ip=127.0.0.1 --port=$(PORT) $(NO_BROWSER) $(AS_ROOT) $(LAB_ARGS) --ServerApp.root_dir="$(CURDIR)" my_notebooks/00_start_here.ipynb

# The lecture: the lecture edition (speaker notes included: RISE's speaker view, key T; each live section's minutes in its notes)
# in lecture_notebooks/ (CONDENSED=1: lecture_condensed/, only the lecture path's live sections on slides), served with RISE,
# opened on the lecture path's first notebook (docs/instructors.md). Every kernel it starts reads AMLAB_LECTURE=1 and switches
# on course_utils.lecture_style() (plots, gauges, tables for the back row); RISE reads the projector stylesheet rise.css from
# the notebooks' folder (tools/rise.css: text >= 24 px) and its settings from tools/jupyterlab_overrides.json (scroll on);
# tools/labextensions/ patches its speaker view (key T).
present: setup
	$(BIN)/python -m tools.my_notebooks $(if $(CONDENSE),--condensed,--lecture)
	cp tools/rise.css $(LECTURE_DIR)/rise.css
	AMLAB_LECTURE=1 $(BIN)/jupyter lab --ip=127.0.0.1 --port=$(PORT) $(NO_BROWSER) $(AS_ROOT) $(LAB_ARGS) --ServerApp.root_dir="$(CURDIR)" \
	  --LabServerApp.extra_labextensions_path="$(CURDIR)/tools/labextensions" $(LECTURE_DIR)/$(if $(CONDENSE),lecture.ipynb,00_start_here.ipynb)

slides: setup
	$(BIN)/python -m tools.handouts slides $(if $(CONDENSE),--condensed)

site: setup
	$(BIN)/python -m tools.handouts site

test: setup
	@bash tools/system_deps.sh chromium
	$(BIN)/ruff check .
	$(BIN)/python -m course_utils check
	$(BIN)/python -m pytest $(PYTEST_PARALLEL) $(PYTEST_ARGS)

test-torch:
	@test -n "$(filter-out $(TORCH_PIN),$(TORCH))" || { echo "usage: make test-torch TORCH=x.y.z (another torch than the pinned $(TORCH_PIN))"; exit 2; }
	$(MAKE) test TORCH=$(TORCH)

test-fast: setup
	$(BIN)/python -m pytest $(PYTEST_PARALLEL) -m "not slow" course_utils tests instruments/src instruments/tests $(PYTEST_ARGS)

# Needs no `make setup`: the course's .venv when there is one, else (or with PYTHON=... on the command line) that Python,
# e.g. a GPU machine's own Python with a CUDA torch; refuses (exit 3, says what to do) without a CUDA device.
GPU_PYTHON := $(if $(filter command line,$(origin PYTHON)),$(PYTHON),$(if $(wildcard $(BIN)/python),$(BIN)/python,$(PYTHON)))
gpu-check:
	$(GPU_PYTHON) tools/gpu_check.py

fresh: setup
	$(BIN)/python -m tools.my_notebooks --fresh "$(NOTEBOOK)"

# Every generated file (learner/, the README's and the guide's blocks, setup cells, Time lines, the sheets), from
# course.toml, the notebooks and the records in data/, in dependency order (tools/targets.py); `python -m tools check`
# lists what is stale. It runs no notebook, benchmark or browser: what is measured, `make measure` records.
generate: setup
	$(BIN)/python -m tools build

# The measured records, each with its provenance; a measurement over its budget is reported and not written:
# the notebooks' run times (tools/run_times.py: only notebooks whose code or imported code changed run again), then the
# build that reads them, the lecture's slide fit in chromium, and the class's sizing (checked: guarantee <= limit).
measure: setup
	$(BIN)/python -m tools measure
	$(BIN)/python -m tools build
	$(BIN)/python -m tools.slide_fit --record
	$(BIN)/python -m deploy.sizing --write

hooks: setup
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[test,dev]" "torch==$(TORCH)"
	$(BIN)/pre-commit install
	$(BIN)/pre-commit install-hooks

check: setup
	$(BIN)/python -m course_utils check

clean:
	rm -rf $(VENV) artifacts *.egg-info

# mlxplain — the two set-up commands are `make demo` and `make test` (see README).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# tests read the staged benchmark data from ../shared/data when that folder exists (CI has it); without it,
# data sets come from the user cache or a download, and tests whose data cannot be had are skipped with the reason.
# `make test MLXPLAIN_DATA=` (empty) runs as a machine without staged data, even next to ../shared/data; .ci/run
# does so a second time with an empty home and no network.
ifeq ($(origin MLXPLAIN_DATA),undefined)
ifneq ($(wildcard ../shared/data/MANIFEST.tsv),)
export MLXPLAIN_DATA := $(abspath ../shared/data)
endif
endif
export PYTHONHASHSEED := 0
export MPLBACKEND := Agg

.PHONY: aot readme env demo test test-export test-reading test-nbs test-py docs run-nbs bench clean reproduce

env: $(STAMP)

# PyTorch first, pinned, and its CPU build: from PyTorch's own CPU index where that is reachable (the default
# index would give Linux the CUDA build, several GB), else from the default index (machines without that index
# reach, such as this project's, carry the CPU wheel of this version themselves). Not pyproject.toml: nbdev_export
# rewrites it on every export, which would reinstall between test steps.
TORCH_VERSION ?= 2.13.0
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu
$(STAMP): settings.ini setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	@if $(BIN)/python -c "import urllib.request as u; u.urlopen('$(TORCH_CPU_INDEX)/torch/', timeout=5)" 2>/dev/null \
	  && $(BIN)/python -m pip install -q torch==$(TORCH_VERSION) --index-url $(TORCH_CPU_INDEX); then \
	  echo "torch $(TORCH_VERSION): CPU build from $(TORCH_CPU_INDEX)"; \
	else echo "torch $(TORCH_VERSION): $(TORCH_CPU_INDEX) not reachable, from the default index"; \
	  $(BIN)/python -m pip install -q torch==$(TORCH_VERSION); fi
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $@

demo: env
	$(BIN)/mlxplain demo --out demo_output

# the alternatives' kernels compiled ahead of time (numba.pycc; needs a C compiler), so a new process never compiles
aot: env
	$(BIN)/python -m mlxplain.alternatives.kernels --build

# the export and reading-time checks first (seconds); then the notebooks and pytest side by side: the notebooks run
# one after another (see test-nbs), pytest on two workers, so both cores stay busy until the end
# Three test processes share the cores, so each gets a third of them for BLAS, OpenMP and PyTorch threads (one
# on two cores): more threads than cores only wait on each other. Tests that set their own limits still do.
TEST_THREADS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); echo $$(( n / 3 > 0 ? n / 3 : 1 )))
test: export OMP_NUM_THREADS = $(TEST_THREADS)
test: export OPENBLAS_NUM_THREADS = $(TEST_THREADS)
test: export MKL_NUM_THREADS = $(TEST_THREADS)
test: env test-export test-reading
	@$(MAKE) --no-print-directory -j2 --output-sync=target test-nbs test-py

# the library must be exactly what the notebooks export
test-export: env
	@copy=$$(mktemp -d) && cp -r mlxplain "$$copy/" && $(BIN)/nbdev_export \
	  && diff -r -x __pycache__ -x "_kernels_aot_*" "$$copy/mlxplain" mlxplain; rc=$$?; rm -rf "$$copy"; \
	  [ $$rc = 0 ] || { echo "nbdev_export changed mlxplain/: run nbdev_export and commit the result"; exit 1; }

# every page reads in one sitting: a method page or any other page in 45 min, an experiments page in 40 with its results
# heading in its first 15 % of cells (tools/reading_time.py: prose words / 200 + shown code lines / 20)
test-reading: env
	$(BIN)/python tools/reading_time.py nbs --check

# every notebook run as nbdev_test runs it (`slow` cells skipped), and each executed cell's saved output, what the book
# shows, compared with what the cell prints now, in the same single run (tools/test_notebooks.py; refresh the saved
# outputs with `make run-nbs`). Serial: a pool worker waits at exit for joblib's idle loky workers (300 s timeout);
# serial is 4x faster here
test-nbs: env
	$(BIN)/python tools/test_notebooks.py nbs

# two workers, each test file on one of them (module fixtures such as the docs preview are built once; measured:
# sharing out single tests, --dist loadgroup, took 7 min 40 s against 6 min 31 s)
PYTEST_WORKERS ?= 2
test-py: env
	$(BIN)/python -m pytest -q -rs -n $(PYTEST_WORKERS) --dist loadfile tests

# Quarto's site where Quarto is installed; otherwise an offline HTML preview (nbdev's page names, local MathJax)
docs: env
	@if command -v quarto >/dev/null 2>&1; then $(BIN)/nbdev_docs; \
	else $(BIN)/python tools/preview_docs.py --out _preview && echo "open _preview/index.html"; fi

# execute every notebook in place (cells flagged `slow` are left as they are), then clean
run-nbs: env
	$(BIN)/python tools/run_notebooks.py nbs
	$(BIN)/nbdev_clean

# every chapter's full reproduction into the committed results, nbs/results/<chapter> (hours to days of CPU)
reproduce: env
	@for c in fals extended_plt prakel alternatives; do $(BIN)/mlxplain reproduce $$c --refresh || exit 1; done

bench: env
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf _docs _proc _preview demo_output .pytest_cache

readme: env
	$(BIN)/python tools/make_readme.py nbs/index.ipynb

# The FALS GPU check from this checkout alone: the device machine gets the tracked files and the folders a call
# carries, not ../shared, so this fills the ignored folder .gpudata/ with the wheels its image lacks (Python 3.12,
# manylinux x86_64, pinned to this .venv's versions), the bibtex and delicious splits from $(MLXPLAIN_DATA) and the
# commit; the one command to run there, with carry [".gpudata"], is in benchmarks/check_fals_gpu.py's docstring.
.PHONY: gpu-check-prep
gpu-check-prep: env
	$(BIN)/python benchmarks/check_fals_gpu.py --prep .gpudata

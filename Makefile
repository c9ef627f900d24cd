# rasklad — the README's two commands: `make demo` and `make test` (plus `make bench`).
# Everything is set up from scratch on a fresh machine with Python 3.11+: a .venv, the
# project installed in development mode, the Cython core built.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP  := $(VENV)/.installed
PYX    := $(wildcard ext/*.pyx ext/*.pxd games/*/fast/*.pyx games/*/fast/*.pxd)
PYXDIRS := ext $(wildcard games/*/fast)
CODE   := $(wildcard ext games rasklad sims storage workers api)

.PHONY: all demo test lint typecheck bench build clean services conformance-deep image image-push

all: demo

$(STAMP): pyproject.toml setup.py
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "rasklad needs Python 3.11 or newer (PYTHON=$(PYTHON))")'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q "setuptools>=69" wheel "Cython>=3.0" "numpy>=2.0"
	$(PIP) install -q --no-build-isolation -e '.[dev]'
	touch $(STAMP)

# Rebuild the Cython core when its sources change (pip -e builds it the first time).
build: $(STAMP) $(PYX)
	@if [ -n "$$(find $(PYXDIRS) \( -name '*.pyx' -o -name '*.pxd' \) -newer $(STAMP))" ] || \
		[ -n "$$(for f in $(filter %.pyx,$(PYX)); do ls $${f%.pyx}.*.so >/dev/null 2>&1 || echo $$f; done)" ]; then \
		$(PY) setup.py -q build_ext --inplace && touch $(STAMP); fi

demo: build
	$(VENV)/bin/rasklad demo

services:
	@bash scripts/ensure_redis.sh
	@bash scripts/ensure_chromium.sh

lint: build
	$(VENV)/bin/ruff check .

typecheck: build
	$(VENV)/bin/mypy $(CODE)

# The test files run in parallel (pytest-xdist, a file stays on one process so its module
# fixtures start once): two processes per core, at most 4 (each service test claims one of Redis's
# 15 spare databases). Two per core because the service, fault and outage files spend most of their
# time waiting on worker processes, timeouts and restarts (tests/test_service_faults.py and
# test_service_recovery.py alone: 278 s wall for 102 s CPU, their Celery workers included), and a
# process that waits holds its core idle; TEST_JOBS=1 runs them one after another.
TEST_JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); n=$$((2 * n)); [ $$n -gt 4 ] && n=4; echo $$n)
test: build services lint typecheck
	$(VENV)/bin/pytest -q -n $(TEST_JOBS) --dist loadfile --durations=25

# The conformance suite 28 times deeper than make test's: 2,016 random Raspisnoy matches, 28 Preferans
# pulkas per case, 2,800 random units per case of the other games (560 for slow engines; long: see
# tests/conformance/README.md), and 3,000 random hands per variant of the PokerKit cross-check of classic
# poker (600 in make test; docs/classic-poker.md, "Checked against PokerKit"), and every fast path's parity with
# its readable engine on twenty times make test's deals (tests/test_fast_paths.py, test_fast_paths_classic.py).
conformance-deep: build
	CONFORMANCE_DEPTH=28 $(VENV)/bin/pytest -q -n $(TEST_JOBS) --dist load tests/conformance
	POKERKIT_HANDS=3000 $(VENV)/bin/pytest -q -n $(TEST_JOBS) --dist load tests/test_classic_poker_pokerkit.py
	FAST_PATH_DEPTH=20 $(VENV)/bin/pytest -q -n $(TEST_JOBS) --dist load tests/test_fast_paths.py tests/test_fast_paths_classic.py

bench: build
	$(PIP) install -q '.[bench]' --no-build-isolation --no-deps 2>/dev/null || true
	$(PIP) install -q eval7 phevaluator treys pokerkit || echo "some peer libraries did not install; their rows are skipped"
	bash scripts/ensure_wrk.sh || echo "wrk did not install; bench_status_wrk.py is skipped"
	$(PY) benchmarks/bench_eval.py
	@for b in benchmarks/bench_*.py; do [ "$$b" = benchmarks/bench_eval.py ] || $(PY) $$b; done

# The service's image (deploy/Dockerfile, a Containerfile for podman or docker), tagged with the
# package version and latest: `make image IMAGE=registry.example.com/rasklad`, then `make image-push`;
# deploy/k8s/kustomization.yaml's `images:` points the pods at it (deploy/README.md).
IMAGE     ?= rasklad
VERSION   := $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
CONTAINER ?= $(shell command -v podman || command -v docker)

image:
	@test -n "$(CONTAINER)" || { echo "make image needs podman or docker (CONTAINER=...)"; exit 2; }
	$(CONTAINER) build -f deploy/Dockerfile -t $(IMAGE):$(VERSION) -t $(IMAGE):latest .

image-push: image
	$(CONTAINER) push $(IMAGE):$(VERSION)
	$(CONTAINER) push $(IMAGE):latest

clean:
	rm -rf build $(VENV) ext/*.c ext/*.so games/*/fast/*.c games/*/fast/*.so *.egg-info

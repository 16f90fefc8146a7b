# Developer shortcuts; CI runs .ci/run (the README's test command), which covers `check`.
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: venv check test lint plan bench golden docs

$(PY):
	python3 -m venv $(VENV) && $(VENV)/bin/pip install -q -e '.[dev]'

venv: $(PY)

check: $(PY)  ## lint, format, types and every test, as CI does
	$(PY) -m pytest

test: $(PY)  ## the fast loop: unit, component, program and script tests, without lint and types
	$(PY) -m pytest -m "not quality"

lint: $(PY)  ## lint, format and types only (the suite's `quality` tests)
	$(PY) -m pytest -m quality

plan: $(PY)  ## the main job on the default example stack
	$(VENV)/bin/gpukit plan

bench: $(PY)  ## gpukit plan vs. importing the same provider SDKs (target ratio <= 1.3)
	$(PY) benchmarks/plan_speed.py

golden: $(PY)  ## rewrite tests/golden/* (whole plans included) after an intended change; review the diff
	$(PY) -m pytest --update-golden

docs: $(PY)  ## regenerate Pulumi.yaml's config block and docs/configuration.md from the config schema
	$(PY) -m gpukit.docs

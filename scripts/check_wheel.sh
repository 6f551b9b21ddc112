#!/usr/bin/env bash
# The installed package is the product. Build the sdist and, from it, the wheel; install only the
# wheel into a fresh virtual environment; then use it from an empty folder outside the checkout
# (scripts/smoke_installed.py: info, build --all, an oracle eval, every metric through
# evaluate.load, an inspect_ai task, equiv). Run by CI after the tests; needs the package registry for dependencies.
#
#   bash scripts/check_wheel.sh              build, install and use (the whole check)
#   bash scripts/check_wheel.sh build DIST   only build and check the sdist and the wheel, into the folder DIST
#   bash scripts/check_wheel.sh use DIST     only install DIST's wheel into a fresh environment and use it
#
# Building reads the checkout and writes its egg-info folder (as `pip install -e .` does); using it touches
# neither, so .ci/run builds first and then uses the wheel while its other checks run.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$(pwd)
step=${1:-all}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "$step" != all ] && [ $# -ne 2 ]; then
  echo "usage: bash scripts/check_wheel.sh [build DIST | use DIST]" >&2
  exit 2
fi
dist=${2:-$work/dist}

build() {
  echo "== building the sdist and the wheel"
  python3 -m venv "$work/build-env"
  "$work/build-env/bin/python" -m pip install --quiet --upgrade pip build
  "$work/build-env/bin/python" -m build --outdir "$dist" "$checkout" > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
  ls "$dist"
  local sdist contents
  sdist=$(ls "$dist"/*.tar.gz)
  contents=$(tar tzf "$sdist")
  for part in builders/shapeworld.py cards/shapeworld.md metrics/causal_graph_metrics/app.py; do
    grep -q "/$part\$" <<< "$contents" || { echo "the sdist lacks $part" >&2; exit 1; }
  done
}

use() {
  local wheel
  wheel=$(ls "$dist"/*.whl)
  echo "== installing the wheel into a fresh virtual environment"
  python3 -m venv "$work/venv"
  "$work/venv/bin/python" -m pip install --quiet --upgrade pip
  # with the inspect extra: its tasks are checked too
  "$work/venv/bin/python" -m pip install --quiet "$wheel[inspect]"

  echo "== using it from $work/use (outside the checkout)"
  mkdir "$work/use"
  cd "$work/use"
  env -u CAUSAL_DATASETS_SOURCES HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 \
    "$work/venv/bin/python" "$checkout/scripts/smoke_installed.py"
}

case "$step" in
  all)
    build
    use
    ;;
  build) build ;;
  use) use ;;
  *) echo "usage: bash scripts/check_wheel.sh [build DIST | use DIST]" >&2; exit 2 ;;
esac

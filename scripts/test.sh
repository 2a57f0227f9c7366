#!/usr/bin/env bash
# scripts/test.sh — every test of the project, from a fresh clone: install (idempotent), lint, Python tests incl.
# the real devcluster, the example notebooks, the front-end (jest, lint, browser tests in Debian's Chromium),
# and the packaging check (wheel into a fresh virtualenv). Output and screenshots go to test-output/.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
mkdir -p test-output
t0=$SECONDS
failed=()
step() { echo; echo "======== $1 ($((SECONDS - t0)) s)"; }
run() {  # run NAME CMD...: keep going after a failure so one run reports every broken part
  local name=$1; shift
  step "$name"
  if "$@"; then echo "-------- $name: ok"; else echo "-------- $name: FAILED"; failed+=("$name"); fi
}

step "bootstrap"
bash scripts/bootstrap.sh || { echo "bootstrap FAILED"; exit 1; }
# shellcheck disable=SC1091
. .venv/bin/activate

run "python lint (ruff)" bash -c 'ruff check . && ruff format --check .'
run "wire schema current" bash -c 'python -m jupyter_accel.openapi | diff -u docs/openapi.json - >/dev/null'
run "python tests (unit, API, devcluster, notebook)" \
  python -m pytest -ra --junitxml=test-output/pytest.xml tests
run "front-end (types, lint, jest, build, browser)" bash scripts/test-frontend.sh
run "packaging (wheel in a fresh venv)" bash scripts/test-packaging.sh

step "summary"
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all test stages passed in $((SECONDS - t0)) s"

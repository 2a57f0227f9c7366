#!/usr/bin/env bash
# scripts/test.sh — every test of the project, from a fresh clone: install (idempotent), make test-fast (lint, types,
# tests without the cluster), Python tests incl.
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

# what this run leaves out, said up front and again at the end; without the real node (not root) the run fails
# unless JA_ALLOW_NO_REAL_NODE=1 says that is meant: its tests, examples 02 and 03 and the dashboard test need it
not_run=$(python -m devcluster not-run)
step "not run on this machine"
echo "${not_run:-nothing: every component is present}"

run "fast checks (make test-fast: lint, wire schema, types, tests without the cluster)" bash scripts/test-fast.sh
run "python tests on the real cluster (API, devcluster, notebook, reliability)" \
  python -m pytest -ra -m cluster --junitxml=test-output/pytest.xml tests
run "front-end (types, lint, jest, build, browser)" bash scripts/test-frontend.sh
run "packaging (wheel in a fresh venv)" bash scripts/test-packaging.sh

step "summary"
if [ -n "$not_run" ]; then
  echo "$not_run"
  if grep -q "real node needs root" <<<"$not_run" && [ "${JA_ALLOW_NO_REAL_NODE:-0}" != "1" ]; then
    echo "the real node did not run (not root): its tests were deselected; JA_ALLOW_NO_REAL_NODE=1 accepts that"
    failed+=("real node")
  fi
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all test stages passed in $((SECONDS - t0)) s"

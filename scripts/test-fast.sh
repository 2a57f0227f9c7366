#!/usr/bin/env bash
# scripts/test-fast.sh — the inner loop, no cluster and no browser: lint, the wire schema, the type ratchet, every
# test not marked `cluster` (unit, service, API against an unreachable or in-memory cluster), and the front-end's
# types and jest tests. A few minutes on 2 cores.
# `make test` runs it first, then the tests of the real cluster, the front-end and the packaging.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
[ -x .venv/bin/python ] || bash scripts/bootstrap.sh
# shellcheck disable=SC1091
. .venv/bin/activate
mkdir -p test-output
failed=()
check() { local name=$1; shift; echo "==== $name"; if "$@"; then echo "---- $name: ok"; else echo "---- $name: FAILED"; failed+=("$name"); fi; }
check "python lint (ruff)" bash -c 'ruff check . && ruff format --check .'
check "wire schema current" bash -c 'python -m jupyter_accel.openapi | diff -u docs/openapi.json - >/dev/null'
check "types (mypy ratchet)" bash scripts/typecheck.sh
check "release check" python scripts/check_release.py
check "python tests without the cluster" python -m pytest -ra -m "not cluster" --junitxml=test-output/pytest-fast.xml tests
# the front-end's unit tests and type check (seconds), where its packages are installed (scripts/test-frontend.sh,
# which `make test` runs, installs them); said plainly when they are not
if [ -d labextension/node_modules ]; then
  check "front-end types and jest" bash -c 'cd labextension && npx tsc --noEmit -p . && npx jest --silent'
else
  echo "==== front-end types and jest: NOT RUN here (no labextension/node_modules; scripts/test-frontend.sh installs them)"
fi
if [ ${#failed[@]} -gt 0 ]; then echo "test-fast FAILED: ${failed[*]}"; exit 1; fi
echo "test-fast: all passed"

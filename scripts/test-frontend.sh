#!/usr/bin/env bash
# Front-end checks, from the repository root, with the repo's .venv:
#   npm ci, generated types current, lint, jest, labextension build, galata browser tests.
# Needs Node >= 20.19 and Debian's chromium (scripts/install-system-deps.sh). Never downloads browsers.
# Env: JUPYTER_ACCEL_UI_PORT (default 18891) for the test server; SKIP_UI_TESTS=1 to stop after the build.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${JUPYTER_ACCEL_VENV:-$ROOT/.venv}"
export JUPYTER_ACCEL_VENV="$VENV"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
export PATH="$VENV/bin:$PATH"  # jupyter-builder and jupyter lab come from the venv

step() {
  local name="$1"
  shift
  local start=$SECONDS
  echo "==> $name"
  "$@"
  echo "<== $name: $((SECONDS - start)) s"
}

cd "$ROOT/labextension"
step "npm ci (labextension)" npm ci --no-audit --no-fund
step "check:types" npm run check:types
step "lint:check" npm run lint:check
step "jest" npm test
step "build labextension" npm run build:prod

if [ "${SKIP_UI_TESTS:-0}" = "1" ]; then
  echo "SKIP_UI_TESTS=1: galata tests skipped"
  exit 0
fi

[ -x /usr/bin/chromium ] || [ -n "${CHROMIUM_PATH:-}" ] || {
  echo "chromium is missing: run scripts/install-system-deps.sh" >&2
  exit 1
}
mkdir -p "$ROOT/test-output/screenshots"
cd "$ROOT/labextension/ui-tests"
step "npm ci (ui-tests)" npm ci --no-audit --no-fund
step "galata tests" npx playwright test
echo "screenshots: $ROOT/test-output/screenshots"

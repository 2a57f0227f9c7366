#!/usr/bin/env bash
# Front-end checks, from the repository root, with the repo's .venv:
#   npm ci, generated types current, lint, jest, labextension build, galata browser tests.
# Needs Node >= 20.19 and Debian's chromium (scripts/install-system-deps.sh). Never downloads browsers.
# Env: JUPYTER_ACCEL_UI_PORT (default 18891; the cluster server takes the next port); SKIP_UI_TESTS=1 to stop
# after the build; JA_UI_CLUSTER=0 skips the devcluster UI spec (ui-tests/tests/cluster.spec.ts), otherwise this
# script starts its own devcluster (`python -m devcluster up`), runs that spec against it and stops it; a cluster
# that fails to start fails the run.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${JUPYTER_ACCEL_VENV:-$ROOT/.venv}"
export JUPYTER_ACCEL_VENV="$VENV"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
# two free consecutive loopback ports unless given: a JupyterLab left running elsewhere must not break the run
if [ -z "${JUPYTER_ACCEL_UI_PORT:-}" ]; then
  JUPYTER_ACCEL_UI_PORT=$(python3 - <<'PY'
import socket
for base in range(18891, 19891, 2):
    try:
        socks = [socket.create_server(("127.0.0.1", p)) for p in (base, base + 1)]
    except OSError:
        continue
    for s in socks:
        s.close()
    print(base)
    break
PY
)
  export JUPYTER_ACCEL_UI_PORT
fi
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
step "types against the oldest JupyterLab (4.4.7)" bash "$ROOT/scripts/check-oldest-types.sh"
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

if [ "${JA_UI_CLUSTER:-1}" != "0" ]; then
  RUN_DIR="$(mktemp -d "${TMPDIR:-/tmp}/accel-ui-devcluster-XXXXXX")"
  stop_cluster() {
    (cd "$ROOT" && python -m devcluster down --run-dir "$RUN_DIR") || true
    rm -rf "$RUN_DIR"
  }
  trap stop_cluster EXIT
  start_cluster() {
    local exports
    exports="$(cd "$ROOT" && python -m devcluster up --run-dir "$RUN_DIR")" || {
      echo "devcluster failed to start (run dir $RUN_DIR); JA_UI_CLUSTER=0 skips the cluster UI tests" >&2
      return 1
    }
    eval "$(grep '^export ' <<<"$exports")"
  }
  step "devcluster up" start_cluster
  export JA_UI_CLUSTER=1 JUPYTER_ACCEL_NAMESPACE="${JUPYTER_ACCEL_NAMESPACE:-team-a}"
  # the real workbench (where the real node runs): this tree's wheel in a JupyterLab image on that node, reached
  # through the API server; tests/workbench.pod.spec.ts runs against it (JA_WORKBENCH_URL)
  start_workbench() {
    local dist exports
    dist="$RUN_DIR/dist"
    (cd "$ROOT" && python -m build --wheel --no-isolation --outdir "$dist" . >"$RUN_DIR/wheel.log" 2>&1) \
      || { tail -20 "$RUN_DIR/wheel.log"; return 1; }
    exports="$(cd "$ROOT" && python -m devcluster workbench --run-dir "$RUN_DIR" --wheel "$dist"/jupyter_accel-*.whl)" \
      || return 1
    echo "$exports" | grep '^#'
    eval "$(grep '^export ' <<<"$exports")"
  }
  if [ -n "${JA_NODE_IMAGE:-}" ]; then
    step "the real workbench (image, pod, port-forward)" start_workbench
  else
    echo "the real workbench is not run: the devcluster runs no real node (it needs root)"
  fi
else
  export JA_UI_CLUSTER=0
fi

cd "$ROOT/labextension/ui-tests"
step "npm ci (ui-tests)" npm ci --no-audit --no-fund
step "galata tests" npx playwright test
echo "screenshots: $ROOT/test-output/screenshots"

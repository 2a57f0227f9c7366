#!/usr/bin/env bash
# scripts/demo.sh — JupyterLab with jupyter-accel against the local devcluster, as the notebook user of team-a.
# Starts (or reuses) the cluster, seeds it, opens JupyterLab on http://127.0.0.1:${JA_DEMO_PORT:-8888}/lab and
# stops the cluster again when JupyterLab exits (Ctrl-C).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
bash scripts/bootstrap.sh
# shellcheck disable=SC1091
. .venv/bin/activate
RUN=${JA_DEVCLUSTER_RUNDIR:-$ROOT/.devcluster-demo}
if envs=$(python -m devcluster up --fixed-ports --run-dir "$RUN"); then
  eval "$envs"
  trap 'python -m devcluster down --run-dir "$RUN"' EXIT
else
  echo "devcluster did not start; JupyterLab runs in the 'not connected' state (logs in $RUN/logs)" >&2
  unset KUBECONFIG
fi
export JUPYTER_ACCEL_NAMESPACE=team-a
jupyter lab --ServerApp.ip=127.0.0.1 --ServerApp.port="${JA_DEMO_PORT:-8888}" --ServerApp.open_browser=False \
  --ServerApp.root_dir="$ROOT/examples"

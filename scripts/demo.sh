#!/usr/bin/env bash
# scripts/demo.sh — JupyterLab with jupyter-accel against the local devcluster, in namespace team-a, as the
# identity an admin let see nodes and ClusterQueues (queue-viewer). JA_DEMO_IDENTITY=notebook-user shows the
# view of a user without cluster-wide reads ("not visible to your account").
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
  case ${JA_DEMO_IDENTITY:-queue-viewer} in
    queue-viewer) export KUBECONFIG=$KUBECONFIG_QUEUE_VIEWER ;;
    notebook-user) export KUBECONFIG=$KUBECONFIG_NOTEBOOK_USER ;;
    *) echo "JA_DEMO_IDENTITY must be queue-viewer or notebook-user" >&2; exit 2 ;;
  esac
  trap 'python -m devcluster down --run-dir "$RUN"' EXIT
else
  echo "devcluster did not start; JupyterLab runs in the 'not connected' state (logs in $RUN/logs)" >&2
  unset KUBECONFIG
fi
export JUPYTER_ACCEL_NAMESPACE=team-a
jupyter lab --ServerApp.ip=127.0.0.1 --ServerApp.port="${JA_DEMO_PORT:-8888}" --ServerApp.open_browser=False \
  --ServerApp.root_dir="$ROOT/examples"

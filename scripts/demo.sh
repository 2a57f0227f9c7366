#!/usr/bin/env bash
# scripts/demo.sh — JupyterLab with jupyter-accel against the local devcluster, in namespace team-a, as the
# identity an admin let see nodes and ClusterQueues (queue-viewer). JA_DEMO_IDENTITY=notebook-user shows the
# view of a user without cluster-wide reads ("not visible to your account").
# Starts (or reuses) the cluster, seeds it, opens JupyterLab on http://127.0.0.1:${JA_DEMO_PORT:-8888}/lab and
# stops the cluster again when JupyterLab exits (Ctrl-C).
# A cluster you already have (kind, minikube, OpenShift after `oc login`): JA_DEMO_KUBECONFIG=~/.kube/config
# (and JA_DEMO_NAMESPACE, default: the kubeconfig context's namespace) — then no local cluster is built or started.
# Works as root (JupyterLab then gets --allow-root) and as a normal user.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
own=${JA_DEMO_KUBECONFIG:-}
if [ -n "$own" ]; then
  [ -r "$own" ] || { echo "JA_DEMO_KUBECONFIG=$own is not a readable file" >&2; exit 2; }
  own=$(cd "$(dirname "$own")" && pwd)/$(basename "$own")
  JA_SKIP_DEVCLUSTER_BUILD=1 bash scripts/bootstrap.sh
else
  bash scripts/bootstrap.sh
fi
# shellcheck disable=SC1091
. .venv/bin/activate
RUN=${JA_DEVCLUSTER_RUNDIR:-$ROOT/.devcluster-demo}
not_run=""
if [ -z "$own" ]; then  # what this demo leaves out, said now and again when it ends
  not_run=$(python -m devcluster not-run || true)
  [ -z "$not_run" ] || printf 'This demo does not run:\n%s\n' "$not_run" >&2
fi
say_not_run() { [ -z "$not_run" ] || printf 'This demo did not run:\n%s\n' "$not_run" >&2; }
trap say_not_run EXIT
if [ -n "$own" ]; then
  export KUBECONFIG=$own
  echo "using your cluster: KUBECONFIG=$own" >&2
  if [ -n "${JA_DEMO_NAMESPACE:-}" ]; then export JUPYTER_ACCEL_NAMESPACE=$JA_DEMO_NAMESPACE; else unset JUPYTER_ACCEL_NAMESPACE; fi
elif envs=$(python -m devcluster up --fixed-ports --run-dir "$RUN"); then
  eval "$envs"
  case ${JA_DEMO_IDENTITY:-queue-viewer} in
    queue-viewer) export KUBECONFIG=$KUBECONFIG_QUEUE_VIEWER ;;
    notebook-user) export KUBECONFIG=$KUBECONFIG_NOTEBOOK_USER ;;
    *) echo "JA_DEMO_IDENTITY must be queue-viewer or notebook-user" >&2; exit 2 ;;
  esac
  trap 'python -m devcluster down --run-dir "$RUN"; say_not_run' EXIT
else
  echo "devcluster did not start; JupyterLab runs in the 'not connected' state (logs in $RUN/logs)" >&2
  unset KUBECONFIG
fi
[ -n "$own" ] || export JUPYTER_ACCEL_NAMESPACE=team-a
root_flag=()
[ "$(id -u)" -ne 0 ] || root_flag=(--allow-root)  # JupyterLab refuses to run as root without it
node_args=()
if [ -z "$own" ] && [ -n "${JA_NODE_IMAGE:-}" ]; then  # devcluster's real node runs: launch there, in its image
  images=$(printf '{"ray-cluster":"%s","ray-job":"%s","pytorch":"%s","trainjob":"%s"}' \
    "$JA_NODE_IMAGE" "$JA_NODE_IMAGE" "$JA_NODE_IMAGE" "$JA_NODE_IMAGE")
  node_args=(--AccelConfig.default_queue="$JA_NODE_QUEUE" --AccelConfig.default_images="$images")
fi
jupyter lab --ServerApp.ip=127.0.0.1 --ServerApp.port="${JA_DEMO_PORT:-8888}" --ServerApp.open_browser=False \
  --ServerApp.root_dir="$ROOT/examples" "${root_flag[@]}" "${node_args[@]}"

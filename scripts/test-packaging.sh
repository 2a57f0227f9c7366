#!/usr/bin/env bash
# scripts/test-packaging.sh — build the wheel once, then for each JupyterLab of the compatibility matrix install it
# into a virtualenv that has only that JupyterLab (and its jupyter-server pin), without Node.js on PATH, and check
#   1. `jupyter server extension list` shows jupyter_accel enabled and OK,
#   2. `jupyter labextension list` shows jupyter-accel "enabled OK" (never "not compatible" / X),
#   3. a one-test browser smoke (labextension/ui-tests/smoke/) opens the sidebar against a devcluster and sees it
#      connected, with no shared-module version warning in the browser console.
# Matrix (JA_LAB_MATRIX, space-separated, each `jupyterlab-version[:extra pip requirement]`):
#   default "4.4.7:jupyter-server~=2.17.0 newest" — the pins of ODH / OpenShift AI workbench images
#   (opendatahub-io/notebooks and red-hat-data-services/notebooks jupyter/minimal/ubi9-python-3.12/pyproject.toml)
#   and the newest JupyterLab 4.x on PyPI ("newest" is resolved with `pip index versions`).
# The venvs are cached outside the repository, keyed by their pins and Python version, in
# ${JA_LAB_VENV_CACHE:-${XDG_CACHE_HOME:-~/.cache}/jupyter-accel/lab-venvs}; only the wheel is reinstalled.
# The smoke test reuses the devcluster of JA_DEVCLUSTER_RUNDIR when that one is healthy, else starts its own;
# JA_SMOKE=0 skips the browser part (the listings are still checked).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
# shellcheck disable=SC1091
. .venv/bin/activate
OUT=$(mktemp -d); CLUSTER_RUN=""
cleanup() {
  if [ -n "$CLUSTER_RUN" ]; then python -m devcluster down --run-dir "$CLUSTER_RUN" >/dev/null 2>&1 || true; rm -rf "$CLUSTER_RUN"; fi
  rm -rf "$OUT"
}
trap cleanup EXIT
t0=$SECONDS

python -m build --wheel --no-isolation --outdir "$OUT/dist" . >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
wheel=$(ls "$OUT"/dist/jupyter_accel-*.whl)
echo "built $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB) in $((SECONDS - t0)) s"
listing=$(unzip -l "$wheel")  # read whole first: `grep -q` on a pipe would SIGPIPE unzip under pipefail
grep -q 'share/jupyter/labextensions/jupyter-accel/package.json' <<<"$listing" || { echo "wheel lacks the labextension"; exit 1; }
grep -q 'etc/jupyter/jupyter_server_config.d/jupyter_accel.json' <<<"$listing" || { echo "wheel lacks the server config"; exit 1; }

CACHE=${JA_LAB_VENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/jupyter-accel/lab-venvs}
mkdir -p "$CACHE"
PYVER=$(python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
newest_lab() {  # the newest JupyterLab 4.x release on the package index (pip's own client)
  local all  # read whole, then pick: `| head -1` would end the writer by SIGPIPE, which pipefail reports
  all=$(pip index versions jupyterlab 2>/dev/null | sed -n 's/^Available versions: //p' | tr ',' '\n' | tr -d ' ')
  grep -E '^4\.[0-9]+\.[0-9]+$' <<<"$all" | sed -n 1p
}
# a PATH without node proves the wheel needs no Node.js at install or run time
clean_path=$(echo "$PATH" | tr ':' '\n' | grep -v -e "$ROOT/.venv" | while read -r d; do [ -x "$d/node" ] || echo "$d"; done | paste -sd:)
nocolor() { sed 's/\x1b\[[0-9;]*m//g'; }

lab_venv() {  # lab_venv VERSION EXTRA -> prints the venv path; creates it once per key
  local version=$1 extra=$2 key venv
  key="jupyterlab-$version${extra:+_$(printf '%s' "$extra" | tr -c 'A-Za-z0-9.=~<>_-' '_')}-py$PYVER"
  venv="$CACHE/$key"
  if [ ! -f "$venv/.ready" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    # shellcheck disable=SC2086
    "$venv/bin/pip" install -q "jupyterlab==$version" ${extra:+"$extra"} >&2
    touch "$venv/.ready"
  fi
  echo "$venv"
}

start_cluster() {
  if [ -n "${JA_DEVCLUSTER_RUNDIR:-}" ] && python -m devcluster env --run-dir "$JA_DEVCLUSTER_RUNDIR" >"$OUT/env" 2>/dev/null; then
    echo "reusing the devcluster of $JA_DEVCLUSTER_RUNDIR"
  else
    CLUSTER_RUN=$(mktemp -d "${TMPDIR:-/tmp}/accel-smoke-devcluster-XXXXXX")
    python -m devcluster up --run-dir "$CLUSTER_RUN" >"$OUT/env" || { echo "devcluster failed to start (JA_SMOKE=0 skips the smoke test)"; return 1; }
  fi
  eval "$(grep '^export ' "$OUT/env")"
  export JA_UI_KUBECONFIG=$KUBECONFIG_QUEUE_VIEWER JUPYTER_ACCEL_NAMESPACE=team-a
}

SMOKE=${JA_SMOKE:-1}
if [ "$SMOKE" = "1" ]; then
  [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || { echo "chromium is missing: run scripts/install-system-deps.sh"; exit 1; }
  (cd labextension/ui-tests && [ -d node_modules/@playwright/test ] || PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund >/dev/null)
  t=$SECONDS; start_cluster; echo "devcluster ready in $((SECONDS - t)) s"
fi

failed=()
for entry in ${JA_LAB_MATRIX:-4.4.7:jupyter-server~=2.17.0 newest}; do
  version=${entry%%:*}; extra=""; [ "$entry" != "$version" ] && extra=${entry#*:}
  if [ "$version" = newest ]; then version=$(newest_lab); [ -n "$version" ] || { echo "cannot resolve the newest JupyterLab"; exit 1; }; fi
  t=$SECONDS
  venv=$(lab_venv "$version" "$extra")
  "$venv/bin/pip" install -q --force-reinstall --no-deps "$wheel"
  "$venv/bin/pip" install -q "$wheel"  # its own dependencies, when the cache predates a new one
  server=$(PATH="$venv/bin:$clean_path" "$venv/bin/jupyter" server extension list 2>&1 | nocolor)
  lab=$(PATH="$venv/bin:$clean_path" "$venv/bin/jupyter" labextension list 2>&1 | nocolor)
  label="JupyterLab $("$venv/bin/python" -c 'import jupyterlab; print(jupyterlab.__version__)'), jupyter-server $("$venv/bin/python" -c 'import jupyter_server; print(jupyter_server.__version__)')"
  echo "== $label"
  grep -E 'jupyter_accel' <<<"$server" || true; grep -E 'jupyter-accel' <<<"$lab" || true
  ok=1
  grep -qE 'jupyter_accel enabled' <<<"$server" && grep -qE 'jupyter_accel [0-9][^ ]* OK' <<<"$server" \
    || { echo "server extension not enabled/OK:"; echo "$server"; ok=0; }
  if ! grep -qE 'jupyter-accel v[0-9.]+ enabled OK' <<<"$lab" || grep -qiE 'not compatible|jupyter-accel.* X' <<<"$lab"; then
    echo "labextension not enabled/OK:"; echo "$lab"; ok=0
  fi
  if [ "$ok" = 1 ] && [ "$SMOKE" = "1" ]; then
    (cd labextension/ui-tests && JUPYTER_ACCEL_SMOKE_VENV="$venv" PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
      npx playwright test --config smoke/playwright.config.js) || ok=0
  fi
  echo "-- $label: $([ "$ok" = 1 ] && echo ok || echo FAILED) in $((SECONDS - t)) s"
  [ "$ok" = 1 ] || failed+=("$label")
done
[ ${#failed[@]} -eq 0 ] || { echo "packaging FAILED on: ${failed[*]}"; exit 1; }
echo "packaging ok ($((SECONDS - t0)) s)"

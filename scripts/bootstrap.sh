#!/usr/bin/env bash
# scripts/bootstrap.sh — everything a fresh machine needs before the demo or the tests, idempotent:
# Debian packages, the Python virtualenv with the package installed editable (this builds the labextension
# through the hatch jupyter-builder hook), the front-end's npm packages, and the devcluster binaries (Go builds
# into a per-version cache outside the repository, so a second run builds nothing).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
t0=$SECONDS
step() { echo "== $* ($((SECONDS - t0)) s)"; }

step "system packages"
bash scripts/install-system-deps.sh

step "python virtualenv"
[ -x .venv/bin/python ] || python3 -m venv .venv
# shellcheck disable=SC1091
. .venv/bin/activate
stamp=.venv/.deps-$(cat pyproject.toml devcluster/pyproject.toml labextension/package.json | sha256sum | cut -c1-12)
if [ ! -f "$stamp" ]; then
  python -m pip install -q --upgrade pip
  python -m pip install -q "hatchling>=1.21" "hatch-nodejs-version>=0.3.2" "jupyter-builder>=1.2.0,<2" \
    "hatch-jupyter-builder>=0.5"
  (cd labextension && npm ci --no-audit --no-fund --loglevel=error)
  python -m pip install -q -e ".[test]"
  python -m pip install -q -e ./devcluster  # the test cluster, a package of its own (its pytest plugin included)
  # jupyter-server-mcp (a test dependency, for the agent tools) turns itself on in every server, on port 3001:
  # off here, so the demo's and the tests' servers stay as they were; the agent tests turn it on per server
  jupyter server extension disable --sys-prefix jupyter_server_mcp >/dev/null 2>&1
  rm -f .venv/.deps-*; touch "$stamp"
fi
[ -d labextension/node_modules ] || (cd labextension && npm ci --no-audit --no-fund --loglevel=error)

step "interop venvs (CodeFlare SDK, for tests/notebook/test_codeflare_interop.py)"
bash scripts/interop-venv.sh codeflare >/dev/null

if [ "${JA_SKIP_DEVCLUSTER_BUILD:-0}" = "1" ]; then
  step "devcluster binaries skipped (JA_SKIP_DEVCLUSTER_BUILD=1: a cluster of your own)"
else
  step "devcluster binaries"
  python -m devcluster build
fi
step "bootstrap done"

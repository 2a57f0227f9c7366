#!/usr/bin/env bash
# scripts/check-oldest-types.sh — type-check the front-end against the @jupyterlab/* packages of the oldest supported
# JupyterLab (4.4.7, ODH / OpenShift AI workbench images), so an API newer than that fails here and not in a user's
# browser. The packages are installed once (npm, no scripts) into a cache outside the repository.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LAB=${JA_OLDEST_LAB:-4.4.7}
# the @jupyterlab/* versions JupyterLab $LAB ships (its staging/package.json); apputils runs one minor ahead
APPUTILS=${JA_OLDEST_APPUTILS:-4.5.7} COREUTILS=${JA_OLDEST_COREUTILS:-6.4.7} SERVICES=${JA_OLDEST_SERVICES:-7.4.7}
DIR=${XDG_CACHE_HOME:-$HOME/.cache}/jupyter-accel/jupyterlab-types-$LAB
if [ ! -f "$DIR/.ready" ]; then
  rm -rf "$DIR"; mkdir -p "$DIR"
  cat >"$DIR/package.json" <<JSON
{"name": "jupyterlab-types-$LAB", "private": true, "dependencies": {
  "@jupyterlab/application": "$LAB", "@jupyterlab/apputils": "$APPUTILS", "@jupyterlab/coreutils": "$COREUTILS",
  "@jupyterlab/services": "$SERVICES", "@jupyterlab/settingregistry": "$LAB", "@jupyterlab/ui-components": "$LAB"}}
JSON
  (cd "$DIR" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
  touch "$DIR/.ready"
fi
SRC=$ROOT/labextension
cat >"$DIR/tsconfig.json" <<JSON
{
  "extends": "$SRC/tsconfig.json",
  "compilerOptions": {
    "noEmit": true, "composite": false, "incremental": false, "rootDir": "$SRC/src", "baseUrl": "$DIR",
    "paths": {"@jupyterlab/*": ["$DIR/node_modules/@jupyterlab/*"], "@lumino/*": ["$DIR/node_modules/@lumino/*"]}
  },
  "include": ["$SRC/src/*.ts", "$SRC/src/*.tsx", "$SRC/src/generated/*.ts"]
}
JSON
cd "$SRC"
npx tsc -p "$DIR/tsconfig.json"
echo "types ok against JupyterLab $LAB's packages"

#!/usr/bin/env bash
# scripts/test-packaging.sh — build the wheel, install it into a fresh virtualenv without Node.js on PATH, and
# check that Jupyter lists the server extension and the prebuilt labextension as enabled and OK.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
# shellcheck disable=SC1091
. .venv/bin/activate
OUT=$(mktemp -d); trap 'rm -rf "$OUT"' EXIT
python -m build --wheel --no-isolation --outdir "$OUT/dist" . >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
wheel=$(ls "$OUT"/dist/jupyter_accel-*.whl)
echo "built $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB)"
listing=$(unzip -l "$wheel")  # read whole first: `grep -q` on a pipe would SIGPIPE unzip under pipefail
grep -q 'share/jupyter/labextensions/jupyter-accel/package.json' <<<"$listing" || { echo "wheel lacks the labextension"; exit 1; }
grep -q 'etc/jupyter/jupyter_server_config.d/jupyter_accel.json' <<<"$listing" || { echo "wheel lacks the server config"; exit 1; }
python -m venv "$OUT/venv"
"$OUT/venv/bin/pip" install -q "$wheel" "jupyterlab>=4.6,<5"
# a PATH without node proves the wheel needs no Node.js at install or run time
clean_path=$(echo "$PATH" | tr ':' '\n' | grep -v -e "$ROOT/.venv" | while read -r d; do [ -x "$d/node" ] || echo "$d"; done | paste -sd:)
nocolor() { sed 's/\x1b\[[0-9;]*m//g'; }
server=$(PATH="$OUT/venv/bin:$clean_path" "$OUT/venv/bin/jupyter" server extension list 2>&1 | nocolor)
lab=$(PATH="$OUT/venv/bin:$clean_path" "$OUT/venv/bin/jupyter" labextension list 2>&1 | nocolor)
grep -E 'jupyter_accel' <<<"$server" || true; grep -E 'jupyter-accel' <<<"$lab" || true
grep -qE 'jupyter_accel enabled' <<<"$server" && grep -qE 'jupyter_accel [0-9][^ ]* OK' <<<"$server" \
  || { echo "server extension not enabled/OK:"; echo "$server"; exit 1; }
grep -qE 'jupyter-accel v[0-9.]+ enabled OK' <<<"$lab" || { echo "labextension not enabled/OK:"; echo "$lab"; exit 1; }
echo "packaging ok"

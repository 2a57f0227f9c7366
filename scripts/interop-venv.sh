#!/usr/bin/env bash
# scripts/interop-venv.sh TOOL — print the path of a virtualenv holding another tool the interop tests drive
# (codeflare: CodeFlare SDK), creating it once. It is apart from .venv because the tool pins its own Ray and
# ipywidgets. Cached outside the repository, keyed by the pin and the Python version, in
# ${JA_INTEROP_VENV_CACHE:-${XDG_CACHE_HOME:-~/.cache}/jupyter-accel/interop-venvs}.
set -euo pipefail
case "${1:-}" in
  codeflare) pin="codeflare-sdk==0.40.1" ;;
  *) echo "usage: $0 codeflare" >&2; exit 2 ;;
esac
CACHE=${JA_INTEROP_VENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/jupyter-accel/interop-venvs}
py=$(python3 -c 'import sys; print(f"py{sys.version_info[0]}.{sys.version_info[1]}")')
venv="$CACHE/${pin//=/-}-$py"
if [ ! -f "$venv/.ready" ]; then
  rm -rf "$venv"
  mkdir -p "$CACHE"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install -q --disable-pip-version-check "$pin" >&2
  touch "$venv/.ready"
fi
echo "$venv"

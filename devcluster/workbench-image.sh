#!/usr/bin/env bash
# devcluster/workbench-image.sh OUT — the base of the real workbench's image (devcluster/workbench.py), built the
# way node-image.sh builds the runtime image: a Debian minbase rootfs (mmdebstrap) with Python and a venv holding
# JupyterLab and jupyter-server at the pins of OpenShift AI's workbench images (versions.env), the libraries the
# jupyter-accel wheel asks for, and Ray's client at the real node's Ray version (`%accel connect` from a kernel in
# the cluster). The wheel itself is not in here: workbench.py lays it on top as a second layer on every deploy, so
# this base is rebuilt only when its inputs change (cached by build.sh, keyed by this file and the versions).
# Writes OUT/workbench-base.tar (the rootfs layer) and OUT/workbench-base.freeze (`pip freeze` of the venv: the
# deploy checks the wheel's requirements against it). The user is 1001 in group 0, as on OpenShift AI. Runs as
# root or as a normal user (rootfs.sh).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd); . "$HERE/versions.env"; . "$HERE/rootfs.sh"
OUT=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/ja-workbench-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
# jupyter-accel's own requirements (pyproject.toml) with its widgets extra; ipykernel comes with JupyterLab
pip="jupyterlab==$WORKBENCH_JUPYTERLAB_VERSION jupyter-server~=$WORKBENCH_JUPYTER_SERVER_VERSION kubernetes>=31 \
pydantic>=2.7,<3 pathspec>=0.12 ipywidgets>=8,<9 ray[client]==$RAY_VERSION"
export JA_FREEZE="$work/freeze"
venv_rootfs "$work" "$work/rootfs.tar" procps "$pip" \
  'chroot "$1" /opt/venv/bin/pip freeze --disable-pip-version-check > "$JA_FREEZE"' \
  'mkdir -p "$1/opt/app-root/src" && chmod 0777 "$1/opt/app-root/src"' \
  'echo "default:x:1001:0:workbench user:/opt/app-root/src:/bin/sh" >> "$1/etc/passwd"'
mv "$work/rootfs.tar" "$OUT/workbench-base.tar"
mv "$work/freeze" "$OUT/workbench-base.freeze"

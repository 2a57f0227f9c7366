#!/usr/bin/env bash
# devcluster/node-image.sh OUT — the real node's runtime image, built from Debian packages and PyPI only:
# a Debian minbase rootfs (mmdebstrap) with Python, wget and procps (KubeRay's probes call wget), nslookup (the
# Training Operator's init container waits for the master's DNS name with it), and a venv with
# the pinned ray[default] (the dashboard included). No torch: PyPI's Linux torch wheels are CUDA builds that pull
# several GB of nvidia-* wheels (see devcluster/README.md). Written as an OCI archive (oci_archive.py) that the
# node's containerd imports with no registry. Runs as root or as a normal user (rootfs.sh).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd); . "$HERE/versions.env"; . "$HERE/rootfs.sh"
OUT=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/ja-node-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
venv_rootfs "$work" "$work/rootfs.tar" wget,procps,iproute2,bind9-dnsutils "ray[default]==$RAY_VERSION"
ref="devcluster.local/jupyter-accel/runtime:ray-$RAY_VERSION"
python3 "$HERE/oci_archive.py" "$work/rootfs.tar" "$OUT/runtime-image.tar" --ref "$ref" \
  --env "PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" --env "HOME=/root"
echo "$ref" > "$OUT/runtime-image.ref"

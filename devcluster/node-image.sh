#!/usr/bin/env bash
# devcluster/node-image.sh OUT — the real node's runtime image, built from Debian packages and PyPI only:
# a Debian minbase rootfs (mmdebstrap) with Python, wget and procps (KubeRay's probes call wget), nslookup (the
# Training Operator's init container waits for the master's DNS name with it), and a venv with
# the pinned ray[default] (the dashboard included). No torch: PyPI's Linux torch wheels are CUDA builds that pull
# several GB of nvidia-* wheels (see devcluster/README.md). Written as an OCI archive (oci_archive.py) that the
# node's containerd imports with no registry. Runs as root or, through mmdebstrap's unshare mode, as a normal user.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd); . "$HERE/versions.env"
OUT=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/ja-node-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
mode=root; [ "$(id -u)" -eq 0 ] || mode=unshare
# pip inside the chroot trusts what the host's pip trusts (a TLS-inspecting registry proxy's CA, for one), and
# nothing else of the host's environment reaches it (its SSL_CERT_FILE / REQUESTS_CA_BUNDLE would point at paths
# that the chroot lacks).
ca=${PIP_CERT:-${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}}
cp "$ca" "$work/host-ca.pem"
export JA_HOST_CA="$work/host-ca.pem" JA_RAY="ray[default]==$RAY_VERSION"
mmdebstrap --mode="$mode" --variant=minbase --include=python3,python3-venv,wget,procps,iproute2,bind9-dnsutils \
  --customize-hook='chroot "$1" python3 -m venv /opt/venv' \
  --customize-hook='cp "$JA_HOST_CA" "$1/tmp/host-ca.pem"' \
  --customize-hook='chroot "$1" env -i PATH=/usr/bin:/bin HOME=/root PIP_CERT=/tmp/host-ca.pem /opt/venv/bin/pip install -q --no-cache-dir --disable-pip-version-check "$JA_RAY"' \
  --customize-hook='rm -rf "$1"/tmp/host-ca.pem "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/* "$1"/usr/share/doc/* "$1"/usr/share/man/*' \
  "$NODE_IMAGE_SUITE" "$work/rootfs.tar"
ref="devcluster.local/jupyter-accel/runtime:ray-$RAY_VERSION"
python3 "$HERE/oci_archive.py" "$work/rootfs.tar" "$OUT/runtime-image.tar" --ref "$ref" \
  --env "PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" --env "HOME=/root"
echo "$ref" > "$OUT/runtime-image.ref"

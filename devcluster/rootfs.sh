# devcluster/rootfs.sh — sourced by node-image.sh and workbench-image.sh (build.sh keys both images on it too).
#
# venv_rootfs WORK OUT_TAR PACKAGES PIP_ARGS [HOOK...]: a Debian minbase rootfs (mmdebstrap, NODE_IMAGE_SUITE) with
# python3 and a venv at /opt/venv holding what `pip install PIP_ARGS` installs (word-split, not globbed), written
# to OUT_TAR. PACKAGES: more Debian packages, comma-separated (may be empty). Each HOOK is one more mmdebstrap
# customize hook, run after the install and before the clean-up. WORK: a scratch directory of the caller's.
# Runs as root or, through mmdebstrap's unshare mode, as a normal user.
# pip inside the chroot trusts what the host's pip trusts (a TLS-inspecting registry proxy's CA, for one), and
# nothing else of the host's environment reaches it (its SSL_CERT_FILE / REQUESTS_CA_BUNDLE would point at paths
# that the chroot lacks).
venv_rootfs() {
  local work=$1 out=$2 packages=$3 pip=$4 mode=root hook
  shift 4
  [ "$(id -u)" -eq 0 ] || mode=unshare
  cp "${PIP_CERT:-${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}}" "$work/host-ca.pem"
  local hooks=()
  for hook in "$@"; do hooks+=(--customize-hook="$hook"); done
  JA_HOST_CA="$work/host-ca.pem" JA_PIP="$pip" mmdebstrap --mode="$mode" --variant=minbase \
    --include="python3,python3-venv${packages:+,$packages}" \
    --customize-hook='chroot "$1" python3 -m venv /opt/venv' \
    --customize-hook='cp "$JA_HOST_CA" "$1/tmp/host-ca.pem"' \
    --customize-hook='set -f; chroot "$1" env -i PATH=/usr/bin:/bin HOME=/root PIP_CERT=/tmp/host-ca.pem /opt/venv/bin/pip install -q --no-cache-dir --disable-pip-version-check $JA_PIP' \
    "${hooks[@]}" \
    --customize-hook='rm -rf "$1"/tmp/host-ca.pem "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/* "$1"/usr/share/doc/* "$1"/usr/share/man/*' \
    "$NODE_IMAGE_SUITE" "$out"
}

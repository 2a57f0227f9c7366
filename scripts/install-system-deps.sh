#!/usr/bin/env bash
# Debian packages the tests need: chromium (galata UI tests), socat, iproute2 and util-linux (devcluster), and for
# devcluster's real node: gcc, libc6-dev, pkg-config and libseccomp-dev (runc is cgo; the static pause binary),
# mmdebstrap (the node's runtime image is a Debian rootfs), mitmproxy (the fault-injecting proxy of
# tests/reliability/test_apiserver_faults.py; Debian's runs in the system Python, apart from .venv).
# Idempotent: apt is only touched when something is missing, so repeated runs cost nothing.
set -euo pipefail

PACKAGES=(chromium socat iproute2 util-linux gcc libc6-dev pkg-config libseccomp-dev mmdebstrap mitmproxy)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if [[ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" != *"install ok installed"* ]]; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "system deps: all present (${PACKAGES[*]})"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

echo "system deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Refresh the index only when it has never been fetched; a stale index is retried once below.
if [ -z "$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v -e lock -e partial)" ]; then
  $SUDO apt-get update
fi
if ! $SUDO apt-get install -y --no-install-recommends "${missing[@]}"; then
  $SUDO apt-get update
  $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi

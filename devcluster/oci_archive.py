"""Write an OCI image archive (an OCI image layout in a tar) from rootfs / layer tarballs.

The real node's containerd imports it with `ctr images import` (no registry): the layout's index names the image
through the `io.containerd.image.name` and `org.opencontainers.image.ref.name` annotations.
Usage: python oci_archive.py ROOTFS.tar OUT.tar --ref NAME:TAG [--env K=V ...] [--cmd ...]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import tarfile
from pathlib import Path


def _digest(path: Path) -> tuple[str, int]:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest(), path.stat().st_size


def write_archive(
    rootfs: Path | list[Path], out: Path, ref: str, env: list[str], cmd: list[str], history: list[str] | None = None
) -> str:
    """`rootfs`: one layer tar, or several, lowest first (uncompressed, so each digest is also its diff id)."""
    layers = [rootfs] if isinstance(rootfs, Path) else list(rootfs)
    digests = [_digest(p) for p in layers]
    config = {
        "architecture": "amd64",
        "os": "linux",
        "config": {"Env": env, "Cmd": cmd, "WorkingDir": "/"},
        "rootfs": {"type": "layers", "diff_ids": [f"sha256:{h}" for h, _ in digests]},
        "history": [{"created_by": h} for h in (history or ["devcluster/node-image.sh (mmdebstrap + pip)"])],
    }
    config_b = json.dumps(config, sort_keys=True).encode()
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {
            "mediaType": "application/vnd.oci.image.config.v1+json",
            "digest": f"sha256:{hashlib.sha256(config_b).hexdigest()}",
            "size": len(config_b),
        },
        "layers": [
            {"mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": f"sha256:{h}", "size": size}
            for h, size in digests
        ],
    }
    manifest_b = json.dumps(manifest, sort_keys=True).encode()
    manifest_hex = hashlib.sha256(manifest_b).hexdigest()
    index = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [
            {
                "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "digest": f"sha256:{manifest_hex}",
                "size": len(manifest_b),
                "annotations": {
                    "io.containerd.image.name": ref,
                    "org.opencontainers.image.ref.name": ref.rsplit(":", 1)[-1],
                },
            }
        ],
    }

    def add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))

    tmp = out.with_suffix(".partial")
    with tarfile.open(tmp, "w") as tar:
        add_bytes(tar, "oci-layout", b'{"imageLayoutVersion": "1.0.0"}')
        add_bytes(tar, "index.json", json.dumps(index).encode())
        add_bytes(tar, f"blobs/sha256/{manifest_hex}", manifest_b)
        add_bytes(tar, f"blobs/sha256/{hashlib.sha256(config_b).hexdigest()}", config_b)
        for path, (h, _) in zip(layers, digests, strict=True):
            tar.add(path, arcname=f"blobs/sha256/{h}")
    tmp.replace(out)
    return f"sha256:{manifest_hex}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("rootfs", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--ref", required=True)
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--cmd", nargs="*", default=["/bin/bash"])
    a = ap.parse_args()
    print(write_archive(a.rootfs, a.out, a.ref, a.env, a.cmd))


if __name__ == "__main__":
    main()

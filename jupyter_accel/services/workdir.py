"""A job's working directory: a folder of the Jupyter server's files, packed by the server into a gzipped tar that
travels with the job (in its owned ConfigMap) and is unpacked in every pod before the program starts there
(builders/common.WORKDIR); or, for a Ray job on a running cluster, into a zip that Ray takes as a package
(pack_ray_package). Blocking file I/O: run off the event loop (services run in worker threads).

What is left out: hidden files and folders, caches and checkpoints (DEFAULT_EXCLUDES), and whatever the folder's
own `.gitignore` and `.accelignore` exclude (gitignore rules, with `pathspec`). Refused, naming the field `workdir`:
a folder outside the server's root, a symlink that leads out of the folder, and a pack over the limit.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pathspec

from .errors import Invalid

DEFAULT_EXCLUDES = [
    ".*",  # hidden files and folders: .git, .venv, .ipynb_checkpoints, .cache
    "__pycache__/",
    "*.py[cod]",
    "checkpoints/",
    "*.ckpt",
    "node_modules/",
]
MAX_FILES = 5000
MAX_RAW_BYTES = 64 * 2**20  # read at most this much before giving up (the pack must fit far less)
# a working dir sent to a Ray cluster as a package (through the dashboard proxy too); larger data belongs on a PVC
RAY_PACKAGE_LIMIT = 64 * 2**20
RAY_PACKAGE_PREFIX = "_ray_pkg_"  # Ray's name for a package in its GCS: gcs://_ray_pkg_<hash>.zip


def _refuse(message: str) -> Invalid:
    return Invalid(f"workdir: {message}", field="workdir")


def resolve(root: str, path: str) -> Path:
    """The folder `path` (absolute, or relative to the server's root `root`), which must lie inside `root`."""
    base = Path(root).resolve()
    given = Path(path)
    folder = (given if given.is_absolute() else base / given).resolve()
    if folder != base and base not in folder.parents:
        raise _refuse(f"{path!r} is outside the Jupyter server's files ({base}); only folders below it can be sent")
    if not folder.is_dir():
        raise _refuse(f"{path!r} is not a folder of the Jupyter server's files")
    return folder


def _rules(folder: Path) -> pathspec.PathSpec:
    lines = list(DEFAULT_EXCLUDES)
    for name in (".gitignore", ".accelignore"):
        f = folder / name
        if f.is_file():
            lines += f.read_text(errors="replace").splitlines()
    return pathspec.PathSpec.from_lines("gitwildmatch", lines)


def files(folder: Path) -> list[tuple[str, Path]]:
    """(path in the pack, file) of every file sent, sorted; symlinks that stay inside the folder are followed."""
    rules = _rules(folder)
    out: list[tuple[str, Path]] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        here = Path(dirpath)
        rel_dir = here.relative_to(folder).as_posix()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        dirnames[:] = sorted(d for d in dirnames if not rules.match_file(prefix + d + "/"))
        for d in dirnames:
            _inside(folder, here / d, prefix + d)
        for name in sorted(filenames):
            rel = prefix + name
            if rules.match_file(rel):
                continue
            _inside(folder, here / name, rel)
            out.append((rel, here / name))
            if len(out) > MAX_FILES:
                raise _refuse(f"more than {MAX_FILES} files; exclude data with a .accelignore, or use a PVC")
    return out


def _inside(folder: Path, path: Path, rel: str) -> None:
    if path.is_symlink():
        target = path.resolve()
        if target != folder and folder not in target.parents:
            raise _refuse(f"{rel!r} is a symlink that leads out of the folder (to {target}); only files inside go")


def _contents(chosen: list[tuple[str, Path]], limit: int) -> Iterator[tuple[str, bytes, int]]:
    """(path in the pack, bytes, mode) of each chosen file, refusing once more than MAX_RAW_BYTES are read."""
    raw = 0
    for rel, f in chosen:
        data = f.read_bytes()
        raw += len(data)
        if raw > MAX_RAW_BYTES:
            raise _refuse(_too_big(f"over {MAX_RAW_BYTES >> 20} MiB before packing", limit))
        yield rel, data, 0o755 if os.access(f, os.X_OK) else 0o644


def _bounded(packed: bytes, count: int, limit: int) -> bytes:
    if len(packed) > limit:
        raise _refuse(_too_big(f"{len(packed) / 2**20:.2f} MiB packed ({count} files)", limit))
    return packed


def pack(root: str, path: str, limit: int) -> bytes:
    """The folder as a deterministic gzipped tar (sorted, no times or owners: the same files give the same bytes,
    so a retried submit sends the same), at most `limit` bytes."""
    chosen = files(resolve(root, path))
    buf = io.BytesIO()
    # mtime 0 in the gzip header too, so equal files give equal bytes
    with (
        gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=6) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for rel, data, mode in _contents(chosen, limit):
            info = tarfile.TarInfo(rel)
            info.size, info.mode, info.mtime = len(data), mode, 0
            tar.addfile(info, io.BytesIO(data))
    return _bounded(buf.getvalue(), len(chosen), limit)


def pack_ray_package(root: str, path: str, limit: int = RAY_PACKAGE_LIMIT) -> tuple[str, bytes, int]:
    """The folder as Ray's working-dir package: (its gcs:// URI, the zip, the number of files). The files sit at the
    zip's top, as Ray's own client packs a working_dir (its GCS packages are unpacked as they are); the same rules
    as a job's working dir; deterministic, so the same files give the same URI and Ray keeps one copy."""
    chosen = files(resolve(root, path))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for rel, data, mode in _contents(chosen, limit):
            info = zipfile.ZipInfo(rel, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr, info.compress_type = (0o100000 | mode) << 16, zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    packed = _bounded(buf.getvalue(), len(chosen), limit)
    return f"gcs://{RAY_PACKAGE_PREFIX}{hashlib.sha256(packed).hexdigest()[:32]}.zip", packed, len(chosen)


def _too_big(what: str, limit: int) -> str:
    return (
        f"{what}, over the {limit / 2**10:.0f} KiB a job can carry. Leave data out (a .accelignore with gitignore "
        "rules), put it on a PVC and mount that (volumes), or build it into the image."
    )

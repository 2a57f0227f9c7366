"""Kept logs: every pod's log of the user's jobs, written to the workbench's own storage while the pods run, so a
job's output outlives its pods (operators remove them as jobs end) and the Jupyter server's restarts.

One folder per job (by uid) under `<root>/<namespace>/`: per pod its log as Kubernetes sends it with timestamps
(`<pod>.log`, and `<pod>.log.1` once it was rotated) and what is known of it (`<pod>.json`). Bounded per job (each
pod keeps its newest share of `job_bytes`, in two halves: the older half is dropped when the newer one is full, and
the log is then marked truncated) and in all (`total_bytes`: the oldest jobs' folders go first). Logs are data
for the user; nothing needs them to know a job's state.

The keeper follows each started pod of the jobs it is given in a thread of its own (`pods/log?follow=true`); a
stream that ends while the container still runs is resumed from its last line's time, lines already kept skipped.
"""

from __future__ import annotations

import contextlib
import json
import logging
import shutil
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kubernetes.client import ApiClient

from ..domain.log_lines import split_stamped
from . import rest
from .logs import LogStream
from .writes import WriteError

log = logging.getLogger(__name__)

META_EVERY_S = 2.0  # a pod's .json is brought up to date at most this often while its log grows


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class KeptPod:
    """What is known of one pod's kept log."""

    pod: str
    container: str
    since: str  # when keeping began (RFC 3339)
    updated: str
    bytes: int = 0  # kept now, both halves
    truncated: bool = False  # its oldest lines were dropped to stay within the bound
    complete: bool = False  # its container ended and every line it wrote is kept
    last_stamp: str = ""  # the time of the newest kept line: a resumed stream skips lines up to it
    lost: str | None = None  # why the log could not be kept (the pod went before it could be read)


class KeptLogStore:
    """The files. Thread-safe for one writer per pod and any number of readers."""

    def __init__(self, root: Path, namespace: str, job_bytes: int, total_bytes: int) -> None:
        self.root = Path(root) / namespace
        self.job_bytes = job_bytes
        self.total_bytes = total_bytes
        self._lock = threading.Lock()

    def job_dir(self, uid: str) -> Path:
        if not uid or "/" in uid or uid.startswith("."):
            raise ValueError(f"not a uid: {uid!r}")
        return self.root / uid

    def note_job(self, uid: str, kind: str, name: str) -> None:
        path = self.job_dir(uid) / "job.json"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"uid": uid, "kind": kind, "name": name, "since": _now()}))

    def pods(self, uid: str) -> list[KeptPod]:
        folder = self.job_dir(uid)
        out = []
        for meta in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            if meta.name == "job.json":
                continue
            with contextlib.suppress(OSError, ValueError, TypeError):
                out.append(KeptPod(**json.loads(meta.read_text())))
        return out

    def pod(self, uid: str, pod: str) -> KeptPod | None:
        return next((p for p in self.pods(uid) if p.pod == pod), None)

    def read(self, uid: str, pod: str) -> str:
        """The kept log of one pod, timestamped lines, oldest first."""
        folder = self.job_dir(uid)
        parts = [folder / f"{pod}.log.1", folder / f"{pod}.log"]
        return "".join(p.read_bytes().decode("utf-8", "replace") for p in parts if p.exists())

    def read_since(self, uid: str, pod: str, offset: int | None) -> tuple[str, int]:
        """The whole lines kept after byte `offset` of the pod's newer half (None: from the start, older half too),
        and the offset after them: a follower reads each byte once. When the log was rotated since (the newer half
        is shorter than `offset`), what followed `offset` is in the older half now, and comes first."""
        folder = self.job_dir(uid)
        newer, older = folder / f"{pod}.log", folder / f"{pod}.log.1"
        size = newer.stat().st_size if newer.exists() else 0
        before = b""
        if (offset is None or size < offset) and older.exists():
            with older.open("rb") as f:
                f.seek(offset or 0)
                before = f.read()
        start = 0 if offset is None or size < offset else offset
        new = b""
        if newer.exists():
            with newer.open("rb") as f:
                f.seek(start)
                new = f.read()
        end = new.rfind(b"\n") + 1  # whole lines only; the rest comes with the next look
        return (before + new[:end]).decode("utf-8", "replace"), start + end

    def save(self, uid: str, meta: KeptPod) -> None:
        path = self.job_dir(uid) / f"{meta.pod}.json"
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(asdict(meta)))
        tmp.replace(path)  # a reader never sees half a file

    def writer(self, uid: str, pod: str, container: str, share: int) -> PodLog:
        folder = self.job_dir(uid)
        folder.mkdir(parents=True, exist_ok=True)
        meta = self.pod(uid, pod) or KeptPod(pod=pod, container=container, since=_now(), updated=_now())
        return PodLog(self, uid, meta, max(share, 64 * 1024))

    def used(self) -> int:
        return sum(f.stat().st_size for f in self.root.rglob("*") if f.is_file()) if self.root.is_dir() else 0

    def enforce_total(self, busy: Iterable[str] = ()) -> list[str]:
        """Drop the oldest jobs' folders (not those being written) until all kept logs fit `total_bytes`."""
        busy = set(busy)
        with self._lock:
            if not self.root.is_dir():
                return []
            folders = sorted((d for d in self.root.iterdir() if d.is_dir()), key=lambda d: d.stat().st_mtime)
            sizes = {d: sum(f.stat().st_size for f in d.rglob("*") if f.is_file()) for d in folders}
            total, dropped = sum(sizes.values()), []
            for d in folders:
                if total <= self.total_bytes:
                    break
                if d.name in busy:
                    continue
                shutil.rmtree(d, ignore_errors=True)
                total -= sizes[d]
                dropped.append(d.name)
            return dropped


class PodLog:
    """Appends one pod's timestamped lines; keeps two halves of `share` bytes; skips lines already kept."""

    def __init__(self, store: KeptLogStore, uid: str, meta: KeptPod, share: int) -> None:
        self.store, self.uid, self.meta, self.share = store, uid, meta, share
        self.path = store.job_dir(uid) / f"{meta.pod}.log"
        self._partial = b""
        self._saved_at = 0.0

    def write(self, chunk: bytes) -> None:
        data = self._partial + chunk
        lines = data.split(b"\n")
        self._partial = lines.pop()  # the unfinished last line waits for the rest of it
        keep = []
        for raw in lines:
            stamp, _ = split_stamped(raw.decode("utf-8", "replace"))
            if stamp and self.meta.last_stamp and stamp <= self.meta.last_stamp:
                continue  # kept before this stream was resumed
            self.meta.last_stamp = stamp or self.meta.last_stamp
            keep.append(raw + b"\n")
        if keep:
            self._append(b"".join(keep))

    def _append(self, data: bytes) -> None:
        size = self.path.stat().st_size if self.path.exists() else 0
        older = self.path.with_name(self.path.name + ".1")
        if size and size + len(data) > self.share // 2:
            # the newer half becomes the older one; what the older half held is dropped
            self.meta.truncated = self.meta.truncated or older.exists()
            self.path.replace(older)
            size = 0
        with self.path.open("ab") as f:
            f.write(data)
        self.meta.bytes = size + len(data) + (older.stat().st_size if older.exists() else 0)
        if time.monotonic() - self._saved_at > META_EVERY_S:
            self.flush()

    def flush(self) -> None:
        self.meta.updated = _now()
        self.store.save(self.uid, self.meta)
        self._saved_at = time.monotonic()

    def close(self, *, complete: bool, lost: str | None = None) -> None:
        if self._partial:
            self._append(self._partial + b"\n")
            self._partial = b""
        self.meta.complete = self.meta.complete or complete
        self.meta.lost = lost if not self.meta.bytes else None
        self.flush()


def started_container(pod: dict[str, Any]) -> str | None:
    """The name of the pod's main container (its first) once that has started, running or ended: its log can be
    read. None before."""
    containers = (pod.get("spec") or {}).get("containers") or []
    name = containers[0].get("name") if containers else None
    for status in (pod.get("status") or {}).get("containerStatuses") or []:
        state, last = status.get("state") or {}, status.get("lastState") or {}
        if status.get("name") == name and ("running" in state or "terminated" in state or "terminated" in last):
            return name
    return None


def container_ended(pod: dict[str, Any] | None, container: str) -> bool:
    if pod is None:
        return True
    if ((pod.get("status") or {}).get("phase")) in ("Succeeded", "Failed"):
        return True
    for status in ((pod.get("status") or {}).get("containerStatuses")) or []:
        if status.get("name") == container:
            return "terminated" in (status.get("state") or {})
    return False


@dataclass(frozen=True)
class Tracked:
    """A job whose pods' logs are kept: its uid, kind, name and the pods it has now (from the caches)."""

    uid: str
    kind: str
    name: str
    pods: list[dict[str, Any]]


class LogKeeper:
    """Follows the pods of the tracked jobs into the store. `tracked()` (from the caches, no I/O) says which jobs and
    pods; `pod_now(name)` the cached pod. Woken by `notify()` on cache changes, and every RESCAN_S anyway."""

    RESCAN_S = 60.0  # a look at the caches with no change and no stream to open again
    MIN_SCAN_S = 0.5  # while pods churn, at most two scans a second (the scan holds the GIL for its CPU)
    RETRY_S = 1.0  # a follow that ended while the container runs is opened again after this...
    MAX_RETRY_S = 30.0  # ...doubling while resumed streams bring nothing new (a simulated node ends every stream)

    def __init__(
        self,
        api: ApiClient,
        namespace: str,
        store: KeptLogStore,
        tracked: Callable[[], list[Tracked]],
        pod_now: Callable[[str], dict[str, Any] | None],
        request_timeout: float = 10.0,
    ) -> None:
        self.api, self.namespace, self.store = api, namespace, store
        self.tracked, self.pod_now = tracked, pod_now
        self.request_timeout = request_timeout
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._following: dict[tuple[str, str], LogStream | None] = {}
        self._retry: dict[tuple[str, str], tuple[float, float]] = {}  # (not before, last pause) of each pod
        self._thread = threading.Thread(target=self._run, name="accel-kept-logs", daemon=True)
        self.on_kept: Callable[[str], None] = lambda uid: None  # told when a job's kept logs changed (push)

    def start(self) -> None:
        self._thread.start()

    def notify(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        with self._lock:
            streams = [s for s in self._following.values() if s is not None]
        for s in streams:
            s.close()

    def busy_jobs(self) -> set[str]:
        with self._lock:
            return {uid for uid, _ in self._following}

    def following(self, uid: str) -> bool:
        with self._lock:
            return any(u == uid for u, _ in self._following)

    def _run(self) -> None:
        rest.on_schedule()
        while not self._stop.is_set():
            with self._lock:  # a pod's stream to open again soon, else only when the caches change (or rarely)
                due = min((t for t, _ in self._retry.values()), default=time.monotonic() + self.RESCAN_S)
            self._wake.wait(max(0.0, due - time.monotonic()))
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                self._scan()
            except Exception:  # a cache read or a full disk must not end the keeper
                log.exception("jupyter_accel: keeping logs failed this round")
            self._stop.wait(self.MIN_SCAN_S)

    def _scan(self) -> None:
        now, seen = time.monotonic(), set[tuple[str, str]]()
        for job in self.tracked():
            seen.update((job.uid, p["metadata"]["name"]) for p in job.pods)
            started = [(p, c) for p in job.pods if (c := started_container(p))]
            if not started:
                continue
            self.store.note_job(job.uid, job.kind, job.name)
            share = self.store.job_bytes // max(1, len(job.pods))
            for pod, container in started:
                name = pod["metadata"]["name"]
                key = (job.uid, name)
                with self._lock:
                    if key in self._following or self._retry.get(key, (0.0, 0.0))[0] > now:
                        continue
                kept = self.store.pod(job.uid, name)
                if kept is not None and kept.complete:
                    continue
                with self._lock:
                    self._following[key] = None
                threading.Thread(  # one name for all: a thread per pod being followed, and only while it streams
                    target=self._follow, args=(job.uid, name, container, share), name="accel-kept-log", daemon=True
                ).start()
        with self._lock:  # pods gone (their jobs deleted or done with) are not waited for
            for key in [k for k in self._retry if k not in seen]:
                del self._retry[key]

    def _follow(self, uid: str, pod: str, container: str, share: int) -> None:
        """One followed stream of one pod, into the store. A stream that ends while the container runs (a simulated
        node ends every one; an API server restart) is opened again by a later scan: no thread waits meanwhile."""
        key = (uid, pod)
        writer = self.store.writer(uid, pod, container, share)
        kept_before, lost = writer.meta.last_stamp, None
        try:
            since = writer.meta.last_stamp[:19] + "Z" if writer.meta.last_stamp else None
            stream = LogStream(
                self.api,
                self.namespace,
                pod,
                container=container,
                follow=True,
                timestamps=True,
                since_time=since,
                timeout=self.request_timeout,
            )
            with self._lock:
                self._following[key] = stream
            for chunk in stream.chunks():
                writer.write(chunk)
        except WriteError as exc:  # the pod went before its log could be read
            lost = exc.message
        except OSError as exc:  # the workbench's storage: full, or not writable
            log.warning("jupyter_accel: cannot keep the log of %s: %s", pod, exc)
            lost = f"the server could not write it: {exc.strerror or exc}"
        finally:
            ended = container_ended(self.pod_now(pod), container) and not self._stop.is_set()
            with contextlib.suppress(OSError):
                writer.close(complete=ended, lost=lost)
            with self._lock:
                self._following.pop(key, None)
                # the next try: soon while the stream brought lines, later and later while it brought none
                if ended or lost:
                    self._retry.pop(key, None)
                else:  # opened again soon while the stream brought lines, later and later while it brought none
                    last = self._retry.get(key, (0.0, 0.0))[1]
                    pause = self.RETRY_S if writer.meta.last_stamp != kept_before else last * 2
                    pause = min(max(pause, self.RETRY_S), self.MAX_RETRY_S)
                    self._retry[key] = (time.monotonic() + pause, pause)
            self.on_kept(uid)
            with contextlib.suppress(OSError):
                self.store.enforce_total(self.busy_jobs())

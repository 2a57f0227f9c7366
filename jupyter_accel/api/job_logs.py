"""A job's logs: one pod's, live through the API server or from the server's kept copy once the pod is gone, or
every pod's at once, each line prefixed with its pod (`[worker-1] ...`) and interleaved in time.

Where the answer comes from is said in headers, so every client can label it: `X-Accel-Log-Source` (`live` or
`kept`), and for a kept copy `X-Accel-Log-Kept-Since` (when the server began keeping it), `X-Accel-Log-Truncated`
(`true` when its oldest lines were dropped to stay within the bound) and `X-Accel-Log-Label`, the sentence every
front-end shows above it."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING, Any

from tornado import web

from .base import ApiError, Endpoint
from .jobs import FOLLOW_THREADS, KIND, NAME, TAIL_THREADS, JobsBase, _int_arg, parse_kind

if TYPE_CHECKING:
    from ..cluster.kept_logs import KeptLogStore
    from ..services.job_logs import LogPlan

FOLLOW_POLL_S = 0.25  # a followed kept log is looked at this often for new lines


class JobLogsHandler(JobsBase):
    path = f"jobs/{KIND}/{NAME}/logs"
    endpoints = {
        "get": Endpoint(
            "Logs of the job: one pod's (default: the head / master), or every pod's interleaved (all=true), live or "
            "from the server's kept copy once the pods are gone (header X-Accel-Log-Source); follow keeps it open",
            streaming="text/plain",
            errors=(400, 403, 404, 429, 502, 503),
            query={
                "pod": "pod name (default: first pod)",
                "all": "true for every pod's lines, each prefixed with its pod ([worker-1])",
                "container": "container name",
                "tail": "last N lines (default 1000)",
                "follow": "true to stream new lines",
            },
        )
    }
    _track_activity = False
    MAX_TAIL = 100_000

    @web.authenticated
    async def get(self, kind: str, name: str) -> None:
        tail = _int_arg(self.get_argument("tail", "1000"), "tail", 0, self.MAX_TAIL)  # bad input first
        follow = self.get_argument("follow", "false").lower() in ("1", "true", "yes")
        all_pods = self.get_argument("all", "false").lower() in ("1", "true", "yes")
        pod = self.get_argument("pod", None)
        if all_pods and pod:
            raise ApiError(400, "pod: give one pod or all=true, not both", field="pod")
        if follow:  # a followed log holds a thread and a socket for as long as the client stays
            self.take_stream_slot("followed log streams")
        from ..services import job_logs

        job_kind = parse_kind(kind)
        hub = await self.synced_hub()
        ops = self.accel.jobs_service(hub)
        store = self.accel.kept_store
        loop = asyncio.get_running_loop()
        plan = await loop.run_in_executor(TAIL_THREADS, job_logs.plan, ops, store, job_kind, name, pod, all_pods)
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.set_header("Cache-Control", "no-cache")
        if plan.all_pods and store is not None:
            self.accel.follow_all(plan.uid)  # the keeper keeps every pod of it from now on, whoever made it
        if plan.all_pods and store is not None and (plan.kept or follow or not plan.live):
            self._kept_headers(plan)
            await self._kept_all(ops, store, plan, tail, follow, job_kind, name)
        elif plan.kept and not plan.all_pods:
            self._kept_headers(plan)
            text = await loop.run_in_executor(TAIL_THREADS, _kept_text, store, plan)
            self.finish(_last_lines(text, tail))
        elif plan.all_pods:  # nothing kept on this server: what the live pods hold now, interleaved
            self.set_header("X-Accel-Log-Source", "live")
            if follow:
                raise ApiError(400, "follow: following every pod needs the server to keep logs (kept_logs_job_bytes)")
            text = await loop.run_in_executor(TAIL_THREADS, _live_all, hub.api, ops.namespace, plan, tail)
            self.finish(text)
        else:
            self.set_header("X-Accel-Log-Source", "live")
            await self._live_one(hub, ops.namespace, next(iter(plan.live)), tail, follow)

    def _kept_headers(self, plan: LogPlan) -> None:
        from ..domain.presentation import kept_log_label

        self.set_header("X-Accel-Log-Source", "kept")
        if plan.kept:
            since, truncated = min(k.since for k in plan.kept), any(k.truncated for k in plan.kept)
            self.set_header("X-Accel-Log-Kept-Since", since)
            self.set_header("X-Accel-Log-Truncated", "true" if truncated else "false")
            live = any(k.pod in plan.live for k in plan.kept)
            self.set_header("X-Accel-Log-Label", kept_log_label(since, truncated, pods_live=live))

    async def _kept_all(
        self, ops: Any, store: KeptLogStore, plan: LogPlan, tail: int, follow: bool, kind: Any, name: str
    ) -> None:
        """Every pod's kept lines interleaved; following, the new lines as the keeper writes them, until the job
        has ended and the keeper has nothing more of it (or the client goes)."""
        from ..domain.log_lines import interleave, pod_label

        loop = asyncio.get_running_loop()
        offsets: dict[str, int] = {}  # per pod, the byte of its newer half read up to: each byte is read once

        def read_new() -> list[str]:
            logs = []
            for k in store.pods(plan.uid):
                text, offsets[k.pod] = store.read_since(plan.uid, k.pod, offsets.get(k.pod))
                if text:
                    logs.append((pod_label(name, k.pod), text))
            return list(interleave(logs))

        lines = await loop.run_in_executor(TAIL_THREADS, read_new)
        self.write("".join(line + "\n" for line in lines[-tail:] if tail))
        await self.flush()
        if not follow:
            self.finish()
            return
        self._closed = False
        quiet_since = time.monotonic()
        while not self._closed:
            await asyncio.sleep(FOLLOW_POLL_S)
            lines = await loop.run_in_executor(FOLLOW_THREADS, read_new)
            if lines:
                quiet_since = time.monotonic()
                self.write("".join(line + "\n" for line in lines))
                with contextlib.suppress(Exception):
                    await self.flush()
                continue
            # done: the job ended and no pod of it is being kept any more (a last look after that)
            if time.monotonic() - quiet_since > 1.0 and await loop.run_in_executor(
                FOLLOW_THREADS, self._job_done, ops, kind, name, plan.uid
            ):
                rest = await loop.run_in_executor(FOLLOW_THREADS, read_new)
                self.write("".join(line + "\n" for line in rest))
                break
        with contextlib.suppress(Exception):
            self.finish()

    def _job_done(self, ops: Any, kind: Any, name: str, uid: str) -> bool:
        from ..services.errors import NotFound

        try:
            job = ops.cached(kind, name)
        except NotFound:
            return True
        return ops.ended(job) and not self.accel.keeping(uid)

    async def _live_one(self, hub: Any, namespace: str, pod: str, tail: int, follow: bool) -> None:
        from ..cluster.logs import LogStream
        from ..cluster.writes import WriteError
        from ..services.refusals import log_refusal

        container = self.get_argument("container", None)
        loop = asyncio.get_running_loop()
        threads = FOLLOW_THREADS if follow else TAIL_THREADS
        try:
            stream = await loop.run_in_executor(
                threads,
                lambda: LogStream(
                    hub.api,
                    namespace,
                    pod,
                    container=container,
                    tail_lines=tail,
                    follow=follow,
                    timeout=self.accel.accel_config.request_timeout,
                ),
            )
        except WriteError as exc:
            raise log_refusal(exc, pod) from None
        self._stream = stream
        chunks = stream.chunks()
        try:
            while True:
                chunk = await loop.run_in_executor(threads, next, chunks, None)
                if chunk is None:
                    break
                self.write(chunk)
                await self.flush()  # hand each chunk on at once: memory stays at one chunk per stream
        except Exception:
            pass
        finally:
            stream.close()
        if stream.broken:  # the API server went away: no closing chunk, so the client sees a break, not the log's end
            self.request.connection.close()
        with contextlib.suppress(Exception):
            self.finish()

    def on_connection_close(self) -> None:
        self._closed = True
        stream = getattr(self, "_stream", None)
        if stream is not None:
            stream.close()
        super().on_connection_close()


def _last_lines(text: str, tail: int) -> str:
    lines = text.splitlines()[-tail:] if tail else []
    return "".join(line + "\n" for line in lines)


def _kept_text(store: KeptLogStore | None, plan: LogPlan) -> str:
    from ..domain.log_lines import strip_stamps

    assert store is not None
    return strip_stamps(store.read(plan.uid, plan.kept[0].pod))


def _live_all(api: Any, namespace: str, plan: LogPlan, tail: int) -> str:
    """Every live pod's last `tail` lines, interleaved in time (no kept copy on this server)."""
    from ..cluster.logs import LogStream
    from ..cluster.writes import WriteError
    from ..domain.log_lines import interleave

    logs = []
    for pod, label in plan.live.items():
        try:
            stream = LogStream(api, namespace, pod, tail_lines=tail, timestamps=True)
            logs.append((label, b"".join(stream.chunks()).decode("utf-8", "replace")))
        except WriteError:
            continue  # a pod that went meanwhile: the others still answer
    return "".join(line + "\n" for line in list(interleave(logs))[-tail:] if tail)

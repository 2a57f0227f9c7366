"""JobMonitor: one job's status, reason, pods and log tail, until the job ends or the widget closes."""

from __future__ import annotations

import html
import threading
from typing import Any

import ipywidgets as w

from .. import kinds as job_kinds
from ..client import AccelClient, AccelError
from ..display import blocks, to_text
from .live import LiveBox, error_html, model_html
from .streams import POLL_SECONDS, LogFollower

LOG_TAIL = 40
USE_SECONDS = 30.0  # how often a running job's accelerator use is asked again (the server's step)


class JobMonitor(LiveBox):
    """One job: status, reason, pods and the tail of its log, updated until the job ends or the widget closes.

    Status changes come through /stream; the log tail comes from a followed log stream of the job's main pod
    (head / master) while the job runs, so new lines show up without a status change."""

    def __init__(
        self,
        kind: str,
        name: str,
        client: AccelClient | None = None,
        *,
        live: bool = True,
        poll: float = POLL_SECONDS,
        tail: int = LOG_TAIL,
        **kwargs: Any,
    ):
        self.client = client or AccelClient()
        self.kind, self.name, self.tail = kind, name, tail
        self.status_html = w.HTML()
        # a running job's accelerators: use now and a text sparkline of the last half hour (metrics API)
        self.use_html = w.HTML()
        # what the job's code reports (TrainJob trainerStatus); hidden until it reports a percentage
        self.progress = w.IntProgress(value=0, min=0, max=100, layout=w.Layout(display="none", width="100%"))
        self.logs = w.Textarea(
            value="", disabled=True, layout=w.Layout(width="100%", height="12em"), placeholder="(no log output yet)"
        )
        self.delete_button = w.Button(
            description="Delete", icon="trash", button_style="danger", layout=w.Layout(width="auto")
        )
        self.detail: Any = None
        self.ended = threading.Event()
        self._lock = threading.Lock()
        self._live = live
        self._log_follow: LogFollower | None = None
        self._use_stop = threading.Event()
        self._use_thread: threading.Thread | None = None
        super().__init__([self.status_html, self.progress, self.use_html, self.logs, self.delete_button], **kwargs)
        self.delete_button.on_click(lambda _: self.delete())
        self.refresh()
        if live and not self.ended.is_set():
            self._follow(self.client, ("jobs",), poll)

    @property
    def status(self) -> str | None:
        return None if self.detail is None else str(self.detail.job.status)

    @property
    def following_logs(self) -> bool:
        return self._log_follow is not None and self._log_follow.running

    def refresh(self) -> None:
        with self._lock:
            self.updates += 1
            try:
                self.detail = self.client.job(self.kind, self.name)
            except AccelError as exc:
                self.status_html.value = error_html(exc)
                # gone after it was seen: deleted, nothing left to follow. Never seen yet: the server's cache may
                # not have it yet (a job created a moment ago), so keep following; its arrival is pushed.
                if exc.status == 404 and self.detail is not None:
                    self._end()
                return
            self.status_html.value = model_html(self.detail, self.client.kinds())
            job = self.detail.job
            self._show_progress(job.progress)
            status = str(job.status)
            if status == "Running" and job.accelerators:
                self._start_use()
            if self._live and status == "Running":
                if not self.following_logs:
                    self._log_follow = LogFollower(self.client, self.kind, self.name, self.tail, self._set_logs)
                    self._log_follow.start()
                return
            # not running (any more): no stream to keep open; a snapshot of the tail, the final one at the end
            self._stop_log_follow()
            self._show_log_tail()
            if job.display.finished:
                self._end()

    def _show_progress(self, progress: Any) -> None:
        if progress is None or progress.percent is None:
            self.progress.layout.display = "none"
            return
        self.progress.value = progress.percent
        self.progress.description = f"{progress.percent} %"
        self.progress.layout.display = ""

    def _start_use(self) -> None:
        if self._use_thread is None:
            self._use_thread = threading.Thread(target=self._use_loop, daemon=True, name="accel-monitor-use")
            self._use_thread.start()

    def _use_loop(self) -> None:
        while not self._use_stop.is_set() and not self.ended.is_set():
            self.show_use()
            if not self._live:
                return
            self._use_stop.wait(USE_SECONDS)

    def show_use(self) -> None:
        """This job's row of the utilization answer, in words and a text sparkline (or why there is none)."""
        from ..display.format import sparkline

        try:
            answer = self.client.utilization("namespace")
        except AccelError as exc:
            self.use_html.value = error_html(exc)
            return
        mine = next((j for j in answer.jobs if j.kind == self.kind and j.name == self.name), None)
        if not answer.source.available or mine is None:
            self.use_html.value = f"<span style='opacity:0.7'>{html.escape(answer.source.message)}</span>"
            return
        if not mine.devices:
            self.use_html.value = "<span style='opacity:0.7'>No utilization series for its pods.</span>"
            return
        now = "—" if mine.percent is None else f"{mine.percent:.0f} %"
        text = f"Accelerator use: {now} now · {sparkline([v for _t, v in mine.points])} ({mine.devices} device(s)"
        text += ", simulated: CPU use)" if mine.simulated else ")"
        if mine.idle:
            text += f" · {mine.idle}"
        self.use_html.value = f"<span>{html.escape(text)}</span>"

    def _show_log_tail(self) -> None:
        if not (self.detail and self.detail.job.pods):
            return
        try:
            self._set_logs(list(self.client.logs(self.kind, self.name, tail=self.tail)))
        except AccelError as exc:
            if not self.logs.value:
                self.logs.placeholder = f"(no logs yet: {exc.message})"

    def _set_logs(self, lines: list[str]) -> None:
        self.logs.value = "\n".join(lines)

    def _stop_log_follow(self) -> None:
        follower, self._log_follow = self._log_follow, None
        if follower is not None:
            follower.stop()
            follower.join(5)

    def _end(self) -> None:
        self._stop_log_follow()
        self._use_stop.set()
        self.ended.set()
        self.delete_button.disabled = str(getattr(self.detail and self.detail.job, "status", "")) == "Deleting"
        if self._follower is not None:
            self._follower.stop()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job ended (True) or `timeout` passed (False)."""
        return self.ended.wait(timeout)

    def delete(self) -> None:
        try:
            self.client.delete(self.kind, self.name)
        except AccelError as exc:
            self.status_html.value = error_html(exc)
            return
        self.delete_button.disabled = True
        self.refresh()

    def close(self) -> None:
        self._use_stop.set()
        follower, self._log_follow = self._log_follow, None
        if follower is not None:
            follower.stop()
        super().close()

    def _text(self) -> str:
        if self.detail is None:
            return f"{self.kind} {self.name}"
        with job_kinds.shown_with(self.client.kinds()):
            return to_text(blocks(self.detail))

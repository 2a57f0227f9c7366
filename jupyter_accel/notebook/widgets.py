"""ipywidgets 8 front-end: a live accelerator + quota view, a job launcher with a live fit check, a job monitor.

Live updates come from the server's /stream (Server-Sent Events) read by one background thread per widget;
when the stream cannot be opened the thread falls back to a bounded poll. Closing a widget stops its thread.
"""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any, Self

import ipywidgets as w

from .client import JOB_KINDS, TERMINAL, AccelClient, AccelError, validate_request
from .display import Para, blocks, to_html, to_text
from .requests import DEFAULT_GPU_TYPE, job_request

POLL_SECONDS = 5.0  # fallback poll interval when the push stream is unavailable
LOG_TAIL = 40
DEFAULT_QUEUE = "(server default)"
NO_PROFILE = "(none)"


def _html(model: Any) -> str:
    return to_html(blocks(model))


def _error_html(exc: Exception) -> str:
    return to_html([Para(f"⚠ {exc}")])


class _StreamReader:
    """A daemon thread that reads one of the server's streams and opens it again `pause` seconds after it breaks
    or ends, until stop(); stop() closes the stream, which also ends a read that is blocked waiting for data.
    Subclasses say how to open the stream and what to do with it."""

    def __init__(self, name: str, pause: float):
        self.pause = pause
        self._stop = threading.Event()
        self._stream: Any = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> Self:
        self._thread.start()
        return self

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self) -> None:
        self._stop.set()
        stream = self._stream
        if stream is not None:
            stream.close()

    def join(self, timeout: float | None = None) -> None:
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._stream = self._open()
                self._consume(self._stream)
            except Exception:
                pass  # refused, not there yet, gone, or a broken chunk: the thread must live on and try again
            finally:
                stream, self._stream = self._stream, None
                if stream is not None:
                    stream.close()
            if self._stop.wait(self.pause):
                break
            self._between()
        self._stopped()

    def _open(self) -> Any:
        raise NotImplementedError

    def _consume(self, stream: Any) -> None:
        raise NotImplementedError

    def _between(self) -> None:
        """After a broken stream's pause, before it is opened again."""

    def _stopped(self) -> None:
        """Once, when the thread ends."""


class Follower(_StreamReader):
    """Calls `callback()` whenever /stream reports one of `topics` (or `*`), in a daemon thread, until stop().

    Without a stream (older server, proxy that buffers) it calls the callback every `poll` seconds instead."""

    def __init__(
        self, client: AccelClient, topics: Iterable[str], callback: Callable[[], None], poll: float = POLL_SECONDS
    ):
        super().__init__("jupyter-accel-follower", poll)
        self.client = client
        self.topics = set(topics)
        self.callback = callback

    def _open(self) -> Any:
        return self.client.events()

    def _consume(self, stream: Any) -> None:
        for msg in stream:
            if self._stop.is_set():
                return
            topics = set(msg.get("topics") or ())
            # the first event after (re)connecting is "*": refetch, changes may have been missed
            if "*" in topics or topics & self.topics:
                self._fire()

    def _between(self) -> None:
        self._fire()  # the stream ended or is unavailable: poll once, then try the stream again

    def _fire(self) -> None:
        # a failed refresh must not kill the follower; the widget shows its own errors
        with contextlib.suppress(Exception):
            self.callback()


class _LiveBox(w.VBox):
    """A VBox that owns a Follower and stops it on close()."""

    _follower: Follower | None = None
    updates = 0  # refreshes so far (construction, pushes, polls): lets callers see that it is live

    def _follow(self, client: AccelClient, topics: Iterable[str], poll: float) -> None:
        self._follower = Follower(client, topics, self.refresh, poll).start()

    def refresh(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        if self._follower is not None:
            self._follower.stop()
        super().close()

    def _text(self) -> str:
        raise NotImplementedError

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        # where no widget can render (a terminal, a notebook saved without widget state) the text shows what
        # the widget showed when it was displayed, not the widget's trait dump
        data = super()._repr_mimebundle_(**kwargs) or {}
        data["text/plain"] = self._text()
        return data


class AcceleratorView(_LiveBox):
    """Accelerators per model and node, and the quotas of the namespace's queues; updates itself."""

    def __init__(
        self, client: AccelClient | None = None, *, live: bool = True, poll: float = POLL_SECONDS, **kwargs: Any
    ):
        self.client = client or AccelClient()
        self.refresh_button = w.Button(description="Refresh", icon="refresh", layout=w.Layout(width="auto"))
        self.status = w.HTML()
        self.inventory_html = w.HTML()
        self.queues_html = w.HTML()
        self.inventory: Any = None
        self.queues: Any = None
        self.errors: list[AccelError] = []
        self._lock = threading.Lock()
        super().__init__([w.HBox([self.refresh_button, self.status]), self.inventory_html, self.queues_html], **kwargs)
        self.refresh_button.on_click(lambda _: self.refresh())
        self.refresh()
        if live:
            self._follow(self.client, ("inventory", "queues"), poll)

    def refresh(self) -> None:
        with self._lock:
            errors = []
            for attr, fetch, target in (
                ("inventory", self.client.inventory, self.inventory_html),
                ("queues", self.client.queues, self.queues_html),
            ):
                try:
                    model = fetch()
                except AccelError as exc:
                    errors.append(exc)
                    target.value = _error_html(exc)
                    continue
                setattr(self, attr, model)
                target.value = _html(model)
            self.status.value = _error_html(errors[0]) if errors else ""
            self.errors = errors
            self.updates += 1

    def _text(self) -> str:
        shown = [to_text(blocks(m)) for m in (self.inventory, self.queues) if m is not None]
        return "\n\n".join(shown + [f"⚠ {e}" for e in self.errors[:1]])


class JobMonitor(_LiveBox):
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
        super().__init__([self.status_html, self.logs, self.delete_button], **kwargs)
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
                self.status_html.value = _error_html(exc)
                # gone after it was seen: deleted, nothing left to follow. Never seen yet: the server's cache may
                # not have it yet (a job created a moment ago), so keep following; its arrival is pushed.
                if exc.status == 404 and self.detail is not None:
                    self._end()
                return
            self.status_html.value = _html(self.detail)
            job = self.detail.job
            status = str(job.status)
            if self._live and status == "Running":
                if not self.following_logs:
                    self._log_follow = LogFollower(self.client, self.kind, self.name, self.tail, self._set_logs)
                    self._log_follow.start()
                return
            # not running (any more): no stream to keep open; a snapshot of the tail, the final one at the end
            self._stop_log_follow()
            self._show_log_tail()
            if status in TERMINAL:
                self._end()

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
            self.status_html.value = _error_html(exc)
            return
        self.delete_button.disabled = True
        self.refresh()

    def close(self) -> None:
        follower, self._log_follow = self._log_follow, None
        if follower is not None:
            follower.stop()
        super().close()

    def _text(self) -> str:
        return to_text(blocks(self.detail)) if self.detail is not None else f"{self.kind} {self.name}"


class LogFollower(_StreamReader):
    """Follows a job's log in a daemon thread and hands the last `tail` lines to `show` as they come, at most
    every `interval` seconds (a chatty job must not flood the notebook with widget updates). A stream that breaks
    or ends (pod not started yet, pod restarted) is opened again after `retry` seconds until stop()."""

    def __init__(
        self,
        client: AccelClient,
        kind: str,
        name: str,
        tail: int,
        show: Callable[[list[str]], None],
        *,
        interval: float = 0.3,
        retry: float = 3.0,
    ):
        super().__init__("jupyter-accel-logs", retry)
        self.client, self.kind, self.name, self.tail = client, kind, name, tail
        self.show, self.interval = show, interval
        self.lines: deque[str] = deque(maxlen=max(tail, 1))
        self.connections = 0  # streams opened so far
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def _open(self) -> Any:
        stream = self.client.logs(self.kind, self.name, tail=self.tail, follow=True)
        self.connections += 1
        return stream

    def _consume(self, stream: Any) -> None:
        first = True
        for line in stream:
            with self._lock:
                if first:  # a (re)connection starts with the tail again: it replaces what was shown
                    self.lines.clear()
                    first = False
                self.lines.append(line)
                if self._timer is None:
                    self._timer = threading.Timer(self.interval, self._flush)
                    self._timer.daemon = True
                    self._timer.start()

    def _stopped(self) -> None:
        with self._lock:
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()

    def _flush(self) -> None:
        with self._lock:
            self._timer = None
            lines = list(self.lines)
        if not self._stop.is_set():
            with contextlib.suppress(Exception):  # a closed widget must not kill the thread
                self.show(lines)


def _request_id() -> str:
    return uuid.uuid4().hex


class JobLauncher(w.VBox):
    """A form for a JobRequest; the fit check runs as the user edits, Submit launches and shows a JobMonitor."""

    def __init__(self, client: AccelClient | None = None, *, kind: str = "pytorch", script: str = "", **kwargs: Any):
        self.client = client or AccelClient()
        kinds, gpu_types, queues, profiles, self.load_errors = self._options()
        if kind not in kinds:
            kinds = [kind, *kinds]  # asked for explicitly: keep it, the fit check says whether it is served
        style = {"description_width": "8em"}
        self.kind = w.Dropdown(options=kinds, value=kind, description="Kind", style=style)
        self.job_name = w.Text(description="Name", placeholder="(generated)", continuous_update=False, style=style)
        self.workers = w.BoundedIntText(value=1, min=0, max=64, description="Workers", style=style)
        self.gpus = w.BoundedIntText(value=0, min=0, max=64, description="GPUs / worker", style=style)
        gpu_type = DEFAULT_GPU_TYPE if DEFAULT_GPU_TYPE in gpu_types else gpu_types[0]
        self.gpu_type = w.Dropdown(options=gpu_types, value=gpu_type, description="GPU type", style=style)
        self.profile = w.Dropdown(options=[NO_PROFILE, *profiles], value=NO_PROFILE, description="Profile", style=style)
        self.queue = w.Dropdown(options=[DEFAULT_QUEUE, *queues], value=DEFAULT_QUEUE, description="Queue", style=style)
        self.image = w.Text(description="Image", placeholder="(server default)", continuous_update=False, style=style)
        self.cpu = w.Text(description="CPU / worker", placeholder="(default)", continuous_update=False, style=style)
        self.memory = w.Text(
            description="Memory / worker", placeholder="(default)", continuous_update=False, style=style
        )
        self.script = w.Textarea(
            value=script,
            description="Script",
            continuous_update=False,
            style=style,
            layout=w.Layout(width="100%", height="8em"),
        )
        self.fit_html = w.HTML()
        self.submit_button = w.Button(description="Submit", icon="rocket", button_style="primary")
        self.message = w.HTML(_error_html(self.load_errors[0]) if self.load_errors else "")
        self.monitor_box = w.VBox()
        self.fit_result: Any = None
        self.fit_error: AccelError | None = None
        self.monitor: JobMonitor | None = None
        self.submitted: Any = None  # the JobView of the last submit of this form's current content
        # the idempotency key of the form's current content: a second click (or a retry after a lost answer)
        # finds the job the first one made; any edit makes a new job, with a new key
        self.client_request_id = _request_id()
        self.fields = (
            self.kind,
            self.job_name,
            self.workers,
            self.gpus,
            self.gpu_type,
            self.profile,
            self.queue,
            self.image,
            self.cpu,
            self.memory,
            self.script,
        )
        super().__init__(
            [*self.fields, self.fit_html, w.HBox([self.submit_button, self.message]), self.monitor_box], **kwargs
        )
        for field in self.fields:
            field.observe(lambda _change: self._edited(), names="value")
        self.submit_button.on_click(lambda _: self._submit_clicked())
        self.check()

    def _options(self) -> tuple[list[str], list[str], list[str], list[str], list[AccelError]]:
        errors: list[AccelError] = []
        kinds: list[str] = []
        gpu_types: list[str] = []
        queues: list[str] = []
        profiles: list[str] = []
        try:
            kinds = [str(k) for k in self.client.jobs().kinds_served]
        except AccelError as exc:
            errors.append(exc)
        try:
            gpu_types = list(self.client.inventory().accelerator_names)
        except AccelError as exc:
            errors.append(exc)
        try:
            queues = [q.name for q in self.client.queues().queues]
        except AccelError as exc:
            errors.append(exc)
        try:
            profiles = [p.name for p in self.client.profiles().profiles if p.enabled]
        except AccelError as exc:
            errors.append(exc)
        return kinds or list(JOB_KINDS), gpu_types or [DEFAULT_GPU_TYPE], queues, profiles, errors

    def _edited(self) -> None:
        self.client_request_id = _request_id()
        self.submitted = None
        self.submit_button.disabled = False
        self.submit_button.description = "Submit"
        self.check()

    def request(self) -> dict:
        """The JobRequest the form describes, as a dict (with the form's idempotency key)."""
        profile = None if self.profile.value == NO_PROFILE else self.profile.value
        script = self.script.value if self.script.value.strip() else None
        return job_request(
            self.kind.value,
            workers=self.workers.value,
            gpus=0 if profile else self.gpus.value,
            gpu_type=self.gpu_type.value,
            hardware_profile=profile,
            cpu=self.cpu.value.strip(),
            memory=self.memory.value.strip(),
            image=self.image.value.strip(),
            name=self.job_name.value.strip(),
            queue=None if self.queue.value == DEFAULT_QUEUE else self.queue.value,
            script=script,
            client_request_id=self.client_request_id,
        )

    def check(self) -> Any:
        """Run the fit check for the current form; the answer is shown and kept in `fit_result`."""
        try:
            self.fit_result = self.client.fit(validate_request(self.request()))
            self.fit_error = None
            self.fit_html.value = _html(self.fit_result)
        except AccelError as exc:
            self.fit_result, self.fit_error = None, exc
            self.fit_html.value = _error_html(exc)
        return self.fit_result

    def submit(self) -> Any:
        """Launch the job; returns its JobView and shows a JobMonitor under the form. Submitting the same form
        content again finds the same job (the idempotency key); edit the form to launch another."""
        self.submit_button.disabled = True
        try:
            response = self.client.submit(validate_request(self.request()))
        except AccelError:
            self.submit_button.disabled = False
            raise
        job = response.job
        self.submitted = job
        self.submit_button.description = "Submitted"
        same = self.monitor is not None and (self.monitor.kind, self.monitor.name) == (str(job.kind), job.name)
        if not same:
            if self.monitor is not None:
                self.monitor.close()
            self.monitor = JobMonitor(str(job.kind), job.name, client=self.client)
            self.monitor_box.children = (self.monitor,)
        return job

    def _submit_clicked(self) -> None:
        try:
            job = self.submit()
            self.message.value = to_html([Para(f"Submitted {job.kind} {job.name}. Edit the form to launch another.")])
        except AccelError as exc:
            self.message.value = _error_html(exc)

    def close(self) -> None:
        if self.monitor is not None:
            self.monitor.close()
        super().close()

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        data = super()._repr_mimebundle_(**kwargs) or {}
        verdict = to_text(blocks(self.fit_result)) if self.fit_result is not None else str(self.fit_error or "")
        data["text/plain"] = f"Job launcher ({self.kind.value}): {verdict}".rstrip(": ")
        return data

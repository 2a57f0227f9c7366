"""JobLauncher: a form for a job request with a live fit check, and a submit that reports the job it made."""

from __future__ import annotations

import uuid
from typing import Any

import ipywidgets as w

from .. import kinds as job_kinds
from ..client import JOB_KINDS, AccelClient, AccelError, validate_request
from ..display import Para, blocks, to_html, to_text
from ..requests import DEFAULT_GPU_TYPE, job_request, parse_duration
from .live import error_html, model_html
from .monitor import JobMonitor

DEFAULT_QUEUE = "(server default)"
NO_PROFILE = "(none)"


def _request_id() -> str:
    return uuid.uuid4().hex


class JobLauncher(w.VBox):
    """A form for a JobRequest; the fit check runs as the user edits, Submit launches and shows a JobMonitor."""

    def __init__(self, client: AccelClient | None = None, *, kind: str | None = None, script: str = "", **kwargs: Any):
        self.client = client or AccelClient()
        kinds, gpu_types, queues, profiles, self.load_errors = self._options()
        if kind is None:  # the server's default kind, else the first it serves
            try:
                kind = self.client.default_kind()
            except AccelError:
                kind = kinds[0]
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
        self.max_run = w.Text(
            description="Max run time",
            placeholder="(server default) e.g. 2h, 90m",
            continuous_update=False,
            style=style,
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
        self.message = w.HTML(error_html(self.load_errors[0]) if self.load_errors else "")
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
            self.max_run,
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
        max_run = self.max_run.value.strip() or None
        if max_run:
            try:
                parse_duration(max_run)
            except ValueError as exc:  # said like the server's field errors, before any round trip
                message = str(exc).replace("max run time", "max_run_seconds", 1)
                raise AccelError(message, None, "max_run_seconds", "Invalid request") from None
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
            max_run=max_run,
            client_request_id=self.client_request_id,
        )

    def check(self) -> Any:
        """Run the fit check for the current form; the answer is shown and kept in `fit_result`."""
        try:
            self.fit_result = self.client.fit(validate_request(self.request()))
            self.fit_error = None
            self.fit_html.value = model_html(self.fit_result)
        except AccelError as exc:
            self.fit_result, self.fit_error = None, exc
            self.fit_html.value = error_html(exc)
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
            with job_kinds.shown_with(self.client.kinds()):
                what = job_kinds.label(job.kind)
            self.message.value = to_html([Para(f"Submitted {what} {job.name}. Edit the form to launch another.")])
        except AccelError as exc:
            self.message.value = error_html(exc)

    def close(self) -> None:
        if self.monitor is not None:
            self.monitor.close()
        super().close()

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        data = super()._repr_mimebundle_(**kwargs) or {}
        verdict = to_text(blocks(self.fit_result)) if self.fit_result is not None else str(self.fit_error or "")
        data["text/plain"] = f"Job launcher ({self.kind.value}): {verdict}".rstrip(": ")
        return data

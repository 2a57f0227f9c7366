"""This workbench: read its Notebook, and change its hardware profile with the user's identity (blocking calls, run
in a thread by the handlers).

The Notebook is read on demand, not cached: one object, read when the user looks. Writes go through the same
writer as jobs, so the reads that follow see them. Restarting the workbench is the platform's job.
"""

from __future__ import annotations

from typing import Any

from ..cluster.writes import Ref, WriteError
from ..domain.accelerators import AcceleratorRegistry
from ..domain.hardware_profiles import apply_profile, list_profiles
from ..domain.workbench import (
    RESTART_WARNING,
    kueue_managed,
    profile_ops,
    workbench_demand,
    workbench_priority_class,
    workbench_queue,
    workbench_view,
)
from ..models.inventory import HardwareProfileView
from ..models.workbench import WorkbenchProfileRequest, WorkbenchProfileResponse, WorkbenchView
from .errors import Invalid, NotFound, NotVisible, ReadOnly
from .launch import fit_demands
from .ports import Caches, Writer
from .refusals import refusal

PATCH_REFUSED = (
    "your account may not change this workbench; an admin must allow patch on notebooks (kubeflow.org) in {ns}"
)


def notebook_ref(namespace: str, name: str) -> Ref:
    return Ref("kubeflow.org", "v1", "notebooks", namespace, name)


class WorkbenchService:
    def __init__(
        self,
        hub: Caches,
        writer: Writer,
        registry: AcceleratorRegistry,
        name: str | None,
        *,
        read_only: bool,
    ) -> None:
        self.hub, self.writer, self.registry, self.name = hub, writer, registry, name
        self.namespace = hub.namespace
        self.read_only = read_only

    def _profiles(self) -> list[HardwareProfileView]:
        return list_profiles(
            self.hub.items("hardwareprofiles"), self.hub.items("acceleratorprofiles"), registry=self.registry
        )

    def _read(self) -> tuple[dict[str, Any] | None, str | None]:
        """The Notebook, or why it could not be read."""
        if self.name is None:
            return None, None
        try:
            return self.writer.get(notebook_ref(self.namespace, self.name)), None
        except WriteError as exc:
            if exc.status in (401, 403):  # what to ask for, not the API server's sentence
                return None, f"an admin must allow get on notebooks (kubeflow.org) in {self.namespace}"
            raise refusal(exc, {"kind": "Notebook"}) from None

    def _namespace(self) -> dict[str, Any] | None:
        """The project's Namespace, where this identity may read it (its Kueue opt-in label)."""
        try:
            return self.writer.get(Ref("", "v1", "namespaces", "", self.namespace))
        except WriteError:
            return None

    def view(self) -> WorkbenchView:
        nb, refused = self._read()
        ns = self._namespace() if nb is not None else None
        return workbench_view(
            self.name, self.namespace, nb, self.registry, namespace_obj=ns, profiles=self._profiles(), refused=refused
        )

    def change_profile(self, request: WorkbenchProfileRequest) -> WorkbenchProfileResponse:
        if self.read_only and not request.dry_run:
            raise ReadOnly("Changing the workbench is switched off on this server (read-only).")
        nb, refused = self._read()
        if nb is None:
            if refused:
                raise NotVisible(refused)
            where = f"Notebook {self.name!r} in {self.namespace}" if self.name else "a workbench (no NB_PREFIX)"
            raise NotFound(f"This server does not run in {where} that can be read.")
        profiles = [p for p in self._profiles() if p.kind == "HardwareProfile"]
        match = [
            p
            for p in profiles
            if p.name == request.hardware_profile
            and (request.hardware_profile_namespace in (None, p.namespace))
            and (not p.visible_in or "workbench" in p.visible_in)
        ]
        if len(match) != 1:
            names = ", ".join(sorted({p.name for p in profiles if not p.visible_in or "workbench" in p.visible_in}))
            what = "several hardware profiles are named" if match else "no workbench hardware profile"
            raise Invalid(
                f"hardware_profile: {what} {request.hardware_profile!r}; allowed: {names or 'none'}"
                + (" (give hardware_profile_namespace)" if match else ""),
                field="hardware_profile",
            )
        profile = match[0]
        try:
            placement = apply_profile(profile)
        except ValueError as exc:
            raise Invalid(str(exc), field="hardware_profile") from None
        ns = self._namespace()
        queue = workbench_queue(nb, placement, kueue_managed(ns), request.queue)
        ops = profile_ops(nb, profile, placement, queue)
        priority_class = workbench_priority_class(nb, placement, queue)
        fit = fit_demands(self.hub, self.registry, [workbench_demand(nb, placement)], queue, priority_class)
        ref = notebook_ref(self.namespace, nb["metadata"]["name"])
        try:  # the API server checks permission and schema even for the dry run
            patched = self.writer.json_patch(ref, ops, dry_run=request.dry_run) if ops else nb
        except WriteError as exc:
            if exc.status == 403:
                raise NotVisible(PATCH_REFUSED.format(ns=self.namespace)) from None
            raise refusal(exc, {"kind": "Notebook", "metadata": {"name": ref.name}}) from None
        after = patched if not request.dry_run else nb
        view = workbench_view(self.name, self.namespace, after, self.registry, namespace_obj=ns, profiles=profiles)
        return WorkbenchProfileResponse(
            workbench=view, fit=fit, patch=ops, applied=bool(ops) and not request.dry_run, warning=RESTART_WARNING
        )

"""Wire models of Kueue Workloads: who owns them, where they queue, why they wait, their position."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from .base import Tone, Visibility, Wire


class WorkloadState(StrEnum):
    pending = "pending"  # no quota reserved
    quota_reserved = "quota_reserved"  # reserved, waiting on admission checks
    admitted = "admitted"  # admitted, pods not ready yet
    running = "running"  # PodsReady
    evicted = "evicted"  # evicted, waiting to be requeued
    inactive = "inactive"  # spec.active=false (stopped)
    succeeded = "succeeded"
    failed = "failed"


class WorkloadCondition(Wire):
    type: str
    status: str
    reason: str | None = None
    message: str | None = None
    last_transition_time: str | None = None


class PodSetRequest(Wire):
    name: str
    count: int
    requests: dict[str, float] = Field(default_factory=dict, description="Per pod, base units.")


class PodSetAssignment(Wire):
    name: str
    count: int | None = None
    flavors: dict[str, str] = Field(default_factory=dict, description="resource -> assigned flavor.")
    resource_usage: dict[str, float] = Field(default_factory=dict, description="Whole podset, base units.")


class WorkloadView(Wire):
    name: str
    namespace: str
    uid: str | None = None
    owner_api_version: str | None = None
    owner_kind: str | None = None
    owner_name: str | None = None
    owner_uid: str | None = None
    job_uid: str | None = Field(None, description="Label kueue.x-k8s.io/job-uid.")
    queue_name: str | None = None
    cluster_queue: str | None = Field(None, description="From the admission, else via the LocalQueue.")
    priority_class: str | None = None
    priority_class_kind: str | None = Field(None, description="WorkloadPriorityClass | PriorityClass.")
    priority: int | None = None
    active: bool = True
    state: WorkloadState
    label: str = Field(description="The state as people read it, e.g. 'Pending'; shown as given.")
    tone: Tone = Field(description="The state's tone, agreeing with the job statuses'; shown as given.")
    reason: str | None = Field(None, description="Reason of the condition that decides the state.")
    message: str = Field(description="One plain-language sentence about where the workload stands.")
    position_in_local_queue: int | None = Field(None, description="0-based, as Kueue reports it.")
    position_in_cluster_queue: int | None = Field(None, description="0-based, as Kueue reports it.")
    place: str | None = Field(
        None, description="The local queue position in people's words, e.g. '1st in line'; shown as given."
    )
    pod_sets: list[PodSetRequest] = Field(default_factory=list)
    admission: list[PodSetAssignment] = Field(default_factory=list)
    conditions: list[WorkloadCondition] = Field(default_factory=list)
    requeue_count: int | None = None
    requeue_at: str | None = None
    created: str | None = None


class WorkloadsResponse(Wire):
    workloads: list[WorkloadView] = Field(default_factory=list)
    visibility: Visibility = Field(default_factory=Visibility, description="Whether Workloads could be read.")
    positions_visibility: Visibility = Field(
        default_factory=Visibility, description="Whether the Kueue visibility API answered."
    )

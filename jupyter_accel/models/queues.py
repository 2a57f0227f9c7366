"""Wire models of Kueue queues: LocalQueues, the ClusterQueue quota behind them, cohort borrowing."""

from __future__ import annotations

from typing import Self

from pydantic import Field, model_validator

from .base import Visibility, Wire
from .inventory import TEXT, Taint, Toleration
from .quantities import quantity_texts

_QUOTA_FIGURES = (
    "nominal",
    "borrowing_limit",
    "lending_limit",
    "usage",
    "reserved",
    "borrowed",
    "free",
    "borrowable",
    "available",
    "max_capacity",
)


class ResourceQuota(Wire):
    """One resource of one flavor, in base units (cores, bytes, devices). ClusterQueue-only figures are None
    when the ClusterQueue is not visible."""

    resource: str
    nominal: float | None = Field(None, description="ClusterQueue nominalQuota.")
    borrowing_limit: float | None = Field(None, description="None = unlimited (within the cohort).")
    lending_limit: float | None = Field(None, description="None = all of nominal is lendable.")
    usage: float | None = Field(None, description="Used by admitted workloads (status.flavorsUsage).")
    reserved: float | None = Field(
        None, description="Reserved, incl. workloads waiting on admission checks (status.flavorsReservation)."
    )
    borrowed: float | None = Field(None, description="Amount above nominal (ClusterQueue only).")
    free: float | None = Field(
        None,
        description="Own unused nominal quota available now: max(0, nominal - "
        "reserved), less what cohort members borrowed from it.",
    )
    borrowable: float | None = Field(None, description="Approximate extra available from the cohort now.")
    available: float | None = Field(None, description="free + borrowable: what a new workload could get now.")
    max_capacity: float | None = Field(
        None,
        description="The most this queue can ever hold: nominal + borrowing limit (or the cohort's lendable total).",
    )
    text: dict[str, str] = Field(default_factory=dict, description=TEXT)
    summary: str | None = Field(
        None, description="One sentence of what is used, reserved, nominal and borrowable, e.g. for a bar's label."
    )

    @model_validator(mode="after")
    def _texts(self) -> Self:
        if not self.text:
            self.text = quantity_texts(self.resource, {f: getattr(self, f) for f in _QUOTA_FIGURES})
        return self


class FlavorQuota(Wire):
    name: str
    node_labels: dict[str, str] = Field(default_factory=dict, description="ResourceFlavor nodeLabels, if visible.")
    node_taints: list[Taint] = Field(default_factory=list)
    tolerations: list[Toleration] = Field(default_factory=list)
    accelerator_model: str | None = Field(None, description="GPU model the flavor maps to (from nodeLabels).")
    resources: list[ResourceQuota] = Field(default_factory=list)


class QueueView(Wire):
    name: str
    namespace: str
    cluster_queue: str
    is_default: bool = Field(description="Named `default`: Kueue auto-queues unlabelled jobs here.")
    active: bool | None = Field(None, description="LocalQueue condition Active.")
    status_message: str | None = None
    stop_policy: str | None = None
    pending_workloads: int = 0
    reserving_workloads: int = 0
    admitted_workloads: int = 0
    flavors: list[FlavorQuota] = Field(
        default_factory=list, description="ClusterQueue quota when visible, else the LocalQueue's own usage."
    )
    cluster_queue_visibility: Visibility = Field(default_factory=Visibility)
    cohort: str | None = None
    queueing_strategy: str | None = None
    cluster_queue_active: bool | None = None
    cluster_queue_pending: int | None = None
    cluster_queue_admitted: int | None = None
    borrowing_approximate: bool = Field(False, description="Cohort borrowing figures are estimates.")


class QueuesResponse(Wire):
    queues: list[QueueView] = Field(default_factory=list)
    default_queue: str | None = Field(
        None, description="LocalQueue named `default`, else the one annotated kueue.x-k8s.io/default-queue=true."
    )
    visibility: Visibility = Field(default_factory=Visibility, description="Whether LocalQueues could be read.")

"""Wire models of the accelerator inventory (nodes, models) and of the platform's hardware profiles."""

from __future__ import annotations

from typing import Self

from pydantic import Field, model_validator

from .base import Tone, Visibility, Wire
from .quantities import device_memory, quantity_texts

TEXT = "The figures as people read them (models/quantities.py), by field name; shown as given."
MEMORY_TEXT = "memory_mib as people read it, e.g. '80 GiB'; shown as given."


class Taint(Wire):
    key: str
    value: str | None = None
    effect: str


class Toleration(Wire):
    key: str | None = None
    operator: str | None = Field(None, description="Equal (default) or Exists.")
    value: str | None = None
    effect: str | None = None
    toleration_seconds: int | None = None


class ResourceUse(Wire):
    """One resource of one node, in base units (cores, bytes, devices)."""

    allocatable: float
    allocated: float | None = Field(
        None, description="Sum of requests of bound, non-terminated pods; None when pods are not visible."
    )
    free: float | None = None
    text: dict[str, str] = Field(default_factory=dict, description=TEXT)

    def with_texts(self, resource: str) -> ResourceUse:
        if not self.text:
            self.text = quantity_texts(
                resource, {"allocatable": self.allocatable, "allocated": self.allocated, "free": self.free}
            )
        return self


class AcceleratorOnNode(Wire):
    resource: str = Field(description="Extended resource name, e.g. nvidia.com/gpu or nvidia.com/mig-1g.5gb.")
    vendor: str = Field(description="nvidia | amd | intel | habana | the resource's domain.")
    vendor_name: str = Field(description="Display name from the accelerator registry.")
    model: str = Field(description="Product shown to the user; falls back to the resource name.")
    product_label: str | None = Field(None, description="Raw product label value, when a node label gave one.")
    memory_mib: int | None = Field(None, description="Device memory per device (MIG: per slice).")
    memory_text: str | None = Field(None, description=MEMORY_TEXT)
    mig_profile: str | None = Field(None, description="MIG profile such as 1g.5gb.")
    parent_model: str | None = Field(None, description="For MIG slices: the product of the GPU they are cut from.")
    capacity: int
    allocatable: int
    allocated: int | None = Field(None, description="None when pods are not visible.")
    free: int | None = None

    @model_validator(mode="after")
    def _memory_text(self) -> Self:
        self.memory_text = self.memory_text or device_memory(self.memory_mib)
        return self


class NodeAccelerators(Wire):
    name: str
    ready: bool
    unschedulable: bool
    usable: bool = Field(description="Ready and not cordoned.")
    label: str = Field("Ready", description="The node's state as people read it: Ready, Cordoned, Not ready, ...")
    tone: Tone = Field(Tone.ok, description="The state's tone; shown as given.")
    taints: list[Taint] = Field(default_factory=list)
    accelerators: list[AcceleratorOnNode] = Field(default_factory=list)
    cpu: ResourceUse | None = None
    memory: ResourceUse | None = None

    @model_validator(mode="after")
    def _texts(self) -> Self:
        for resource in ("cpu", "memory"):
            use = getattr(self, resource)
            if use is not None:
                use.with_texts(resource)
        return self


class AcceleratorModelSummary(Wire):
    """One accelerator model across the cluster (a MIG profile of a product is a model of its own)."""

    key: str = Field(description="Stable id: resource|model.")
    resource: str
    vendor: str
    vendor_name: str
    model: str
    memory_mib: int | None = None
    memory_text: str | None = Field(None, description=MEMORY_TEXT)
    mig_profile: str | None = None
    parent_model: str | None = None
    node_count: int
    capacity: int
    allocatable: int
    allocated: int | None = None
    free: int | None = None
    free_on_usable_nodes: int | None = Field(None, description="Free devices on Ready, uncordoned nodes.")
    largest_allocatable_per_node: int = 0
    largest_free_per_node: int | None = None

    @model_validator(mode="after")
    def _memory_text(self) -> Self:
        self.memory_text = self.memory_text or device_memory(self.memory_mib)
        return self


class InventoryResponse(Wire):
    """Per-model totals; the nodes behind them come page by page from GET inventory/nodes (a cluster of 1,000 GPU
    nodes would otherwise send all of them on every refresh)."""

    models: list[AcceleratorModelSummary] = Field(default_factory=list)
    node_count: int = Field(0, description="Nodes with at least one accelerator resource (GET inventory/nodes).")
    accelerator_names: list[str] = Field(default_factory=list, description="Accelerator resource names seen.")
    visibility: Visibility = Field(default_factory=Visibility, description="Whether nodes could be read.")
    pods_visibility: Visibility = Field(
        default_factory=Visibility, description="Whether pods could be read (allocated/free need them)."
    )
    free_source: str | None = Field(
        default=None, description="Where allocated and free come from, in a sentence; none when they are unknown."
    )


class InventoryNodesResponse(Wire):
    """One page of the nodes with accelerators, by name; of one model when `model` is given."""

    model: str | None = Field(None, description="The model key (AcceleratorModelSummary.key) the nodes have.")
    nodes: list[NodeAccelerators] = Field(default_factory=list)
    total: int = Field(0, description="Nodes that match, on all pages.")
    offset: int = 0
    limit: int
    visibility: Visibility = Field(default_factory=Visibility, description="Whether nodes could be read.")
    pods_visibility: Visibility = Field(
        default_factory=Visibility, description="Whether pods could be read (allocated/free need them)."
    )


class ProfileIdentifier(Wire):
    identifier: str = Field(description="Resource name: cpu, memory, nvidia.com/gpu, ...")
    display_name: str
    resource_type: str | None = Field(None, description="Accelerator | CPU | Memory (as the profile says).")
    accelerator: bool = Field(description="True for Accelerator identifiers and registry-known accelerators.")
    min_count: str
    max_count: str | None = None
    default_count: str


class HardwareProfileView(Wire):
    name: str
    namespace: str | None = None
    kind: str = Field(description="HardwareProfile or AcceleratorProfile (legacy).")
    display_name: str
    description: str | None = None
    enabled: bool = True
    visible_in: list[str] = Field(
        default_factory=list, description="opendatahub.io/dashboard-feature-visibility; empty = everywhere."
    )
    identifiers: list[ProfileIdentifier] = Field(default_factory=list)
    accelerator: str | None = Field(None, description="The first accelerator identifier, if any.")
    scheduling_type: str | None = Field(None, description="Queue | Node | None.")
    local_queue_name: str | None = None
    priority_class: str | None = None
    node_selector: dict[str, str] = Field(default_factory=dict)
    tolerations: list[Toleration] = Field(default_factory=list)


class HardwareProfilesResponse(Wire):
    profiles: list[HardwareProfileView] = Field(default_factory=list)
    visibility: Visibility = Field(default_factory=Visibility)

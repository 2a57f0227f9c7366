"""Wire models of the fit check: "fits now", "must queue" or "can never fit", with the numbers behind it."""

from __future__ import annotations

from enum import StrEnum
from typing import Self

from pydantic import Field, model_validator

from .base import Tone, Visibility, Wire
from .inventory import TEXT
from .quantities import quantity_texts, requests_texts

_HEADROOM_FIGURES = (
    "needed",
    "needed_in_flavor",
    "nominal",
    "reserved",
    "free",
    "borrowable",
    "available",
    "max_capacity",
)
REQUESTS_TEXT = "The requests as people read them (models/quantities.py), by resource; shown as given."


class FitVerdict(StrEnum):
    fits_now = "fits_now"
    must_queue = "must_queue"
    never_fits = "never_fits"


class QuotaHeadroom(Wire):
    """Quota for one role's resource in the flavor Kueue would pick, in base units."""

    role: str
    flavor: str
    resource: str
    needed: float = Field(description="What this role adds (count x per-pod request).")
    needed_in_flavor: float = Field(description="Everything this job would hold in the flavor, incl. earlier roles.")
    nominal: float
    reserved: float
    free: float
    borrowable: float
    available: float
    max_capacity: float
    fits_now: bool
    ever_fits: bool
    text: dict[str, str] = Field(default_factory=dict, description=TEXT)

    @model_validator(mode="after")
    def _texts(self) -> Self:
        if not self.text:
            self.text = quantity_texts(self.resource, {f: getattr(self, f) for f in _HEADROOM_FIGURES})
        return self


class RoleFit(Wire):
    role: str
    count: int
    requests: dict[str, float] = Field(default_factory=dict, description="Per pod, base units.")
    requests_text: dict[str, str] = Field(default_factory=dict, description=REQUESTS_TEXT)
    flavors: dict[str, str] = Field(default_factory=dict, description="resource -> flavor Kueue would assign.")
    eligible_nodes: int | None = Field(None, description="Nodes whose labels and taints allow the pod.")
    usable_nodes: int | None = Field(None, description="Eligible nodes that are Ready and not cordoned.")
    placeable_now: int | None = Field(None, description="Pods of this role that free resources can take now.")
    fits_now: bool | None = None
    ever_fits: bool | None = None
    largest_allocatable: dict[str, float] = Field(
        default_factory=dict, description="Per requested resource, the most any eligible node offers when empty."
    )
    largest_free: dict[str, float] | None = None
    problems: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _texts(self) -> Self:
        if not self.requests_text:
            self.requests_text = requests_texts(self.requests)
        return self


class PendingAhead(Wire):
    name: str
    owner_kind: str | None = None
    owner_name: str | None = None
    priority: int | None = None
    position_in_local_queue: int | None = Field(None, description="0-based, as Kueue reports it.")
    place: str | None = Field(None, description="The position in people's words, e.g. '1st in line'; shown as given.")
    requests: dict[str, float] = Field(
        default_factory=dict, description="Whole workload, base units; empty when only the visibility item is known."
    )
    requests_text: dict[str, str] = Field(default_factory=dict, description=REQUESTS_TEXT)

    @model_validator(mode="after")
    def _texts(self) -> Self:
        if not self.requests_text:
            self.requests_text = requests_texts(self.requests)
        return self


class FitResponse(Wire):
    verdict: FitVerdict
    label: str = Field(description="The verdict as people read it, e.g. 'Can never fit'.")
    tone: Tone
    message: str = Field(description="One plain-language verdict sentence.")
    local_queue: str | None = None
    cluster_queue: str | None = None
    quota: list[QuotaHeadroom] = Field(default_factory=list)
    roles: list[RoleFit] = Field(default_factory=list)
    ahead: list[PendingAhead] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="Caveats and the other reasons found.")
    image: str | None = Field(
        default=None,
        description="The image the job's pods will run: the request's, else the server's default for its kind and "
        "accelerator vendor (none for a workbench's own profile change).",
    )
    quota_visibility: Visibility = Field(default_factory=Visibility)
    nodes_visibility: Visibility = Field(default_factory=Visibility)
    approximate: bool = Field(False, description="Borrowing or bin-packing figures are estimates.")

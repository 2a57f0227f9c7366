"""The fit check's structured result: figures as Decimals, reasons as values. Nothing here is worded; words.py
says it in sentences and wire.py makes the wire model from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum

from ...models.fit import FitVerdict


@dataclass(frozen=True)
class QuotaRow:
    """Quota for one role's resource in the flavor Kueue would pick, in base units."""

    role: str
    flavor: str
    resource: str
    needed: Decimal  # what this role adds (count x per-pod request)
    needed_in_flavor: Decimal  # everything this job would hold in the flavor, incl. earlier roles
    nominal: Decimal
    reserved: Decimal
    free: Decimal
    borrowable: Decimal
    available: Decimal
    max_capacity: Decimal

    @property
    def fits_now(self) -> bool:
        return self.needed_in_flavor <= self.available

    @property
    def ever_fits(self) -> bool:
        return self.needed_in_flavor <= self.max_capacity


# -- why a job can never run, or must wait: one value per reason ------------------------------------------------


@dataclass(frozen=True)
class NoQuotaFor:
    cluster_queue: str
    resource: str


@dataclass(frozen=True)
class NoFlavorMatches:
    cluster_queue: str
    resources: tuple[str, ...]
    role: str
    passed_over: tuple[tuple[str, str], ...]  # (flavor, its first mismatch)


@dataclass(frozen=True)
class OverQuotaCeiling:
    cluster_queue: str
    flavor: str
    resource: str
    max_capacity: Decimal
    needed_in_flavor: Decimal


@dataclass(frozen=True)
class PodTooBig:
    role: str
    resource: str
    needed: Decimal
    largest: Decimal  # on any node


@dataclass(frozen=True)
class NoNodeHasAll:
    role: str


@dataclass(frozen=True)
class NotAccepted:
    """Nodes big enough for a pod exist, but none accepts it."""

    role: str
    reasons: tuple[tuple[str, int], ...]  # (placement problem, on how many of those nodes), most common first
    selector: tuple[tuple[str, str], ...] = ()  # the pod's node selector, sorted
    matching: int = 0  # nodes the selector matches, whatever their size


@dataclass(frozen=True)
class TooFewNodes:
    role: str
    placed: int  # pods the matching nodes hold even when empty
    count: int


Problem = NoQuotaFor | NoFlavorMatches | OverQuotaCeiling | PodTooBig | NoNodeHasAll | NotAccepted | TooFewNodes


@dataclass(frozen=True)
class QueueHeld:
    """A queue that admits nothing at the moment, whatever the quota says."""

    kind: str  # LocalQueue | ClusterQueue
    name: str
    policy: str | None = None  # stopPolicy Hold | HoldAndDrain
    inactive: str | None = None  # the Active=False condition's message or reason


# -- per role, per workload ahead, the whole answer -------------------------------------------------------------


@dataclass
class RoleResult:
    role: str
    count: int
    requests: dict[str, Decimal]  # per pod, only what it asks for
    primary: str | None  # the accelerator it asks for, else None
    flavors: dict[str, str] = field(default_factory=dict)  # resource -> flavor Kueue would assign
    eligible_nodes: int | None = None
    usable_nodes: int | None = None
    placeable_now: int | None = None
    fits_now: bool | None = None
    ever_fits: bool | None = None
    largest_allocatable: dict[str, Decimal] = field(default_factory=dict)
    largest_free: dict[str, Decimal] | None = None
    quota_problems: list[Problem] = field(default_factory=list)
    node_problems: list[Problem] = field(default_factory=list)

    @property
    def problems(self) -> list[Problem]:
        return self.quota_problems + self.node_problems


@dataclass(frozen=True)
class Ahead:
    name: str
    owner_kind: str | None
    owner_name: str | None
    priority: int | None
    position: int | None  # Kueue's, 0-based; None for a Workload (only the visibility API knows it)
    requests: dict[str, Decimal]


class QuotaSeen(StrEnum):
    unchecked = "unchecked"  # no queue chosen
    hidden = "hidden"  # the ClusterQueue is not visible to this account
    shown = "shown"


@dataclass
class FitAssessment:
    verdict: FitVerdict
    local_queue: str | None
    cluster_queue: str | None
    quota_seen: QuotaSeen
    flavors_seen: bool  # ResourceFlavors could be read (only asked when quota is shown)
    borrowing: bool  # the ClusterQueue is in a cohort: borrowing figures are estimates
    nodes_seen: bool
    pods_seen: bool
    total: dict[str, Decimal]  # what the whole job asks for
    primary: str | None  # its accelerator, if any
    quota: list[QuotaRow]
    roles: list[RoleResult]
    ahead: list[Ahead]
    held: list[QueueHeld]
    never: list[Problem]  # why it can never run, each once (quota first, then nodes)

    @property
    def quota_short(self) -> list[QuotaRow]:
        return [q for q in self.quota if not q.fits_now]

    @property
    def nodes_short(self) -> list[RoleResult]:
        return [r for r in self.roles if r.fits_now is False]

    @property
    def approximate(self) -> bool:
        return self.borrowing or (self.nodes_seen and len(self.roles) > 1)

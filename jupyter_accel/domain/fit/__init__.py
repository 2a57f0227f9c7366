"""The fit check: before submitting, would this job be admitted now, wait in the queue, or never run?

Two independent gates, as in the cluster: Kueue quota (the ClusterQueue behind the LocalQueue, flavor by flavor in
preference order, with cohort borrowing; quota.py) and node capacity (free devices, labels, taints; nodes.py).
Whatever this identity cannot read is skipped and said so; the verdict then rests on what is visible.

Three steps, kept apart: `assess_fit` computes the structured result once (result.py: Decimal figures, reasons as
values), `fit_words` says it in sentences (words.py), `fit_response` makes the wire model (wire.py).
"""

from __future__ import annotations

from typing import Any

from ...models.fit import FitResponse
from ..accelerators import AcceleratorRegistry
from ..resources import PodDemand
from .assess import FitCluster, assess_fit
from .result import FitAssessment
from .wire import fit_response
from .words import FitWords, fit_words, problem_text


def check_fit(
    demands: list[PodDemand],
    cluster: FitCluster,
    *,
    local_queue: dict[str, Any] | None = None,
    cluster_queue: dict[str, Any] | None = None,
    priority: int = 0,
    registry: AcceleratorRegistry | None = None,
) -> FitResponse:
    """The wire answer for a job made of `demands` (assess_fit's verdict, in words)."""
    return fit_response(
        assess_fit(
            demands,
            cluster,
            local_queue=local_queue,
            cluster_queue=cluster_queue,
            priority=priority,
            registry=registry,
        )
    )


__all__ = [
    "FitAssessment",
    "FitCluster",
    "FitWords",
    "assess_fit",
    "check_fit",
    "fit_response",
    "fit_words",
    "problem_text",
]

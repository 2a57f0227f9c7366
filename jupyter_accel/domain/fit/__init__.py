"""The fit check: before submitting, would this job be admitted now, wait in the queue, or never run?

Two independent gates, as in the cluster: Kueue quota (the ClusterQueue behind the LocalQueue, flavor by flavor in
preference order, with cohort borrowing; quota.py) and node capacity (free devices, labels, taints; nodes.py).
Whatever this identity cannot read is skipped and said so; the verdict then rests on what is visible.

Three steps, kept apart: `assess_fit` computes the structured result once (result.py: Decimal figures, reasons as
values), `fit_words` says it in sentences (words.py), `fit_response` makes the wire model (wire.py).
"""

from __future__ import annotations

from .assess import FitCluster, assess_fit
from .result import FitAssessment
from .wire import fit_response
from .words import FitWords, fit_words, problem_text

__all__ = [
    "FitAssessment",
    "FitCluster",
    "FitWords",
    "assess_fit",
    "fit_response",
    "fit_words",
    "problem_text",
]

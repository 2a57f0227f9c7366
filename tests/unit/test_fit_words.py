"""The fit check's sentences, made from a structured result alone (no cluster objects, no assess step)."""

from __future__ import annotations

from decimal import Decimal as D

from jupyter_accel.domain.fit.result import (
    Ahead,
    FitAssessment,
    NoFlavorMatches,
    NoNodeHasAll,
    NoQuotaFor,
    NotAccepted,
    OverQuotaCeiling,
    PodTooBig,
    QueueHeld,
    QuotaRow,
    QuotaSeen,
    RoleResult,
    TooFewNodes,
)
from jupyter_accel.domain.fit.words import fit_message, fit_notes, fit_words, problem_text
from jupyter_accel.models import FitVerdict, Tone

GPU = "nvidia.com/gpu"


def row(reserved: int, nominal: int = 8, needed: int = 4, max_capacity: int | None = None) -> QuotaRow:
    free = max(0, nominal - reserved)
    return QuotaRow(
        role="worker",
        flavor="h100",
        resource=GPU,
        needed=D(needed),
        needed_in_flavor=D(needed),
        nominal=D(nominal),
        reserved=D(reserved),
        free=D(free),
        borrowable=D(0),
        available=D(free),
        max_capacity=D(nominal if max_capacity is None else max_capacity),
    )


def worker(**kw) -> RoleResult:
    return RoleResult(role="worker", count=2, requests={"cpu": D(8), GPU: D(4)}, primary=GPU, **kw)


def assessment(verdict: FitVerdict, **kw) -> FitAssessment:
    base = {
        "local_queue": "team-a-queue",
        "cluster_queue": "team-a-cq",
        "quota_seen": QuotaSeen.shown,
        "flavors_seen": True,
        "borrowing": False,
        "nodes_seen": True,
        "pods_seen": True,
        "total": {"cpu": D(16), GPU: D(8)},
        "primary": GPU,
        "quota": [],
        "roles": [worker()],
        "ahead": [],
        "held": [],
        "never": [],
    }
    return FitAssessment(verdict=verdict, **{**base, **kw})


def test_each_reason_it_can_never_run_reads_as_one_fragment():
    mem = 64 * 2**30
    assert problem_text(NoQuotaFor("cq", "amd.com/gpu")) == "ClusterQueue cq has no quota for amd.com/gpu"
    assert problem_text(NoFlavorMatches("cq", (GPU,), "worker", (("a100", "x"), ("h100", "y")))) == (
        "no flavor of ClusterQueue cq for nvidia.com/gpu matches the worker pod's node selector and tolerations "
        "(a100: x; h100: y)"
    )
    assert problem_text(OverQuotaCeiling("cq", "h100", "memory", D(mem), D(2 * mem))) == (
        "ClusterQueue cq can hold at most 64Gi memory in flavor h100, the job needs 128Gi"
    )
    assert problem_text(PodTooBig("head", "cpu", D("0.5") * 3, D(1))) == (
        "a head pod needs 1.5 cpu, the largest node has 1"
    )
    assert problem_text(NoNodeHasAll("worker")) == "no node has everything one worker pod needs at once"
    assert problem_text(NotAccepted("worker", (("taint t", 2), ("label l", 1)))) == (
        "no node big enough for a worker pod accepts it (taint t on 2 nodes, label l on 1 node)"
    )
    assert problem_text(NotAccepted("worker", (("label l", 3),), (("a", "1"), ("b", "2")), 1)) == (
        "no node big enough for a worker pod accepts it (label l on 3 nodes; its node selector a=1,b=2 matches 1 node)"
    )
    assert problem_text(TooFewNodes("worker", 1, 3)) == (
        "the nodes that match can hold only 1 of 3 worker pods even when empty"
    )


def test_never_lists_every_reason_once_and_says_nothing_of_visibility():
    a = assessment(
        FitVerdict.never_fits,
        never=[NoQuotaFor("team-a-cq", "amd.com/gpu"), NoNodeHasAll("worker")],
        nodes_seen=False,
        quota_seen=QuotaSeen.hidden,
    )
    assert fit_message(a) == (
        "Can never fit",
        Tone.error,
        "Can never fit: ClusterQueue team-a-cq has no quota for amd.com/gpu; "
        "no node has everything one worker pod needs at once",
    )


def test_must_queue_names_held_queues_the_line_the_quota_and_the_nodes_in_that_order():
    a = assessment(
        FitVerdict.must_queue,
        held=[QueueHeld("LocalQueue", "team-a-queue", policy="Hold"), QueueHeld("ClusterQueue", "cq", inactive="why")],
        ahead=[Ahead("w1", None, None, 0, 0, {}), Ahead("w2", None, None, 0, 1, {})],
        quota=[row(reserved=6)],
        roles=[worker(placeable_now=1, fits_now=False, largest_free={"cpu": D(8), GPU: D(5)})],
    )
    label, tone, message = fit_message(a)
    assert (label, tone) == ("Must queue", Tone.warn)
    assert message == (
        "Must queue: LocalQueue team-a-queue is stopped (Hold); ClusterQueue cq is inactive (why); "
        "queued behind 2 workloads; quota 6/8 nvidia.com/gpu used in flavor h100, 2 available, needs 4; "
        "free nodes can take 1 of 2 worker pods now (largest free: 5 nvidia.com/gpu)"
    )


def test_fits_now_says_what_and_where_and_who_may_go_first():
    a = assessment(FitVerdict.fits_now, quota=[row(reserved=2)], ahead=[Ahead("w1", None, None, 0, 0, {})])
    assert fit_message(a)[2] == (
        "Fits now: 8 nvidia.com/gpu, in flavor h100, quota 2/8 used; 1 workload pending ahead may go first"
    )
    cpu_only = assessment(
        FitVerdict.fits_now, primary=None, total={"cpu": D(2)}, quota=[], quota_seen=QuotaSeen.unchecked
    )
    assert fit_message(cpu_only)[2] == "Fits now"


def test_what_was_out_of_sight_is_said_in_the_sentence_notes_and_visibility():
    a = assessment(FitVerdict.fits_now, quota_seen=QuotaSeen.hidden, nodes_seen=False, pods_seen=False)
    words = fit_words(a)
    assert (words.label, words.tone) == ("Quota fits", Tone.ok)
    assert words.message == (
        "Quota fits: 8 nvidia.com/gpu (quota not visible to your account); "
        "placement is unknown: nodes are not visible to your account"
    )
    assert words.notes == [
        "Quota is not visible to your account; the verdict rests on the nodes only.",
        "Nodes are not visible to your account; free devices were not checked.",
    ]
    assert words.quota_visibility == "ClusterQueue team-a-cq is not visible to your account"
    assert words.nodes_visibility == "nodes are not visible to your account"
    waiting = assessment(FitVerdict.must_queue, quota=[row(reserved=6)], nodes_seen=False, pods_seen=False)
    assert fit_message(waiting)[2].endswith("needs 4 (nodes not visible to your account)")
    pods_hidden = assessment(FitVerdict.fits_now, pods_seen=False, flavors_seen=False, borrowing=True)
    assert fit_notes(pods_hidden) == [
        "ResourceFlavors are not visible to your account: flavor node labels and taints were not checked.",
        "Borrowing from the cohort is an estimate.",
        "Pods are not visible to your account; only node capacity was checked, not free devices.",
    ]
    assert fit_words(pods_hidden).nodes_visibility == "pods are not visible to your account: free devices unknown"
    assert fit_words(assessment(FitVerdict.fits_now, quota_seen=QuotaSeen.unchecked)).quota_visibility == (
        "no queue chosen: quota not checked"
    )

"""How states read, decided once for every front-end (sidebar, magics, widgets): labels, tones, default
sentences, places in line and the actions a state allows. The wire carries the result; no front-end has its own
table. Pure."""

from __future__ import annotations

from ..models.base import Tone
from ..models.fit import FitVerdict
from ..models.info import ClusterReads, ClusterReadsSource, ConnectionState
from ..models.jobs import JobAction, JobDisplay, JobStatus
from ..models.workloads import WorkloadState

# status -> (label, tone, the sentence when no reason is known)
STATUS_LOOK: dict[JobStatus, tuple[str, Tone, str]] = {
    JobStatus.queued: ("Queued", Tone.warn, "Waiting in the queue for quota."),
    JobStatus.admitted: ("Admitted", Tone.info, "Admitted: quota reserved, pods being created."),
    JobStatus.starting: ("Starting", Tone.info, "Pods are starting."),
    JobStatus.running: ("Running", Tone.info, "Running."),
    JobStatus.succeeded: ("Succeeded", Tone.ok, "Finished successfully."),
    JobStatus.failed: ("Failed", Tone.error, "Failed."),
    JobStatus.suspended: ("Suspended", Tone.neutral, "Suspended: holds no quota until resumed."),
    JobStatus.deleting: ("Deleting", Tone.neutral, "Being deleted."),
}
FINISHED = frozenset({JobStatus.succeeded, JobStatus.failed})
WAITING = frozenset({JobStatus.queued, JobStatus.admitted, JobStatus.starting, JobStatus.suspended})  # not running yet
VERDICT_LOOK: dict[FitVerdict, tuple[str, Tone]] = {
    FitVerdict.fits_now: ("Fits now", Tone.ok),
    FitVerdict.must_queue: ("Must queue", Tone.warn),
    FitVerdict.never_fits: ("Can never fit", Tone.error),
}


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, ..."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def place_in_line(position: int | None) -> str | None:
    """People's words for Kueue's 0-based queue position: 0 -> '1st in line'. The wire keeps Kueue's number."""
    return None if position is None else f"{ordinal(position + 1)} in line"


def actions(
    status: JobStatus,
    writable: bool = True,
    *,
    extendable: bool = False,
    stopped_at_limit: bool = False,
    takes_ray_jobs: bool = False,
) -> list[JobAction]:
    """What a user may do to a job in this state: suspend what runs or waits, resume what is suspended, delete
    anything not already going; extend a time limit below the admin's ceiling; send Ray jobs to a running Ray
    cluster. A job Kueue stopped at its limit is not resumed but extended (a resume alone would stop it again)."""
    if not writable or status is JobStatus.deleting:
        return []
    if takes_ray_jobs and status is JobStatus.running:
        return [JobAction.run, *actions(status, writable, extendable=extendable)]
    if status in FINISHED:
        return [JobAction.delete]
    extend = [JobAction.extend] if extendable or stopped_at_limit else []
    if stopped_at_limit:
        return [*extend, JobAction.delete]
    if status is JobStatus.suspended:
        return [JobAction.resume, *extend, JobAction.delete]
    return [JobAction.suspend, *extend, JobAction.delete]


NEVER_LOOK = ("Can never start", Tone.error)  # queued, but asks for more than its queue can ever give


def job_display(
    status: JobStatus,
    reason: str | None,
    position: int | None,
    *,
    writable: bool = True,
    never: bool = False,
    detail: str | None = None,
    eta: str | None = None,
    time_limit: str | None = None,
    extendable: bool = False,
    stopped_at_limit: bool = False,
    warning: str | None = None,
    takes_ray_jobs: bool = False,
) -> JobDisplay:
    """`never`: queued but it can never be admitted as sized (so no place in line is shown); `detail`: Kueue's
    own message."""
    label, tone, default_sentence = STATUS_LOOK[status]
    if never:
        label, tone = NEVER_LOOK
    return JobDisplay(
        label=label,
        tone=tone,
        sentence=reason or default_sentence,
        place=place_in_line(position) if status is JobStatus.queued and not never else None,
        detail=detail,
        eta=eta,
        time_limit=time_limit,
        finished=status in FINISHED,
        stopped_at_limit=stopped_at_limit,
        warning=warning,
        actions=actions(
            status, writable, extendable=extendable, stopped_at_limit=stopped_at_limit, takes_ray_jobs=takes_ray_jobs
        ),
    )


QUOTA_ONLY_LOOK = ("Quota fits", Tone.ok)  # fits the quota; whether a node can take the pods is not known


def verdict_look(verdict: FitVerdict, *, placement_known: bool = True) -> tuple[str, Tone]:
    """`placement_known` False: nodes are not visible, so "fits now" can only be said of the quota."""
    if verdict is FitVerdict.fits_now and not placement_known:
        return QUOTA_ONLY_LOOK
    return VERDICT_LOOK[verdict]


# The other states the front-ends show, worded and toned to agree with the job statuses above (a Workload that
# is admitted reads like a job that is admitted).
WORKLOAD_LOOK: dict[WorkloadState, tuple[str, Tone]] = {
    WorkloadState.pending: ("Pending", Tone.warn),
    WorkloadState.quota_reserved: ("Quota reserved", Tone.info),
    WorkloadState.admitted: ("Admitted", Tone.info),
    WorkloadState.running: ("Running", Tone.info),
    WorkloadState.evicted: ("Evicted", Tone.warn),
    WorkloadState.inactive: ("Stopped", Tone.neutral),
    WorkloadState.succeeded: ("Succeeded", Tone.ok),
    WorkloadState.failed: ("Failed", Tone.error),
}
POD_PHASE_TONE: dict[str, Tone] = {"Running": Tone.info, "Succeeded": Tone.ok, "Failed": Tone.error}
CONNECTION_LOOK: dict[ConnectionState, tuple[str, Tone]] = {
    ConnectionState.not_configured: ("Not connected (Kubernetes: not configured)", Tone.warn),
    ConnectionState.connected: ("Connected", Tone.ok),
    ConnectionState.error: ("Connection error", Tone.error),
}


def workload_look(state: WorkloadState) -> tuple[str, Tone]:
    return WORKLOAD_LOOK[state]


# (ready, cordoned) -> (label, tone): a cordoned node keeps its pods but takes no new ones
NODE_LOOK: dict[tuple[bool, bool], tuple[str, Tone]] = {
    (True, False): ("Ready", Tone.ok),
    (True, True): ("Cordoned", Tone.warn),
    (False, False): ("Not ready", Tone.error),
    (False, True): ("Not ready, cordoned", Tone.error),
}


def node_look(ready: bool, cordoned: bool) -> tuple[str, Tone]:
    return NODE_LOOK[(ready, cordoned)]


def pod_tone(phase: str | None) -> Tone:
    return POD_PHASE_TONE.get(phase or "", Tone.neutral)


def connection_look(state: ConnectionState) -> tuple[str, Tone]:
    return CONNECTION_LOOK[state]


CLUSTER_READS = "nodes, accelerator allocations and Kueue's cluster queues"


def cluster_reads(url: str | None, *, used: bool, refused: str | None = None) -> ClusterReads:
    """Where cluster-wide reads come from, in words: the read service when one is configured and this identity has a
    bearer token to send it, else this server's own watches (`refused`: why a configured one is not used)."""
    if refused:
        return ClusterReads(source=ClusterReadsSource.api_server, message=refused)
    if url and used:
        return ClusterReads(
            source=ClusterReadsSource.read_service,
            url=url,
            message=f"The {CLUSTER_READS} come from the cluster read service at {url}, which shows what this account "
            "may read; this server does not watch them itself.",
        )
    if url:
        return ClusterReads(
            source=ClusterReadsSource.api_server,
            url=url,
            message=f"A cluster read service is configured ({url}), but this identity has no bearer token to send it "
            f"(it signs in with a client certificate), so this server watches the {CLUSTER_READS} itself.",
        )
    return ClusterReads(
        source=ClusterReadsSource.api_server,
        message=f"This server reads the {CLUSTER_READS} that this account may see with its own watches of the "
        "Kubernetes API server.",
    )


def kept_log_label(since: str, truncated: bool, *, pods_live: bool) -> str:
    """The sentence above a log the server kept (api/job_logs.py): since when, whether it lost its oldest lines."""
    where = "Kept by the server" if pods_live else "The pods are gone; kept by the server"
    whole = "its oldest lines were dropped to stay within the bound" if truncated else "complete as kept"
    return f"{where} since {since}; {whole}."

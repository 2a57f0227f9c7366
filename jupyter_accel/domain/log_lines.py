"""A job's log lines from several pods: Kubernetes' timestamped lines (`pods/log?timestamps=true`), split, labelled
per pod and interleaved in time, as torchrun prefixes its ranks (`[rank1]:`). Pure functions over strings."""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator, Sequence

# a line of `pods/log?timestamps=true`: RFC 3339 with nanoseconds, one space, the line as the container wrote it
Stamped = tuple[str, str]  # (timestamp, text)


def split_stamped(line: str) -> Stamped:
    """(timestamp, text) of one timestamped line; a line without a timestamp sorts first and keeps its text."""
    stamp, sep, text = line.partition(" ")
    if sep and len(stamp) >= 20 and stamp[4] == "-" and stamp.endswith("Z"):
        return stamp, text
    return "", line


def strip_stamps(text: str) -> str:
    """The log as the container wrote it: each line without its timestamp."""
    return "".join(split_stamped(line)[1] + "\n" for line in text.splitlines())


def pod_label(job: str, pod: str) -> str:
    """A short name of a job's pod for a line prefix: the pod's name less the job's (`ddp-worker-1` -> `worker-1`;
    a Ray head `rc-head-x7k2p` -> `head-x7k2p`)."""
    return pod[len(job) + 1 :] if pod.startswith(job + "-") and len(pod) > len(job) + 1 else pod


def interleave(logs: Sequence[tuple[str, str]]) -> Iterator[str]:
    """Lines of several pods' timestamped logs [(label, text)] in time order, each as `[label] text`. Each pod's
    own lines keep their order (a merge, not a sort: equal or missing stamps never reorder a pod's lines)."""

    def lines(label: str, text: str) -> Iterable[tuple[str, str]]:
        last = ""
        for line in text.splitlines():
            stamp, body = split_stamped(line)
            last = stamp or last  # an unstamped line stays after the one before it
            yield last, f"[{label}] {body}"

    for _stamp, line in heapq.merge(*(lines(label, text) for label, text in logs), key=lambda item: item[0]):
        yield line

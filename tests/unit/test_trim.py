"""Trimmed cache objects keep every field the domain reads: sidecars' devices, pod-level resources, last exits."""

from __future__ import annotations

from decimal import Decimal

from jupyter_accel.cluster.trim import trim_pod
from jupyter_accel.domain.job_status import pod_reason
from jupyter_accel.domain.resources import pod_requests

GPU = "nvidia.com/gpu"


def test_a_sidecar_holds_its_devices_after_trimming():
    pod = {
        "metadata": {"name": "p", "managedFields": [{"manager": "x"}]},
        "spec": {
            "nodeName": "gpu-1",
            "initContainers": [
                {"name": "setup", "image": "i", "resources": {"requests": {GPU: "1"}}},
                {"name": "proxy", "image": "i", "restartPolicy": "Always", "resources": {"requests": {GPU: "2"}}},
            ],
            "containers": [{"name": "main", "image": "i", "resources": {"requests": {GPU: "4", "cpu": "1"}}}],
            "resources": {"requests": {"cpu": "3"}},
        },
    }
    trimmed = trim_pod(pod)
    assert "managedFields" not in trimmed["metadata"]
    assert pod_requests(trimmed["spec"]) == pod_requests(pod["spec"])
    assert pod_requests(trimmed["spec"])[GPU] == Decimal(6)  # the app's 4 and the sidecar's 2 together
    assert pod_requests(trimmed["spec"])["cpu"] == Decimal(3)  # pod-level resources win for cpu


def test_a_crash_looping_container_keeps_its_last_exit():
    pod = {
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "main"}]},
        "status": {
            "phase": "Running",
            "containerStatuses": [
                {
                    "name": "main",
                    "ready": False,
                    "restartCount": 3,
                    "image": "dropped",
                    "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 40s"}},
                    "lastState": {"terminated": {"exitCode": 3, "reason": "Error"}},
                }
            ],
        },
    }
    trimmed = trim_pod(pod)
    assert "image" not in trimmed["status"]["containerStatuses"][0]
    assert pod_reason(trimmed) == pod_reason(pod)
    assert "code 3" in (pod_reason(trimmed) or "")

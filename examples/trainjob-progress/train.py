"""A TrainJob's training script that reports its progress the Kubeflow Trainer way (Trainer >= 2.2, gate
TrainJobStatus): rank 0 POSTs to the status server whose URL, CA and token file Trainer injects; the controller
writes the numbers to the TrainJob's status.trainerStatus, where jupyter-accel's sidebar, `%accel status` and the
JobMonitor show them. Standard library only, so it runs in any image. Launch it from a notebook, e.g.

    from jupyter_accel.notebook.client import AccelClient
    AccelClient().submit({"kind": "trainjob", "workers": 2, "cpu": "500m", "memory": "1Gi",
                          "script": {"text": open("train.py").read(), "interpreter": "python"}})

STEPS and STEP_SECONDS stand in for a real training loop's.
"""

import json
import os
import ssl
import time
import urllib.request
from datetime import UTC, datetime

STEPS = int(os.environ.get("STEPS", "2"))
STEP_SECONDS = float(os.environ.get("STEP_SECONDS", "12"))


def report(percent: int, remaining: int, **metrics: float) -> None:
    """POST one trainerStatus update; without the status server (an older Trainer, gate off) it prints why."""
    url = os.environ.get("KUBEFLOW_TRAINER_SERVER_URL")
    if not url:
        print("no Trainer status server here (KUBEFLOW_TRAINER_SERVER_URL unset): progress not reported", flush=True)
        return
    body = {
        "trainerStatus": {
            "progressPercentage": percent,
            "estimatedRemainingSeconds": remaining,
            "metrics": [{"name": k, "value": f"{v:g}"} for k, v in metrics.items()],
            "lastUpdatedTime": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
    }
    with open(os.environ["KUBEFLOW_TRAINER_SERVER_TOKEN"]) as f:
        token = f.read().strip()  # a projected token, refreshed by the kubelet: read it each time
    ctx = ssl.create_default_context(cafile=os.environ["KUBEFLOW_TRAINER_SERVER_CA_CERT"])
    request = urllib.request.Request(
        url,
        json.dumps(body).encode(),
        {"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, context=ctx, timeout=10) as answer:
        print(f"progress {percent} % reported ({answer.status})", flush=True)


rank, nodes = int(os.environ.get("PET_NODE_RANK", "0")), int(os.environ.get("PET_NNODES", "1"))
print(f"rank {rank} of {nodes}", flush=True)
loss = 1.0
for step in range(1, STEPS + 1):
    time.sleep(STEP_SECONDS)  # one step of training
    loss /= 2
    if rank == 0:  # one reporter per job
        report(100 * step // STEPS, int((STEPS - step) * STEP_SECONDS), loss=loss)
print(f"rank {rank} done, loss {loss:g}", flush=True)

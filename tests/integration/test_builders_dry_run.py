"""Every builder's output is accepted by the real API server's schema validation (server-side dry run)."""

from __future__ import annotations

import pytest
from cluster_api import NAMESPACE

from jupyter_accel.cluster import writes
from jupyter_accel.domain.builders import build_objects
from jupyter_accel.domain.builders.common import BuildContext
from jupyter_accel.models import JobRequest

pytestmark = pytest.mark.cluster

REQUESTS = [
    {
        "kind": "ray-cluster",
        "name": "dry-ray",
        "workers": 2,
        "accelerators": {"resource": "nvidia.com/gpu", "count": 2},
    },
    {
        "kind": "ray-cluster",
        "name": "dry-ray-gaudi",
        "workers": 1,
        "accelerators": {"resource": "habana.ai/gaudi", "count": 1},
    },
    {
        "kind": "ray-job",
        "name": "dry-rayjob",
        "entrypoint": "python -c 'print(1)'",
        "workers": 1,
        "accelerators": {"resource": "nvidia.com/gpu", "count": 1},
        "runtime_env": {"pip": ["numpy"]},
        "ttl_seconds_after_finished": 60,
    },
    {
        "kind": "ray-job",
        "name": "dry-rayjob-script",
        "script": {"text": "import ray\nprint(ray.__version__)\n"},
        "workers": 1,
    },
    {
        "kind": "pytorch",
        "name": "dry-ddp",
        "command": ["python", "train.py"],
        "workers": 3,
        "accelerators": {"resource": "nvidia.com/gpu", "count": 1},
        "env": {"EPOCHS": "1"},
    },
    {
        "kind": "pytorch",
        "name": "dry-ddp-script",
        "script": {"text": "print('hello from torchrun')\n"},
        "workers": 2,
        "accelerators": {"resource": "amd.com/gpu", "count": 1},
        "priority_class": "high-priority",
    },
    # Trainer v2's CRDs are installed from the pinned module: the schema is the real one.
    {
        "kind": "trainjob",
        "name": "dry-trainjob",
        "command": ["torchrun", "train.py"],
        "workers": 2,
        "accelerators": {"resource": "nvidia.com/gpu", "count": 2},
        "env": {"EPOCHS": "1"},
    },
]


@pytest.mark.parametrize("body", REQUESTS, ids=[r["name"] for r in REQUESTS])
def test_api_server_accepts_built_objects(devcluster, body):
    api = devcluster.api_client("admin")
    ctx = BuildContext(
        namespace=NAMESPACE,
        image="busybox",
        queue="default",
        workbench="/notebook/team-a/wb",
        known_accelerators=["nvidia.com/gpu", "amd.com/gpu", "habana.ai/gaudi"],
    )
    objects = build_objects(JobRequest.model_validate(body), ctx)
    assert objects
    for obj in objects:
        out = writes.create(api, obj, NAMESPACE, dry_run=True)  # raises WriteError with the server's causes
        assert out["metadata"]["name"] == obj["metadata"]["name"]
        assert writes.get(api, writes.Ref.of(obj, NAMESPACE)) is None  # dry run created nothing

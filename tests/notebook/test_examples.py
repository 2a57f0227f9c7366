"""examples/*.ipynb run end to end with nbclient against devcluster, through a real Jupyter server."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.cluster

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.ipynb"))


# what each notebook must have shown, not only run without an error
SHOWS = {
    "01-quickstart": ["Kubernetes: connected", "gpu-h100-0", "Fits now"],
    "02-interactive-ray-cluster": ["Running", "Ray 2.60.0 answers from the head of ray-demo-", "SUM OF SQUARES 285"],
    "03-pytorch-ddp": [": Succeeded", "rank 0: sum of ranks over the pod network = 1"],
    "04-queues-and-quotas": ["Can never fit", "Queued, 1st in line", "Succeeded, tour-"],
    "05-real-project": [
        "[master-0] trained on 20 rows: y = 2.00 x + 1.00",
        "[master-0] checkpoint read back: project-",
    ],
}


# these run their code: on devcluster's real node, as in `make demo`
ON_REAL_NODE = {"02-interactive-ray-cluster", "03-pytorch-ddp", "05-real-project"}


def _text(nb) -> str:
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            parts.append(out.get("text", ""))
            parts.append(out.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


NODE_PARTS = ["kubelet", "containerd", "runc", "cni-plugins", "coredns", "node-image"]


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(p, marks=[pytest.mark.devcluster(needs=NODE_PARTS)] if p.stem in ON_REAL_NODE else [])
        for p in EXAMPLES
    ],
    ids=[p.stem for p in EXAMPLES],
)
def test_example_runs(path, request):
    cluster_server = request.getfixturevalue("real_node_server" if path.stem in ON_REAL_NODE else "cluster_server")
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=360, kernel_name="python3", resources={"metadata": {"path": str(cluster_server.root_dir)}}
    )
    client.execute(env=cluster_server.env())
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    shown = _text(nb)
    missing = [want for want in SHOWS[path.stem] if want not in shown]
    assert not missing, f"{path.name} did not show {missing}:\n{shown[-3000:]}"


def test_every_example_is_run_and_says_what_it_must_show():
    assert [p.name[:2] for p in EXAMPLES] == ["01", "02", "03", "04", "05"]
    assert sorted(SHOWS) == [p.stem for p in EXAMPLES]

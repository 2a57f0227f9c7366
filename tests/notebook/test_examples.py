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
    "02-interactive-ray-cluster": ["Running"],
    "03-pytorch-ddp": [": Succeeded"],
    "04-queues-and-quotas": ["Can never fit", "Queued at position 0", "Succeeded, tour-"],
}


def _text(nb) -> str:
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            parts.append(out.get("text", ""))
            parts.append(out.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(path, cluster_server):
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=240, kernel_name="python3", resources={"metadata": {"path": str(cluster_server.root_dir)}}
    )
    client.execute(env=cluster_server.env())
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    shown = _text(nb)
    missing = [want for want in SHOWS[path.stem] if want not in shown]
    assert not missing, f"{path.name} did not show {missing}:\n{shown[-3000:]}"


def test_there_are_four_examples():
    assert [p.name[:2] for p in EXAMPLES] == ["01", "02", "03", "04"]

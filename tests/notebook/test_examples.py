"""examples/*.ipynb run end to end with nbclient against devcluster, through a real Jupyter server."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.cluster

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.ipynb"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(path, cluster_server):
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=240, kernel_name="python3", resources={"metadata": {"path": str(cluster_server.root_dir)}}
    )
    client.execute(env=cluster_server.env())
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors


def test_there_are_four_examples():
    assert [p.name[:2] for p in EXAMPLES] == ["01", "02", "03", "04"]

"""One sentence per state, in every front-end (issue 16's rule): for each state a job can be left in without
waiting on a real node, /jobs, the job's detail, `%accel jobs` and `%accel status` show the same server-made
sentence, and the same label. The sidebar shows it too: labextension/ui-tests/tests/cluster.spec.ts."""

from __future__ import annotations

import html

import pytest

pytestmark = pytest.mark.cluster

GPU = "nvidia.com/gpu"


def _request(name: str, **fields) -> dict:
    return {"kind": "pytorch", "name": name, "image": "busybox", "command": ["sleep", "600"], **fields}


def _view(client, name: str):
    return next((j for j in client.jobs("namespace").jobs if j.name == name), None)


@pytest.mark.parametrize(
    ("state", "request_fields", "then_suspend", "wanted"),
    [
        # more than the queue can ever hold: 2 x 8 GPUs against 8 nominal + 4 borrowable
        ("can never start", {"workers": 2, "accelerators": {"resource": GPU, "count": 8}}, False, "Can never"),
        # stopped by its user
        ("suspended", {"workers": 1}, True, None),
    ],
)
def test_every_front_end_shows_the_servers_sentence(
    state, request_fields, then_suspend, wanted, cluster_client, cluster_kernel, unique, wait_until
):
    name = unique("same")
    cluster_client.submit(_request(name, **request_fields))
    try:
        if then_suspend:
            wait_until(lambda: _view(cluster_client, name) is not None, timeout=30, what="the job in /jobs")
            cluster_client.suspend("pytorch", name)
            wait_until(
                lambda: (v := _view(cluster_client, name)) and v.status == "Suspended", timeout=60, what="Suspended"
            )
        else:
            wait_until(
                lambda: (v := _view(cluster_client, name)) and wanted in v.display.sentence,
                timeout=60,
                what=f"'{wanted}' in the sentence",
            )
        listed = _view(cluster_client, name)
        sentence, label = listed.display.sentence, listed.display.label
        assert sentence and label, listed.display

        detail = cluster_client.job("pytorch", name)
        assert (detail.job.display.sentence, detail.job.display.label) == (sentence, label), state

        for line in ("%accel jobs --all", f"%accel status {name}"):
            shown = cluster_kernel.run(line)
            assert shown.ok, shown.error
            page = shown.data("text/html")[-1]
            assert html.escape(sentence) in page, (line, sentence, page[-2000:])
            assert html.escape(label) in page, (line, label)
    finally:
        cluster_client.delete("pytorch", name)

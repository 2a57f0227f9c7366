"""The agent tools (jupyter_accel/agents/tools.py) as an agent meets them: the `mcp` client against
jupyter-server-mcp in a running Jupyter server, found through the entry point group `jupyter_server_mcp.tools`.

Each answer is compared with the REST API's answer to the same question (AccelClient), so the tools can only pass
by being the same service: the same jobs, the same "why it waits", the same refusals.
"""

from __future__ import annotations

import contextlib

import pytest
from agent_client import MCP_CONFIG, Agent, mcp_url

from jupyter_accel.agents.tools import READ_TOOLS, WRITE_TOOLS
from jupyter_accel.notebook import AccelClient, AccelError


def _agent(server) -> Agent:
    return Agent(mcp_url(server.runtime_dir))


@pytest.fixture
def unconnected(start_unconnected_server, tmp_path):
    return start_unconnected_server(tmp_path, {"identity": "none"}, MCP_CONFIG)


def test_every_tool_is_offered_and_described(unconnected):
    tools = _agent(unconnected).tools()
    assert set(tools) == set(READ_TOOLS + WRITE_TOOLS)
    for name, tool in tools.items():
        assert tool.description and len(tool.description) > 40, name  # the docstring is what the agent reads
    assert tools["submit_job"].input_schema["required"] == ["request"]
    assert tools["why_pending"].input_schema["required"] == ["kind", "name"]


def test_a_tool_says_what_the_server_says(unconnected):
    """No cluster: the tool's error is the REST API's own refusal, word for word."""
    with pytest.raises(AccelError) as rest:
        AccelClient(unconnected.url, unconnected.token).jobs("mine")
    failed, text = _agent(unconnected).call("list_jobs")
    assert failed and text == str(rest.value)
    assert "not connected" in text.lower()


def test_read_only_server_offers_no_writes(start_unconnected_server, tmp_path):
    agent = _agent(start_unconnected_server(tmp_path, {"identity": "none", "read_only": True}, MCP_CONFIG))
    assert set(agent.tools()) == set(READ_TOOLS)
    failed, text = agent.call("submit_job", request={"kind": "pytorch"})
    assert failed and "submit_job" in text  # unknown to this server: there is nothing to call


def _never_fits(name: str) -> dict:
    """Two workers of 16 GPUs: no node has that many, so Kueue keeps it waiting and says why."""
    return {
        "kind": "pytorch",
        "name": name,
        "workers": 2,
        "image": "busybox",
        "command": ["true"],
        "accelerators": {"resource": "nvidia.com/gpu", "count": 16},
    }


@pytest.mark.cluster
def test_preview_confirm_why_pending_and_control(start_connected_server, tmp_path, unique, wait_until):
    server = start_connected_server(tmp_path, server_config=MCP_CONFIG)
    agent, rest = _agent(server), AccelClient(server.url, server.token)
    name = unique("agent")
    request = _never_fits(name)

    failed, inv = agent.call("list_accelerators")
    assert not failed, inv
    assert inv["data"]["node_count"] == rest.inventory().node_count
    assert "H100" in inv["text"]

    failed, preview = agent.call("submit_job", request=request)
    assert not failed, preview
    assert preview["created"] is False and preview["data"]["verdict"] == rest.fit(request).verdict == "never_fits"
    assert not any(j.name == name for j in rest.jobs("namespace").jobs), "a preview created something"
    failed, text = agent.call("submit_job", request={**request, "workers": 1}, confirmation=preview["confirmation"])
    assert failed and "confirmation" in text  # a code is for the request it previewed, not another
    try:
        failed, made = agent.call("submit_job", request=request, confirmation=preview["confirmation"])
        assert not failed, made
        assert made["data"]["created"] is True and made["data"]["job"]["name"] == name
        failed, again = agent.call("submit_job", request=request, confirmation=preview["confirmation"])
        assert not failed and again["data"]["created"] is False  # a retried confirmation finds the same job

        view = wait_until(
            lambda: (j := next((j for j in rest.jobs("mine").jobs if j.name == name), None)) and j.reason and j,
            timeout=90,
            what=f"{name} waiting with a reason",
        )
        failed, why = agent.call("why_pending", kind="pytorch", name=name)
        assert not failed, why
        listed = next(j for j in rest.jobs("mine").jobs if j.name == name)  # what /jobs says now
        assert why["data"]["waiting"] is True and why["data"]["status"] == listed.status.value
        assert why["data"]["display"] == listed.display.model_dump(mode="json", exclude_none=True)
        assert why["data"]["reason"] == listed.reason and listed.display.sentence in why["text"]
        assert (
            view.status.value == "Queued" and f"{name}: {listed.display.label}." in why["text"]
        )  # the sidebar's label

        failed, suspended = agent.call("suspend_job", kind="pytorch", name=name)
        assert not failed and suspended["data"]["status"] == "Suspended", suspended
        failed, resumed = agent.call("resume_job", kind="pytorch", name=name)
        assert not failed and resumed["data"]["status"] != "Suspended", resumed

        failed, would = agent.call("delete_job", kind="pytorch", name=name)
        assert not failed and would["deleted"] is False and "Nothing was deleted" in would["text"]
        assert rest.job("pytorch", name).job.name == name
        failed, gone = agent.call("delete_job", kind="pytorch", name=name, confirm=True)
        assert not failed and gone["deleted"] is True
        wait_until(lambda: not any(j.name == name for j in rest.jobs("namespace").jobs), timeout=60, what="gone")
    finally:
        with contextlib.suppress(AccelError):
            rest.delete("pytorch", name)


@pytest.mark.cluster
def test_a_refused_write_is_the_servers_refusal(start_connected_server, tmp_path, unique):
    """cluster-reader may read every job but create none: the confirmed submit is refused in the server's words."""
    server = start_connected_server(tmp_path, identity="cluster-reader", server_config=MCP_CONFIG)
    agent, rest = _agent(server), AccelClient(server.url, server.token)
    request = _never_fits(unique("refused"))
    failed, preview = agent.call("submit_job", request=request)
    assert not failed, preview
    failed, text = agent.call("submit_job", request=request, confirmation=preview["confirmation"])
    with pytest.raises(AccelError) as refused:
        rest.submit({"client_request_id": f"mcp-{preview['confirmation']}", **request})
    assert refused.value.status == 403, refused.value
    assert failed and text == str(refused.value)
    assert not any(j.name == request["name"] for j in rest.jobs("namespace").jobs)
    failed, jobs = agent.call("list_jobs", scope="namespace")  # reads still work
    assert not failed and jobs["data"]["scope"] == "namespace"

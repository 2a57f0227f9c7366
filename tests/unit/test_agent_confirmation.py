"""The agent tools' confirmation codes: one per request, stable across key order, useless for another request."""

from jupyter_accel.agents.tools import READ_TOOLS, WRITE_TOOLS, _confirmation, get_tools


def test_code_follows_the_request_not_its_key_order():
    a = {"kind": "pytorch", "workers": 2, "accelerators": {"resource": "nvidia.com/gpu", "count": 1}}
    b = {"accelerators": {"count": 1, "resource": "nvidia.com/gpu"}, "workers": 2, "kind": "pytorch"}
    assert _confirmation(a) == _confirmation(b)
    assert _confirmation(a) != _confirmation({**a, "workers": 3})
    assert _confirmation(a) != _confirmation({**a, "accelerators": {"resource": "nvidia.com/gpu", "count": 2}})


def test_outside_a_server_every_tool_is_named_by_module_path():
    specs = get_tools()  # no ServerApp in this process: not read-only
    assert specs == [f"jupyter_accel.agents.tools:{n}" for n in READ_TOOLS + WRITE_TOOLS]

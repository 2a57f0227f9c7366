"""The magics in a real IPython kernel (jupyter_client) talking to a real Jupyter server (no cluster)."""

from __future__ import annotations

import json

HEAVY = (
    "kubernetes",
    "pydantic",
    "ray",
    "jupyter_server",
    "ipywidgets",
    "jupyter_accel.cluster",
    "jupyter_accel.domain",
    "jupyter_accel.api",
)


def test_load_ext_imports_nothing_heavy(kernel):
    code = (
        "import json, sys\n"
        "%load_ext jupyter_accel\n"
        f"heavy = {HEAVY!r}\n"
        "print(json.dumps(sorted(m for m in sys.modules if m in heavy or m.split('.')[0] in heavy)))"
    )
    result = kernel.run(code)
    assert result.ok, result.error
    assert json.loads(result.stream()) == []
    assert kernel.run("get_ipython().find_line_magic('accel') is not None").data("text/plain") == ["True"]


def test_info_renders_html_and_text(kernel):
    kernel.run("%load_ext jupyter_accel")
    result = kernel.run("%accel info")
    assert result.ok, result.error
    (html,) = result.data("text/html")
    (text,) = result.data("text/plain")
    assert "<table>" in html and "not configured" in html
    assert "Kubernetes: not configured" in text and "<" not in text


def test_usage_errors_show_usage_not_a_traceback(kernel):
    kernel.run("%load_ext jupyter_accel")
    for line, expected in (
        ("%accel", "the following arguments are required: COMMAND"),
        ("%accel gpuz", "invalid choice: 'gpuz'"),
        ("%accel fit --workers 2", "the following arguments are required: --kind"),
        ("%accel fit --kind pytorch --workers two", "argument --workers: invalid int value: 'two'"),
        ("%accel logs", "the following arguments are required: name"),
        ("%accel extend rc soon", "duration: 'soon' is not a duration"),
        ("%accel extend rc", "the following arguments are required: duration"),
        ("%accel fit --kind pytorch --gpu-type amd.com/gpu", "--gpu-type needs --gpus N"),
        ("%accel fit --kind pytorch --env NOVALUE", "expected KEY=VALUE"),
        ('%accel fit --kind "pytorch', "No closing quotation"),
        ("%%accel_job --kind pytorch\n   \n", "the cell is empty"),
        ("%%accel_job --kind tensorflow\nprint(1)", "invalid choice: 'tensorflow'"),
    ):
        result = kernel.run(line)
        assert not result.ok, line
        err = result.stream("stderr")
        assert "UsageError" in err and expected in err, (line, err)
        assert "usage:" in err or "needs" in err or "empty" in err or "KEY=VALUE" in err or "duration" in err
        assert result.error is None, f"{line}: a traceback was sent"


def test_help_is_printed_and_the_cell_succeeds(kernel):
    kernel.run("%load_ext jupyter_accel")
    result = kernel.run("%accel fit --help")
    assert result.ok
    assert "--gpu-type" in result.stream()


def test_field_errors_name_the_field_in_one_line(kernel):
    kernel.run("%load_ext jupyter_accel")
    result = kernel.run("%accel fit --kind pytorch --workers 2 --gpus 1 --gpu-type gpu")
    assert not result.ok
    (trace,) = [result.error["traceback"]]
    text = "\n".join(trace)
    assert "AccelError" in text and "accelerators.resource" in text
    assert "Traceback" not in text and len(trace) == 1


def test_server_errors_are_shown_as_accel_error(kernel):
    kernel.run("%load_ext jupyter_accel")
    for line in (
        "%accel gpus",
        "%accel queues",
        "%accel jobs --all",
        "%accel logs trainer",
        "%accel fit --kind ray-job --workers 1 --entrypoint 'python x.py'",
    ):
        result = kernel.run(line)
        assert not result.ok, line
        text = "\n".join(result.error["traceback"])
        assert "[503" in text and "not connected" in text, (line, text)
        assert "Traceback" not in text


def test_token_is_read_with_getpass_and_checked_by_the_server(kernel):
    kernel.run("%load_ext jupyter_accel")
    kernel.stdin_answers = ["has a space"]
    result = kernel.run("%accel token")
    assert not result.ok
    text = "\n".join(result.error["traceback"])
    assert "400" in text and "token" in text
    assert "has a space" not in text  # the token is never echoed
    assert not kernel.stdin_answers  # it was asked for


def test_client_errors_render_without_traceback_too(kernel):
    result = kernel.run("from jupyter_accel.notebook import AccelClient\nAccelClient().queues()")
    assert not result.ok
    assert result.error["ename"] == "AccelError"
    assert len(result.error["traceback"]) == 1


def test_an_answer_kept_in_a_variable_holds_the_servers_typed_model(kernel):
    """README: `x = %accel info` displays nothing and keeps the answer; `x.model` is the server's pydantic model."""
    kernel.run("%load_ext jupyter_accel")
    result = kernel.run("x = %accel info\nprint(type(x.model).__name__, x.model.connection.state)")
    assert result.ok, result.error
    assert result.stream().split() == ["InfoResponse", "not_configured"]

"""AccelClient against a real Jupyter server running the extension (no cluster: the not-configured state)."""

from __future__ import annotations

import threading
import time

import pytest

from jupyter_accel.notebook import AccelClient, AccelError


@pytest.fixture
def client(jupyter_server) -> AccelClient:
    return AccelClient(jupyter_server.url, jupyter_server.token, timeout=20)


def test_info_parses_into_the_wire_model(client):
    from jupyter_accel import __version__
    from jupyter_accel.models import InfoResponse

    info = client.info()
    assert isinstance(info, InfoResponse)
    assert info.version == __version__
    assert info.connection.state == "not_configured"


def test_error_response_becomes_accel_error(client):
    # without a cluster every cluster-backed endpoint answers 503 with an ErrorResponse
    for call in (client.inventory, client.queues, client.workloads, client.profiles, lambda: client.jobs("mine")):
        with pytest.raises(AccelError) as err:
            call()
        assert err.value.status == 503
        assert "not connected" in err.value.message


def test_server_side_field_error(client):
    with pytest.raises(AccelError) as err:
        client.set_token("two words")
    assert err.value.status == 400
    assert err.value.field == "token"


def test_request_checked_before_the_round_trip(client):
    with pytest.raises(AccelError) as err:
        client.fit({"kind": "pytorch", "workers": 2, "accelerators": {"resource": "gpu", "count": 1}})
    assert err.value.status is None
    assert err.value.field == "accelerators.resource"
    assert "nvidia.com/gpu" in err.value.message  # says what is allowed


def test_bad_kind_and_scope_name_the_field(client):
    with pytest.raises(AccelError) as err:
        client.job("tfjob", "x")
    assert err.value.field == "kind"
    with pytest.raises(AccelError) as err:
        client.jobs("everything")
    assert err.value.field == "scope"


def test_wrong_token_is_refused_without_leaking_it(jupyter_server):
    secret = "not-the-right-token-123"
    with pytest.raises(AccelError) as err:
        AccelClient(jupyter_server.url, secret).info()
    assert err.value.status in (401, 403)
    assert secret not in str(err.value)
    assert secret not in repr(AccelClient(jupyter_server.url, secret))


def test_unreachable_server_is_a_clear_error():
    with pytest.raises(AccelError) as err:
        AccelClient("http://127.0.0.1:9/", "t", timeout=2).info()
    assert err.value.status is None
    assert "Cannot reach" in err.value.message


def test_extension_missing_gives_a_hint(jupyter_server):
    with pytest.raises(AccelError) as err:
        AccelClient(jupyter_server.url + "nonexistent-base/", jupyter_server.token).info()
    assert err.value.status == 404
    assert "server extension" in err.value.message


def test_event_stream_first_event_and_close_from_another_thread(client):
    stream = client.events()
    events = iter(stream)
    assert next(events)["topics"] == ["*"]  # a (re)connected client refetches everything
    done = threading.Event()

    def read_rest() -> None:
        for _ in events:
            pass
        done.set()

    reader = threading.Thread(target=read_rest, daemon=True)
    reader.start()
    time.sleep(0.3)
    assert not done.is_set()  # blocked waiting for the next event (keep-alives come every 15 s)
    stream.close()
    assert done.wait(5), "close() did not wake the reading thread"

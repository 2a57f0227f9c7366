"""`%accel doctor`: the compatibility report as text, from an /info answer (plain models, no server)."""

from __future__ import annotations

from jupyter_accel.models import Capabilities, Compatibility, Connection, ConnectionState, InfoResponse
from jupyter_accel.notebook.display import View, to_text
from jupyter_accel.notebook.display.cluster_views import doctor_blocks


def info(report: Compatibility | None) -> InfoResponse:
    conn = Connection(state=ConnectionState.connected, message="Connected to https://api.example:6443.")
    return InfoResponse(version="1", connection=conn, capabilities=Capabilities(compatibility=report))


def test_doctor_says_what_will_not_work_first_then_what_is_deprecated_and_served():
    report = Compatibility(
        served=["Kueue: kueue.x-k8s.io/v1beta1"],
        deprecated=["Kueue serves only its v1beta1 API"],
        missing=["Ray cluster is not offered: KubeRay is not installed"],
    )
    text = repr(View(info(report), renderer=doctor_blocks))
    assert text.index("What will not work here") < text.index("KubeRay is not installed")
    assert text.index("KubeRay is not installed") < text.index("Deprecated APIs in use")
    assert "• Kueue serves only its v1beta1 API" in text and "Served APIs" in text
    assert "Available" not in text  # an empty list gets no heading


def test_doctor_before_connecting_says_nothing_is_known():
    text = to_text(doctor_blocks(info(None)))
    assert "Not connected: nothing is known of the cluster's stack." in text

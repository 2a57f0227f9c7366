"""AccelConfig: environment-variable defaults (documented in docs/configuration.md) and their validation."""

from __future__ import annotations

import pytest
from traitlets import TraitError

from jupyter_accel.config import AccelConfig

ENV = {
    "JUPYTER_ACCEL_IDENTITY": ("identity", "in-cluster", "in-cluster"),
    "JUPYTER_ACCEL_NAMESPACE": ("namespace", "team-a", "team-a"),
    "JUPYTER_ACCEL_KUBECONFIG": ("kubeconfig", "/tmp/k", "/tmp/k"),
    "JUPYTER_ACCEL_API_SERVER": ("api_server", "https://127.0.0.1:6443", "https://127.0.0.1:6443"),
    "JUPYTER_ACCEL_CA_FILE": ("ca_file", "/tmp/ca.crt", "/tmp/ca.crt"),
    "JUPYTER_ACCEL_SA_DIR": ("service_account_dir", "/tmp/sa", "/tmp/sa"),
    "JUPYTER_ACCEL_FORWARDED_TOKEN_HEADER": ("forwarded_token_header", "X-Forwarded-Access-Token", None),
    "JUPYTER_ACCEL_PROFILES_NAMESPACE": ("profiles_namespace", "redhat-ods-applications", None),
    "JUPYTER_ACCEL_READ_ONLY": ("read_only", "yes", True),
    "JUPYTER_ACCEL_REQUEST_TIMEOUT": ("request_timeout", "2.5", 2.5),
    "JUPYTER_ACCEL_READ_SERVICE_URL": ("read_service_url", "https://rs.accel-system.svc:8443", None),
    "JUPYTER_ACCEL_READ_SERVICE_CA_FILE": ("read_service_ca_file", "/tmp/service-ca.crt", None),
    "JUPYTER_ACCEL_READ_SERVICE_ALLOW_HTTP": ("read_service_allow_http", "true", True),
}


@pytest.mark.parametrize("var", sorted(ENV))
def test_environment_defaults(monkeypatch, var):
    trait, raw, expected = ENV[var]
    monkeypatch.setenv(var, raw)
    assert getattr(AccelConfig(), trait) == (raw if expected is None else expected)


def test_configuration_wins_over_the_environment(monkeypatch):
    monkeypatch.setenv("JUPYTER_ACCEL_READ_ONLY", "true")
    assert AccelConfig(read_only=False).read_only is False


@pytest.mark.parametrize(
    ("var", "raw"),
    [
        ("JUPYTER_ACCEL_IDENTITY", "pod"),
        ("JUPYTER_ACCEL_READ_ONLY", "maybe"),
        ("JUPYTER_ACCEL_REQUEST_TIMEOUT", "0"),
        ("JUPYTER_ACCEL_READ_SERVICE_URL", "rs.accel-system.svc:8443"),
        ("JUPYTER_ACCEL_READ_SERVICE_ALLOW_HTTP", "sometimes"),
    ],
)
def test_bad_environment_values_name_the_variable(monkeypatch, var, raw):
    monkeypatch.setenv(var, raw)
    with pytest.raises(TraitError, match=var):
        getattr(AccelConfig(), ENV[var][0])


def test_no_allowed_namespaces_setting():
    # a workbench works in its own project; a setting that did nothing was removed
    assert "allowed_namespaces" not in AccelConfig.class_trait_names()


@pytest.mark.parametrize(
    ("url", "allow", "refused"),
    [
        ("https://rs.accel-system.svc:8443", False, False),
        ("http://rs.accel-system.svc:8080", False, True),  # a token across the pod network, unencrypted
        ("HTTP://10.0.0.5:8080", False, True),
        ("http://rs.accel-system.svc:8080", True, False),  # the admin allowed it explicitly
        ("http://127.0.0.1:8080", False, False),  # loopback: the token never leaves the machine
        ("http://localhost:8080", False, False),
        ("http://[::1]:8080", False, False),
        ("http://127.example.com:8080", False, True),  # a name that merely starts like loopback
    ],
)
def test_a_plain_http_read_service_is_refused_unless_loopback_or_allowed(url, allow, refused):
    from jupyter_accel.cluster.remote import plain_http_refusal
    from jupyter_accel.domain.presentation import cluster_reads

    why = plain_http_refusal(url, allow)
    assert (why is not None) == refused, why
    if why:
        assert "read_service_allow_http" in why and url in why
        shown = cluster_reads(url, used=False, refused=why)
        assert shown.source == "api-server" and shown.message == why


def test_the_read_service_listens_on_loopback_unless_told():
    from jupyter_accel.readservice.server import parse_args

    assert parse_args([]).address == "127.0.0.1"
    assert parse_args(["--address", "0.0.0.0"]).address == "0.0.0.0"

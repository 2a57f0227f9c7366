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
    ],
)
def test_bad_environment_values_name_the_variable(monkeypatch, var, raw):
    monkeypatch.setenv(var, raw)
    with pytest.raises(TraitError, match=var):
        getattr(AccelConfig(), ENV[var][0])


def test_no_allowed_namespaces_setting():
    # a workbench works in its own project; a setting that did nothing was removed
    assert "allowed_namespaces" not in AccelConfig.class_trait_names()

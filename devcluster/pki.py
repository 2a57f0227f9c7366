"""The dev cluster's PKI, generated per run: one CA, serving certs, client identities, SA signing keys.

Client identities are certificates (CN = user, O = groups), as envtest does it; a static token file maps
bearer tokens to the same users so the extension's token identity mode can be tested too.
"""

from __future__ import annotations

import base64
import datetime
import ipaddress
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

LIFETIME = datetime.timedelta(days=7)
PEM = serialization.Encoding.PEM


@dataclass(frozen=True)
class Identity:
    user: str
    groups: tuple[str, ...]
    namespace: str = "default"


# The real node's name and its address, which lives only inside the node's own network namespace.
NODE_NAME = "devcluster-node"
NODE_IP = "10.89.0.1"
# where pods of the real node reach the API server in-cluster (KUBERNETES_SERVICE_HOST/PORT): a relay on the node
POD_API_PORT = 6443

# Control-plane components and operators run with full rights (as on most clusters' system identities),
# but each under its own name so audit lines and `kubectl get events` tell them apart.
_MASTERS = ("system:masters",)
IDENTITIES = {
    "admin": Identity("admin", _MASTERS),
    "kube-controller-manager": Identity("system:kube-controller-manager", _MASTERS),
    "kube-scheduler": Identity("system:kube-scheduler", _MASTERS),
    "kwok": Identity("system:kwok-controller", _MASTERS),
    "kueue": Identity("system:kueue", _MASTERS),
    "kuberay": Identity("system:kuberay-operator", _MASTERS),
    "training-operator": Identity("system:training-operator", _MASTERS),
    "jobset": Identity("system:jobset-controller", _MASTERS),
    "trainer-controller": Identity("system:kubeflow-trainer", _MASTERS),
    # The real node: its kubelet as a node (Node authorizer + NodeRestriction), its cluster DNS as a reader.
    "kubelet": Identity(f"system:node:{NODE_NAME}", ("system:nodes",)),
    "coredns": Identity("system:coredns", _MASTERS),
    # The notebook user: rights only from data/rbac.yaml (edit-like in team-a, nothing cluster-wide).
    "notebook-user": Identity("notebook-user", ("notebooks",), "team-a"),
    # The privileged second identity: the notebook user's rights plus node / queue / visibility reads.
    "queue-viewer": Identity("queue-viewer", ("notebooks",), "team-a"),
    # A reader of the whole cluster (nodes, every pod, Kueue, the job kinds), with no writes: a workbench account
    # that the shared read service serves allocations to (tests/integration/test_read_service.py, the benchmarks).
    "cluster-reader": Identity("cluster-reader", ("notebooks",), "team-a"),
    # Prometheus, scraping Kueue's metrics endpoint (allowed GET /metrics only, data/rbac.yaml)
    "prometheus": Identity("system:devcluster-prometheus", ()),
}
TOKEN_USERS = ("notebook-user", "queue-viewer", "cluster-reader", "prometheus")


def _name(cn: str, orgs: tuple[str, ...] = ()) -> x509.Name:
    return x509.Name(
        [x509.NameAttribute(NameOID.COMMON_NAME, cn)] + [x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in orgs]
    )


def _usage(ca: bool) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=True,
        key_cert_sign=ca,
        crl_sign=ca,
        content_commitment=False,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        encipher_only=False,
        decipher_only=False,
    )


class CA:
    def __init__(self, cn: str) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        self.cert = (
            x509.CertificateBuilder()
            .subject_name(_name(cn))
            .issuer_name(_name(cn))
            .public_key(self.key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + LIFETIME)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(_usage(ca=True), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(self.key.public_key()), critical=False)
            .sign(self.key, hashes.SHA256())
        )

    def issue(self, cn, *, orgs=(), dns=(), ips=(), server=False, client=False):
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        eku = [ExtendedKeyUsageOID.SERVER_AUTH] * server + [ExtendedKeyUsageOID.CLIENT_AUTH] * client
        b = (
            x509.CertificateBuilder()
            .subject_name(_name(cn, tuple(orgs)))
            .issuer_name(self.cert.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + LIFETIME)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(_usage(ca=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage(eku), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(self.key.public_key()), critical=False)
        )
        if dns or ips:
            names = [x509.DNSName(d) for d in dns] + [x509.IPAddress(ipaddress.ip_address(i)) for i in ips]
            b = b.add_extension(x509.SubjectAlternativeName(names), critical=False)
        return key, b.sign(self.key, hashes.SHA256())


def key_pem(key) -> bytes:
    return key.private_bytes(PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


def cert_pem(cert) -> bytes:
    return cert.public_bytes(PEM)


def write(path: Path, data: bytes, mode: int = 0o600) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode), "wb") as f:
        f.write(data)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def kubeconfig(server: str, ca_pem: bytes, user: str, namespace: str, cred: dict) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": user,
        "clusters": [{"name": "devcluster", "cluster": {"server": server, "certificate-authority-data": _b64(ca_pem)}}],
        "users": [{"name": user, "user": cred}],
        "contexts": [{"name": user, "context": {"cluster": "devcluster", "user": user, "namespace": namespace}}],
    }


def generate(pki: Path, apiserver_url: str) -> None:
    """Write every certificate, key, token file and kubeconfig the cluster needs into `pki`."""
    ca = CA("jupyter-accel-devcluster-ca")
    ca_pem = cert_pem(ca.cert)
    write(pki / "ca.crt", ca_pem, 0o644)
    k, c = ca.issue(
        "kube-apiserver",
        server=True,
        dns=["localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
             "kubernetes.default.svc.cluster.local"],
        ips=["127.0.0.1", "10.0.0.1", NODE_IP],  # NODE_IP: pods' in-cluster clients (POD_API_PORT)
    )  # fmt: skip
    write(pki / "apiserver.crt", cert_pem(c), 0o644)
    write(pki / "apiserver.key", key_pem(k))
    # Serving certs of the loopback-only servers the apiserver dials (kwok's kubelet API, Kueue's and JobSet's
    # webhooks).
    for name in ("kwok", "kueue-webhook", "jobset-webhook"):
        k, c = ca.issue(name, server=True, dns=["localhost"], ips=["127.0.0.1"])
        write(pki / f"{name}.crt", cert_pem(c), 0o644)
        write(pki / f"{name}.key", key_pem(k))
    # Trainer's status server (and webhooks), by the Service name its TrainJobs' pods dial (manifests.py)
    svc = "kubeflow-trainer-controller-manager.kubeflow-system.svc"
    k, c = ca.issue(svc, server=True, dns=[svc, svc + ".cluster.local", "localhost"], ips=["127.0.0.1"])
    write(pki / "trainer-serving.crt", cert_pem(c), 0o644)
    write(pki / "trainer-serving.key", key_pem(k))
    # The real node's kubelet API (reached by the apiserver through the node's egress relay only).
    k, c = ca.issue(NODE_NAME, server=True, dns=[NODE_NAME], ips=[NODE_IP])
    write(pki / "kubelet-serving.crt", cert_pem(c), 0o644)
    write(pki / "kubelet-serving.key", key_pem(k))
    # The apiserver's client identity towards kwok (pods/log), and the aggregator's front-proxy client.
    k, c = ca.issue("kube-apiserver-kubelet-client", orgs=("system:masters",), client=True)
    write(pki / "kubelet-client.crt", cert_pem(c), 0o644)
    write(pki / "kubelet-client.key", key_pem(k))
    front = CA("jupyter-accel-devcluster-front-proxy-ca")
    write(pki / "front-proxy-ca.crt", cert_pem(front.cert), 0o644)
    k, c = front.issue("front-proxy-client", client=True)
    write(pki / "front-proxy-client.crt", cert_pem(c), 0o644)
    write(pki / "front-proxy-client.key", key_pem(k))

    for name, ident in IDENTITIES.items():
        k, c = ca.issue(ident.user, orgs=ident.groups, client=True)
        write(pki / f"{name}.crt", cert_pem(c), 0o644)
        write(pki / f"{name}.key", key_pem(k))
        cred = {"client-certificate-data": _b64(cert_pem(c)), "client-key-data": _b64(key_pem(k))}
        cfg = kubeconfig(apiserver_url, ca_pem, ident.user, ident.namespace, cred)
        write(pki / f"{name}.kubeconfig", json.dumps(cfg, indent=1).encode())

    # Static bearer tokens (token,user,uid,"group1,group2") for the token identity mode.
    lines, tokens = [], {}
    for name in TOKEN_USERS:
        ident, token = IDENTITIES[name], secrets.token_urlsafe(32)
        tokens[name] = token
        lines.append(f'{token},{ident.user},{ident.user},"{",".join(ident.groups)}"')
        cfg = kubeconfig(apiserver_url, ca_pem, ident.user, ident.namespace, {"token": token})
        write(pki / f"{name}-token.kubeconfig", json.dumps(cfg, indent=1).encode())
    write(pki / "tokens.csv", ("\n".join(lines) + "\n").encode())
    write(pki / "prometheus.token", tokens["prometheus"].encode())

    sa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    write(pki / "sa.key", key_pem(sa))
    pub = sa.public_key().public_bytes(PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    write(pki / "sa.pub", pub, 0o644)


def ensure_self_signed(directory: Path, cn: str) -> None:
    """Keep a self-signed pair in a host-wide directory that an upstream binary hard-codes (Kueue's
    /etc/kueue/metrics/certs and /visibility). Shared by every cluster on the machine, so never replaced
    while valid and never deleted at teardown; its content does not matter to trust (see cluster.py)."""
    crt, key_path = directory / "tls.crt", directory / "tls.key"
    if crt.is_file() and key_path.is_file():
        cert = x509.load_pem_x509_certificate(crt.read_bytes())
        if cert.not_valid_after_utc > datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=1):
            return
    ca = CA(cn + "-ca")
    k, c = ca.issue(cn, server=True, dns=["localhost", cn], ips=["127.0.0.1"])
    write(key_path, key_pem(k))
    write(crt, cert_pem(c), 0o644)

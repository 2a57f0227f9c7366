"""Identity and namespace: build one Kubernetes ApiClient from the admin's configuration.

Modes: in-cluster service account, kubeconfig, explicit bearer token (config or set at runtime, memory only), and
the user's own token forwarded by the workbench's auth proxy (only when `forwarded_token_header` is configured).
A token given at runtime wins over a forwarded one, which wins over the configured identity; whichever is in use
is the whole server's identity (one workbench, one user), so the watch caches are rebuilt when it changes.
The environment of workbench images is honoured: HTTPS_PROXY / NO_PROXY (the client's proxy settings) and
REQUESTS_CA_BUNDLE / SSL_CERT_FILE (trusted in addition to the cluster's CA).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import tempfile
import threading
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from kubernetes import client as k8s
from kubernetes import config as k8s_config
from kubernetes.config.config_exception import ConfigException
from kubernetes.config.incluster_config import InClusterConfigLoader

from .._version import __version__
from ..config import AccelConfig
from ..models import Connection, ConnectionState, IdentityMode

log = logging.getLogger(__name__)

NO_CONFIG_MESSAGE = (
    "No Kubernetes configuration found (no kubeconfig, not in a pod). To connect, point KUBECONFIG at your "
    "cluster's kubeconfig (kind, minikube, or OpenShift after `oc login`) and restart JupyterLab, or give a bearer "
    "token with `%accel token`."
)
# how the API server's audit log and metrics name this product's requests (the client's default names only itself)
USER_AGENT = f"jupyter-accel/{__version__}"
UNREACHABLE_HINT = "Check that the cluster is running and that this machine can reach the kubeconfig's server address."


@dataclass
class Resolved:
    mode: IdentityMode
    api_client: k8s.ApiClient | None
    namespace: str | None
    message: str


def _kubeconfig_path(cfg: AccelConfig) -> str | None:
    for candidate in (cfg.kubeconfig, os.environ.get("KUBECONFIG", "").split(os.pathsep)[0]):
        if candidate and Path(candidate).exists():
            return candidate
    default = Path.home() / ".kube" / "config"
    return str(default) if default.exists() else None


def _client_from_token(server: str, token: str, ca_file: str, timeout: float) -> k8s.ApiClient:
    conf = k8s.Configuration()
    conf.host = server
    conf.api_key = {"authorization": token}
    conf.api_key_prefix = {"authorization": "Bearer"}
    if ca_file:
        conf.ssl_ca_cert = ca_file
    return _api_client(conf)


def _api_client(conf: k8s.Configuration) -> k8s.ApiClient:
    api = k8s.ApiClient(_with_environment(conf))
    api.user_agent = USER_AGENT
    return api


_bundle_dir: str | None = None


def _with_environment(conf: k8s.Configuration) -> k8s.Configuration:
    """What workbench images set in the environment: a proxy for HTTPS (HTTPS_PROXY, NO_PROXY; newer
    kubernetes clients read these themselves, older ones do not), and extra trusted CAs (REQUESTS_CA_BUNDLE,
    SSL_CERT_FILE), which the client would otherwise ignore in favour of the one cluster CA file."""
    # one retry policy (retry.py, with backoff): urllib3's own immediate retries would multiply it, and would
    # repeat a slow read three times before it counts as slow
    conf.retries = False
    proxies = urllib.request.getproxies()
    if getattr(conf, "proxy", None) is None:
        scheme = "https" if str(conf.host).startswith("https:") else "http"
        if proxies.get(scheme):
            conf.proxy = proxies[scheme]
    if getattr(conf, "no_proxy", None) is None and proxies.get("no"):
        conf.no_proxy = proxies["no"]
    extra = []
    for var in ("REQUESTS_CA_BUNDLE", "SSL_CERT_FILE"):
        path = os.environ.get(var)
        if path and Path(path).is_file() and path not in extra and path != conf.ssl_ca_cert:
            extra.append(path)
    if conf.verify_ssl and extra:
        conf.ssl_ca_cert = _merged_bundle([p for p in (conf.ssl_ca_cert, *extra) if p])
    return conf


def _merged_bundle(paths: list[str]) -> str:
    """One CA file holding every given bundle (the client takes a single file), in a private directory."""
    global _bundle_dir
    data = b"\n".join(Path(p).read_bytes().strip() for p in paths) + b"\n"
    if _bundle_dir is None:
        _bundle_dir = tempfile.mkdtemp(prefix="jupyter-accel-ca-")
    out = Path(_bundle_dir) / f"ca-{hashlib.sha256(data).hexdigest()[:16]}.pem"
    if not out.exists():
        out.write_bytes(data)
    return str(out)


def resolve(cfg: AccelConfig, token: str | None = None, token_mode: IdentityMode = IdentityMode.token) -> Resolved:
    """Pick the identity: a token given at runtime or forwarded (`token`, of kind `token_mode`), else the
    configuration. Never raises for a missing or broken configuration."""
    mode = cfg.identity
    ns_from_ctx: str | None = None
    try:
        if token or mode == "token":
            ident = token_mode if token else IdentityMode.token
            token = token or cfg.token
            server = cfg.api_server or _server_of_current_config(cfg)
            if not token or not server:
                return Resolved(ident, None, None, "A bearer token needs an API server URL and a token.")
            ca = cfg.ca_file or _ca_of_current_config(cfg) or ""
            api = _client_from_token(server, token, ca, cfg.request_timeout)
        elif mode == "in-cluster" or (mode == "auto" and os.environ.get("KUBERNETES_SERVICE_HOST")):
            conf = k8s.Configuration()
            sa = Path(cfg.service_account_dir)
            InClusterConfigLoader(token_filename=str(sa / "token"), cert_filename=str(sa / "ca.crt")).load_and_set(conf)
            api = _api_client(conf)
            ident = IdentityMode.in_cluster
        elif mode in ("kubeconfig", "auto"):
            path = _kubeconfig_path(cfg)
            if path is None:
                return Resolved(IdentityMode.none, None, None, NO_CONFIG_MESSAGE)
            conf = k8s.Configuration()
            k8s_config.load_kube_config(config_file=path, client_configuration=conf)
            api = _api_client(conf)
            ident = IdentityMode.kubeconfig
            _, ctx = k8s_config.list_kube_config_contexts(config_file=path)
            ns_from_ctx = (ctx or {}).get("context", {}).get("namespace")
        else:
            return Resolved(IdentityMode.none, None, None, "Kubernetes access is switched off by configuration.")
    except (ConfigException, OSError, ValueError) as exc:
        return Resolved(
            IdentityMode(mode) if mode in {m.value for m in IdentityMode} else IdentityMode.none,
            None,
            None,
            f"The Kubernetes configuration could not be loaded: {exc}",
        )
    return Resolved(ident, api, _namespace(cfg, ns_from_ctx), "configured")


def _current_kubeconfig_conf(cfg: AccelConfig) -> k8s.Configuration | None:
    path = _kubeconfig_path(cfg)
    if not path:
        return None
    conf = k8s.Configuration()
    try:
        k8s_config.load_kube_config(config_file=path, client_configuration=conf)
    except ConfigException:
        return None
    return conf


def _server_of_current_config(cfg: AccelConfig) -> str | None:
    if os.environ.get("KUBERNETES_SERVICE_HOST"):
        return f"https://{os.environ['KUBERNETES_SERVICE_HOST']}:{os.environ.get('KUBERNETES_SERVICE_PORT', '443')}"
    conf = _current_kubeconfig_conf(cfg)
    return conf.host if conf else None


def _ca_of_current_config(cfg: AccelConfig) -> str | None:
    sa_ca = Path(cfg.service_account_dir) / "ca.crt"
    if os.environ.get("KUBERNETES_SERVICE_HOST") and sa_ca.exists():
        return str(sa_ca)
    conf = _current_kubeconfig_conf(cfg)
    return conf.ssl_ca_cert if conf else None


def _namespace(cfg: AccelConfig, from_context: str | None) -> str:
    if cfg.namespace:
        return cfg.namespace
    sa_ns = Path(cfg.service_account_dir) / "namespace"
    if sa_ns.exists():
        return sa_ns.read_text().strip()
    return from_context or "default"


class ClusterSession:
    """The server's one connection to Kubernetes; thread-safe to read, swapped whole when the identity changes."""

    def __init__(self, cfg: AccelConfig):
        self.cfg = cfg
        self._lock = threading.Lock()
        self._runtime_token: str | None = None
        self._forwarded_token: str | None = None
        self._resolved = resolve(cfg)
        self._connection = self._initial_connection()

    def _initial_connection(self) -> Connection:
        r = self._resolved
        unset = r.api_client is None and r.mode == IdentityMode.none
        state = ConnectionState.not_configured if unset else ConnectionState.error
        msg = r.message if r.api_client is None else "Not checked yet."
        return Connection(state=state, message=msg, identity=r.mode, namespace=r.namespace)

    @property
    def api_client(self) -> k8s.ApiClient | None:
        return self._resolved.api_client

    @property
    def namespace(self) -> str | None:
        return self._resolved.namespace

    @property
    def connection(self) -> Connection:
        return self._connection

    def set_token(self, token: str | None) -> None:
        """Switch to (or away from) a bearer token given at runtime; the token stays in memory only."""
        with self._lock:
            self._runtime_token = token or None
            self._reresolve()

    def forwarded_differs(self, token: str) -> bool:
        """Whether `token` is not the forwarded token in use (compared in constant time)."""
        current = self._forwarded_token
        return current is None or not hmac.compare_digest(current.encode(), token.encode())

    def set_forwarded_token(self, token: str | None) -> None:
        """Use the user's token forwarded by the auth proxy (memory only) unless a runtime token is set."""
        with self._lock:
            self._forwarded_token = token or None
            self._reresolve()

    def _reresolve(self) -> None:
        if self._runtime_token:
            self._resolved = resolve(self.cfg, self._runtime_token, IdentityMode.token)
        elif self._forwarded_token:
            self._resolved = resolve(self.cfg, self._forwarded_token, IdentityMode.forwarded)
        else:
            self._resolved = resolve(self.cfg)
        self._connection = self._initial_connection()

    def probe(self) -> Connection:
        """Blocking: ask the API server who we are and which version it runs. Run off the event loop."""
        r = self._resolved
        if r.api_client is None:
            return self._connection
        try:
            version = k8s.VersionApi(r.api_client).get_code(_request_timeout=self.cfg.request_timeout)
            user = _whoami(r.api_client, self.cfg.request_timeout)
            conn = Connection(
                state=ConnectionState.connected,
                message=f"Connected to Kubernetes {version.git_version} as {user or 'an unknown user'}, namespace {r.namespace}.",
                identity=r.mode,
                namespace=r.namespace,
                user=user,
                kubernetes_version=version.git_version,
            )
        except k8s.ApiException as exc:
            if not exc.status:  # the client's own "status 0": TLS failed (SSLError), no HTTP answer came
                message = _unreachable_sentence(str(exc.reason or exc).replace("\n", ": ", 1))
            else:
                message = _api_error_sentence(exc)
            conn = Connection(state=ConnectionState.error, identity=r.mode, namespace=r.namespace, message=message)
        except Exception as exc:  # urllib3 connection errors and the like: one readable sentence, no traceback
            conn = Connection(
                state=ConnectionState.error,
                identity=r.mode,
                namespace=r.namespace,
                message=_unreachable_sentence(_short(exc)),
            )
        self._connection = conn
        return conn


def _whoami(api: k8s.ApiClient, timeout: float) -> str | None:
    try:
        review = k8s.AuthenticationV1Api(api).create_self_subject_review(
            k8s.V1SelfSubjectReview(), _request_timeout=timeout
        )
        return review.status.user_info.username if review.status and review.status.user_info else None
    except k8s.ApiException:
        return None


def _api_error_sentence(exc: k8s.ApiException) -> str:
    if exc.status == 401:
        return "The API server refused the credentials (401 Unauthorized)."
    if exc.status == 403:
        return "The API server answered, but this identity may not ask for its version (403)."
    return f"The API server answered {exc.status} {exc.reason}."


def _unreachable_sentence(why: str) -> str:
    return f"The Kubernetes API server cannot be reached: {why.splitlines()[0][:300].rstrip('.')}. {UNREACHABLE_HINT}"


def _short(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:300]

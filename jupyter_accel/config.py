"""Admin-facing settings of the server extension (traitlets), with environment-variable defaults for images."""

from __future__ import annotations

import os

from traitlets import Bool, Dict, Enum, Float, Int, List, TraitError, Unicode, default
from traitlets.config import Configurable


class AccelConfig(Configurable):
    """Configured as `c.AccelConfig.<name>` in jupyter_server_config.py (or -d JSON)."""

    identity = Enum(
        ["auto", "in-cluster", "kubeconfig", "token", "none"],
        default_value="auto",
        help="How to reach Kubernetes: in-cluster service account, a kubeconfig, an explicit bearer token, "
        "or auto (in-cluster when running in a pod, else the kubeconfig when one exists).",
    ).tag(config=True)

    kubeconfig = Unicode("", help="Path of the kubeconfig to use (default: $KUBECONFIG, then ~/.kube/config).").tag(
        config=True
    )

    api_server = Unicode("", help="API server URL for identity=token.").tag(config=True)
    ca_file = Unicode("", help="CA bundle for identity=token.").tag(config=True)
    token = Unicode("", help="Bearer token for identity=token; kept in memory only, never logged.").tag(config=True)

    namespace = Unicode(
        "",
        help="Namespace to work in. Default: $JUPYTER_ACCEL_NAMESPACE, then the service-account namespace file, "
        "then the kubeconfig context's namespace.",
    ).tag(config=True)

    service_account_dir = Unicode(
        help="Directory of the pod's service-account files (token, ca.crt, namespace) for identity in-cluster. "
        "Default: $JUPYTER_ACCEL_SA_DIR, then /var/run/secrets/kubernetes.io/serviceaccount.",
    ).tag(config=True)

    forwarded_token_header = Unicode(
        "",
        help="Name of a request header, set by the workbench's auth proxy, that carries the user's own Kubernetes "
        "token (e.g. X-Forwarded-Access-Token from oauth-proxy --pass-access-token). When set, an authenticated "
        "request carrying it makes that token the server's identity (the user's own RBAC) until another one "
        "arrives; a token given with PUT /identity/token still wins. Empty (default): the header is ignored. "
        "Only set it when every request reaches Jupyter through that proxy.",
    ).tag(config=True)

    profiles_namespace = Unicode(
        "",
        help="Namespace holding HardwareProfiles / AcceleratorProfiles (OpenShift AI keeps them in the "
        "dashboard's namespace, e.g. redhat-ods-applications). Empty: the working namespace.",
    ).tag(config=True)

    accelerators = List(
        Dict(),
        help="Accelerator resource names and display names, shaped like Kubeflow's spawner config: "
        '[{"limitsKey": "nvidia.com/gpu", "uiName": "NVIDIA"}]. Added before the defaults (nvidia.com/gpu, '
        "nvidia.com/mig-*, amd.com/gpu, habana.ai/gaudi, gpu.intel.com/*).",
    ).tag(config=True)

    default_images = Dict(
        {},
        help="Container image per job kind for requests that name none, over each kind's own default "
        '(jupyter_accel/domain/kinds/): {"ray-cluster": "registry.example.com/ray:2.41.0"}; per kind and accelerator '
        'vendor (nvidia, amd, habana, intel) with "KIND@VENDOR": {"pytorch@amd": "registry.example.com/pt:rocm"}, '
        "over the kind's. The kinds' own are CUDA or CPU builds, with none for AMD, Gaudi or Intel devices. An empty "
        "string removes a default, so those requests must name an image.",
    ).tag(config=True)

    default_queue = Unicode(
        "",
        help="LocalQueue a job goes to when its request names none (if it exists in the namespace); default: "
        "Kueue's `default` LocalQueue, else the one annotated as CodeFlare's default.",
    ).tag(config=True)

    default_max_run_seconds = Dict(
        {},
        help="Maximum run time per job kind for requests that set none (Kueue's max-exec-time: Kueue stops the job "
        "after it has been admitted this long, and the user is told), over each kind's own default: interactive "
        "Ray clusters hold their GPUs until stopped, so they get 8 hours; the other kinds have no limit. 0 removes "
        "a kind's limit.",
    ).tag(config=True)

    max_run_seconds_limit = Int(
        0, help="The longest maximum run time a request may ask for (0: no ceiling); longer requests are refused."
    ).tag(config=True)

    idle_warning_seconds = Int(
        900,
        help="Warn when an interactive Ray cluster holds accelerators and has run nothing (no Ray job, task or actor, "
        "read from its Ray dashboard) for this many seconds; 0 turns the check off. Its dashboards are asked every "
        "quarter of this (15 to 60 s), only while someone has the panel or a notebook client open.",
    ).tag(config=True)

    metrics_url = Unicode(
        help="The cluster's metrics API, Prometheus-compatible, for the utilization of the user's accelerators and "
        "their queues' use over time: on OpenShift the Thanos querier (https://thanos-querier.openshift-monitoring"
        ".svc:9091, which checks the user's own token), elsewhere Prometheus (http://prometheus.monitoring.svc:9090). "
        "The device exporters read: NVIDIA DCGM, AMD Device Metrics Exporter, Intel Gaudi. Empty (default): no "
        "utilization, and the charts say so. Default: $JUPYTER_ACCEL_METRICS_URL.",
    ).tag(config=True)

    metrics_ca_file = Unicode("", help="CA bundle of an https metrics_url (default: the system's).").tag(config=True)

    metrics_send_token = Bool(
        True,
        help="Send the bearer token this server uses for Kubernetes (the user's own where it is a token) to the "
        "metrics API, as OpenShift's Thanos querier needs; off for a metrics API that must not see it.",
    ).tag(config=True)

    idle_device_percent = Float(
        5.0, help="A job's accelerators count as idle while every one is at or below this utilization (percent)."
    ).tag(config=True)

    idle_device_seconds = Int(
        1200,
        help="Warn when every accelerator of a running job has been idle (idle_device_percent) this long, read from "
        "the metrics API (metrics_url), for every job kind; 0 turns the warning off.",
    ).tag(config=True)

    read_only = Bool(False, help="Hide and refuse launching and controlling jobs.").tag(config=True)

    request_timeout = Float(10.0, help="Timeout in seconds of one Kubernetes call.").tag(config=True)

    push_debounce = Float(
        0.5,
        help="At most one push to browsers per this many seconds while the caches change; the first change after a "
        "quiet spell is pushed at once (with those that come within 50 ms).",
    ).tag(config=True)

    read_service_url = Unicode(
        "",
        help="URL of the shared read service (python -m jupyter_accel.readservice, examples/read-service/), e.g. "
        "https://accel-read-service.accel-system.svc:8443. When set, this server does not watch nodes, the cluster's "
        "pods and Kueue's cluster-scoped objects itself: the service sends them, and the allocations summed from the "
        "pods, to every workbench, each with its own token and rights. Empty (default): this server watches them.",
    ).tag(config=True)

    read_service_ca_file = Unicode(
        "", help="CA bundle that signed the read service's certificate (https); empty: the system's trusted CAs."
    ).tag(config=True)

    read_service_allow_http = Bool(
        False,
        help="Send users' tokens to a read_service_url that is plain http:// on a host other than loopback. Off "
        "(default): such a URL is refused with a logged reason and /info says so; this server watches the cluster "
        "itself. Default: $JUPYTER_ACCEL_READ_SERVICE_ALLOW_HTTP.",
    ).tag(config=True)

    kept_logs_dir = Unicode(
        help="Where the server keeps its jobs' logs, so they outlive the pods and server restarts: the workbench's "
        "own storage. Default: $JUPYTER_ACCEL_KEPT_LOGS_DIR, then <Jupyter data dir>/accel-kept-logs (in a workbench "
        "the home volume).",
    ).tag(config=True)

    kept_logs_job_bytes = Int(
        32 * 2**20,
        help="Bytes of log kept per job, shared by its pods (each keeps its newest lines; older ones are dropped and "
        "the log is marked truncated). 0 switches keeping logs off: a job's log is then gone with its pods.",
    ).tag(config=True)

    kept_logs_total_bytes = Int(
        1024 * 2**20,
        help="Bytes of kept logs in all; past it the oldest jobs' logs are deleted first.",
    ).tag(config=True)

    @default("kept_logs_dir")
    def _kept_logs_dir_default(self) -> str:
        from jupyter_core.paths import jupyter_data_dir

        return os.environ.get("JUPYTER_ACCEL_KEPT_LOGS_DIR") or os.path.join(jupyter_data_dir(), "accel-kept-logs")

    @default("read_service_allow_http")
    def _read_service_allow_http_default(self) -> bool:
        return _env_bool("JUPYTER_ACCEL_READ_SERVICE_ALLOW_HTTP")

    @default("read_service_url")
    def _read_service_url_default(self) -> str:
        value = os.environ.get("JUPYTER_ACCEL_READ_SERVICE_URL", "").strip()
        if value and not (value.startswith(("http://", "https://")) and len(value.split("://", 1)[1]) > 0):
            raise TraitError(f"JUPYTER_ACCEL_READ_SERVICE_URL={value!r}: must be an http:// or https:// URL")
        return value

    @default("metrics_url")
    def _default_metrics_url(self) -> str:
        return os.environ.get("JUPYTER_ACCEL_METRICS_URL", "").strip()

    @default("read_service_ca_file")
    def _read_service_ca_file_default(self) -> str:
        return os.environ.get("JUPYTER_ACCEL_READ_SERVICE_CA_FILE", "")

    @default("namespace")
    def _namespace_default(self) -> str:
        return os.environ.get("JUPYTER_ACCEL_NAMESPACE", "")

    @default("identity")
    def _identity_default(self) -> str:
        value = os.environ.get("JUPYTER_ACCEL_IDENTITY", "auto")
        allowed = ["auto", "in-cluster", "kubeconfig", "token", "none"]
        if value not in allowed:
            raise TraitError(f"JUPYTER_ACCEL_IDENTITY={value!r}: must be one of {', '.join(allowed)}")
        return value

    @default("api_server")
    def _api_server_default(self) -> str:
        return os.environ.get("JUPYTER_ACCEL_API_SERVER", "")

    @default("ca_file")
    def _ca_file_default(self) -> str:
        return os.environ.get("JUPYTER_ACCEL_CA_FILE", "")

    @default("profiles_namespace")
    def _profiles_namespace_default(self) -> str:
        return os.environ.get("JUPYTER_ACCEL_PROFILES_NAMESPACE", "")

    @default("forwarded_token_header")
    def _forwarded_token_header_default(self) -> str:
        return os.environ.get("JUPYTER_ACCEL_FORWARDED_TOKEN_HEADER", "")

    @default("read_only")
    def _read_only_default(self) -> bool:
        return _env_bool("JUPYTER_ACCEL_READ_ONLY")

    @default("request_timeout")
    def _request_timeout_default(self) -> float:
        value = os.environ.get("JUPYTER_ACCEL_REQUEST_TIMEOUT", "10")
        try:
            seconds = float(value)
        except ValueError:
            seconds = -1.0
        if not seconds > 0:
            raise TraitError(f"JUPYTER_ACCEL_REQUEST_TIMEOUT={value!r}: must be a number of seconds > 0")
        return seconds

    @default("service_account_dir")
    def _service_account_dir_default(self) -> str:
        return os.environ.get("JUPYTER_ACCEL_SA_DIR", "/var/run/secrets/kubernetes.io/serviceaccount")

    @default("kubeconfig")
    def _kubeconfig_default(self) -> str:
        return os.environ.get("JUPYTER_ACCEL_KUBECONFIG", "")


def _env_bool(name: str) -> bool:
    """A true / false environment variable (unset: false); anything else is a TraitError naming it."""
    value = os.environ.get(name, "").strip().lower()
    if value in ("", "0", "false", "no"):
        return False
    if value in ("1", "true", "yes"):
        return True
    raise TraitError(f"{name}={value!r}: must be true or false")

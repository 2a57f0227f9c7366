"""Admin-facing settings of the server extension (traitlets), with environment-variable defaults for images."""

from __future__ import annotations

import os

from traitlets import Bool, Dict, Enum, Float, List, Unicode, default
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

    allowed_namespaces = List(
        Unicode(), help="Namespaces a request may name. Empty: only the configured namespace."
    ).tag(config=True)

    forwarded_token_header = Unicode(
        "",
        help="Name of a header set by the workbench's auth proxy that carries the user's own token. "
        "Empty (default): forwarded tokens are ignored.",
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
        {
            "ray-cluster": "rayproject/ray:2.41.0",
            "ray-job": "rayproject/ray:2.41.0",
            "pytorch": "pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime",
            "trainjob": "pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime",
        },
        help="Default container image per job kind, used when a request names none.",
    ).tag(config=True)

    read_only = Bool(False, help="Hide and refuse launching and controlling jobs.").tag(config=True)

    request_timeout = Float(10.0, help="Timeout in seconds of one Kubernetes call.").tag(config=True)

    push_debounce = Float(0.5, help="Seconds to gather cache changes before pushing them to browsers.").tag(config=True)

    @default("namespace")
    def _namespace_default(self) -> str:
        return os.environ.get("JUPYTER_ACCEL_NAMESPACE", "")

    @default("kubeconfig")
    def _kubeconfig_default(self) -> str:
        return os.environ.get("JUPYTER_ACCEL_KUBECONFIG", "")

"""The API server's refusals of a write, in the service's words (services.errors): a name clash, an invalid spec
with its fields, a refused permission, an admission webhook that is down."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..cluster.writes import WriteError
from ..domain.kinds import KINDS
from ..models import FieldError
from .errors import Conflict, Invalid, NotFound, NotVisible, Unavailable, Upstream


def refusal(exc: WriteError, obj: Mapping[str, Any]) -> Exception:
    """The API server's refusal in the service's words: a name clash, an invalid spec with its fields, a refused
    permission, an admission webhook that is down; anything else as Kubernetes said it."""
    name = (obj.get("metadata") or {}).get("name")
    if exc.status == 409:
        return Conflict(
            f"name: a {obj.get('kind')} named {name!r} already exists in this namespace; "
            "choose another name or delete the old one.",
            field="name",
        )
    if exc.status in (400, 422):
        errors = [FieldError(field=c["field"] or "(object)", message=c["message"]) for c in exc.causes]
        errors = errors or [FieldError(field="(object)", message=exc.message)]
        return Invalid(
            f"The API server refused the {obj.get('kind')}: {exc.message}", field=errors[0].field, errors=errors
        )
    if exc.status == 403:
        return NotVisible(f"not visible to your account: {exc.message}")
    hook = _webhook_not_answering(exc)
    if hook is not None:
        who = (
            "Kueue is not answering"
            if _is_kueue_hook(hook, exc.message)
            else f"The admission webhook {hook} is not answering"
        )
        return Unavailable(
            f"{who}: the API server could not call its admission webhook {hook}, so the {obj.get('kind')} was not "
            "submitted and nothing was created. Try again in a minute; if it persists, ask the cluster admin "
            "whether it runs.",
            reason="Webhook unavailable",
            retry_after=30,
        )
    return Upstream(f"The API server answered {exc.status}: {exc.message}")


_WEBHOOK = re.compile(r'failed calling webhook "([^"]+)"')
# Kueue's own webhooks (kubebuilder names: m/v + the kind it admits); elsewhere its service is named kueue-...
_KUEUE_HOOK_KINDS = "|".join([*(s.cr_kind.lower() for s in KINDS), "workload", "jobset", "job", "pod", "deployment"])
_KUEUE_HOOK = re.compile(rf"^[mv]({_KUEUE_HOOK_KINDS})\.kb\.io$")


def _webhook_not_answering(exc: WriteError) -> str | None:
    """The name of the admission webhook the API server could not call (it answers 500 InternalError)."""
    if exc.status not in (500, 502, 503, 504):
        return None
    m = _WEBHOOK.search(exc.message)
    return m.group(1) if m else None


def _is_kueue_hook(name: str, message: str) -> bool:
    return bool(_KUEUE_HOOK.match(name)) or "kueue" in message.lower()


def log_refusal(exc: WriteError, pod: str) -> Exception:
    """The API server's refusal to open a pod's log: a bad parameter, a pod or container gone, a refused
    permission; anything else as Kubernetes said it."""
    message, reason = f"logs of {pod}: {exc.message}", "Logs unavailable"
    if exc.status == 400:
        return Invalid(message, reason=reason)
    if exc.status == 404:
        return NotFound(message, reason=reason)
    if exc.status == 403:
        return NotVisible(f"not visible to your account: {message}")
    return Upstream(message, reason=reason)


# the RBAC verb the API server checks on services/proxy for each method a proxied request uses
PROXY_VERBS = {"GET": "get", "POST": "create", "PUT": "update", "DELETE": "delete"}


def dashboard_refusal(status: int, cluster: str, method: str = "GET") -> Exception | None:
    """What an answer of the Ray dashboard through the API server's service proxy means; None: it answered."""
    if status in (401, 403):
        what = "The Ray dashboard" if method == "GET" else f"Ray's Jobs API ({method})"
        return NotVisible(
            f"{what} of {cluster} is not visible to your account "
            f"(it needs {PROXY_VERBS.get(method, method.lower())} on services/proxy in this namespace).",
            reason="Not visible to your account",
        )
    if status >= 400:
        return Upstream(
            f"The Ray dashboard of {cluster} did not answer (HTTP {status}); the head pod may not be running yet.",
            reason="Dashboard unavailable",
        )
    return None

"""The refusals a service raises, by meaning. api/base.py maps each class to one HTTP status; nothing here knows
HTTP. Kept free of heavy imports: the server imports it at start."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..models import FieldError


class ServiceError(Exception):
    """A refusal shown to the user as is: `message` is a sentence, `field` the request field it is about."""

    default_reason = "Error"

    def __init__(
        self,
        message: str,
        *,
        reason: str | None = None,
        field: str | None = None,
        errors: list[FieldError] | None = None,
        retry_after: int | None = None,
    ):
        super().__init__(message)
        self.message = message
        self.reason = reason or self.default_reason
        self.field = field
        self.errors = errors or []
        self.retry_after = retry_after


class Invalid(ServiceError):
    """The request itself is wrong; nothing was created."""

    default_reason = "Invalid request"


class NotFound(ServiceError):
    default_reason = "Not found"


class NotVisible(ServiceError):
    """The identity may not see or do this; the message says "not visible to your account"."""

    default_reason = "Forbidden"


class ReadOnly(ServiceError):
    """The admin switched writes off on this server."""

    default_reason = "Read-only"


class Conflict(ServiceError):
    default_reason = "Conflict"


class Unavailable(ServiceError):
    """Something the answer needs is down for now (a webhook, the API server); try again later."""

    default_reason = "Unavailable"


class Upstream(ServiceError):
    """Kubernetes answered with an error we have no better words for."""

    default_reason = "Kubernetes error"


def invalid(errors: list[FieldError]) -> Invalid:
    """One refusal naming every offending field; the message leads with the first."""
    first = errors[0]
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return Invalid(f"{first.field}: {first.message}{more}", field=first.field, errors=errors)

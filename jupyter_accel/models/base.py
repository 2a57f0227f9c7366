"""Shared base of the wire models and the error body."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class Wire(BaseModel):
    """Base of every wire model: unknown fields are refused, so typos in requests are reported."""

    # defer_build: schemas are built on first use, not at import; keeps the server's start-up short
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)


class FieldError(Wire):
    field: str = Field(description="Dotted path of the offending field, e.g. workers.0.gpus.")
    message: str


class ErrorResponse(Wire):
    """Body of every 4xx/5xx answer."""

    message: str
    reason: str | None = None
    field: str | None = Field(None, description="Dotted path of the first offending request field, for 400s.")
    errors: list[FieldError] = Field(default_factory=list, description="All field errors, for 400s.")


class Visibility(Wire):
    """Attached where part of an answer could not be read: shown as "not visible to your account"."""

    visible: bool = True
    message: str | None = None


class Tone(StrEnum):
    """How a state reads, for its colour: every front-end shows the tone the server gives."""

    ok = "ok"
    info = "info"
    warn = "warn"
    error = "error"
    neutral = "neutral"

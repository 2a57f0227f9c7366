"""Build a JobRequest body (a plain dict) from the few knobs the magics and the launcher form expose."""

from __future__ import annotations

import re
from typing import Any

DEFAULT_GPU_TYPE = "nvidia.com/gpu"


def job_request(
    kind: str,
    *,
    workers: int | None = None,
    gpus: int = 0,
    gpu_type: str | None = None,
    hardware_profile: str | None = None,
    cpu: str | None = None,
    memory: str | None = None,
    image: str | None = None,
    queue: str | None = None,
    name: str | None = None,
    priority_class: str | None = None,
    env: dict[str, str] | None = None,
    entrypoint: str | None = None,
    script: str | None = None,
    interpreter: str | None = None,
    nproc_per_node: int | None = None,
    max_run: str | None = None,
    **more: Any,
) -> dict[str, Any]:
    """The JobRequest dict; empty knobs are left out so the server's defaults apply."""
    body: dict[str, Any] = {
        "kind": kind,
        "workers": workers,
        "hardware_profile": hardware_profile or None,
        "cpu": cpu or None,
        "memory": memory or None,
        "image": image or None,
        "queue": queue or None,
        "name": name or None,
        "priority_class": priority_class or None,
        "entrypoint": entrypoint or None,
        "nproc_per_node": nproc_per_node,
        "max_run_seconds": parse_duration(max_run) if max_run else None,
        **more,
    }
    if gpus:
        body["accelerators"] = {"resource": gpu_type or DEFAULT_GPU_TYPE, "count": gpus}
    if env:
        body["env"] = env
    if script:
        body["script"] = {"text": script, **({"interpreter": interpreter} if interpreter else {})}
    return {k: v for k, v in body.items() if v is not None}


def parse_env(pairs: list[str]) -> dict[str, str]:
    """KEY=VALUE pairs; ValueError names the bad one."""
    env = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--env {pair!r}: expected KEY=VALUE")
        env[key] = value
    return env


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> int:
    """'90m', '2h', '1h30m', '1d', '3600' (seconds) -> seconds; ValueError naming what is allowed."""
    text = text.strip().lower()
    if text.isdigit():
        return int(text)
    parts = re.findall(r"(\d+)([smhd])", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise ValueError(f"max run time: {text!r} is not a duration; use e.g. 90m, 2h, 1h30m, 1d or seconds")
    return sum(int(n) * _UNITS[u] for n, u in parts)


def parse_data(volumes: list[str], secrets: list[str]) -> dict[str, Any]:
    """--volume CLAIM[/SUBDIR]:PATH[:ro] and --secret NAME[:PATH] as the request's volumes and secrets (only those
    given, so the server's defaults apply otherwise). ValueError names the bad flag."""
    out: dict[str, Any] = {}
    for text in volumes:
        parts = text.split(":")
        if len(parts) not in (2, 3) or not parts[0] or not parts[1] or (len(parts) == 3 and parts[2] != "ro"):
            raise ValueError(f"--volume {text!r}: expected CLAIM:PATH or CLAIM:PATH:ro (CLAIM/SUBDIR for a folder)")
        claim, _, sub = parts[0].partition("/")
        vol: dict[str, Any] = {"claim": claim, "mount_path": parts[1], "read_only": len(parts) == 3}
        if sub:
            vol["sub_path"] = sub
        out.setdefault("volumes", []).append(vol)
    for text in secrets:
        name, _, path = text.partition(":")
        if not name:
            raise ValueError(f"--secret {text!r}: expected NAME or NAME:PATH")
        out.setdefault("secrets", []).append({"name": name, **({"mount_path": path} if path else {})})
    return out

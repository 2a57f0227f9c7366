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


_GROUP = re.compile(r"^(?P<name>[a-z][-a-z0-9]*)=(?P<low>\d+)(?:-(?P<top>\d+))?(?P<rest>(?:,[a-z-]+=[^,]+)*)$")
_GROUP_KEYS = {"cpu": "cpu", "memory": "memory", "gpus": "count", "gpu-type": "resource"}


def parse_worker_group(text: str) -> dict[str, Any]:
    """--worker-group NAME=WORKERS[-MAX][,cpu=2][,memory=8Gi][,gpus=1][,gpu-type=amd.com/gpu] as one of the
    request's worker_groups; ValueError says the form."""
    match = _GROUP.match(text)
    form = "NAME=WORKERS[-MAX][,cpu=C][,memory=M][,gpus=N][,gpu-type=RESOURCE]"
    if not match:
        raise ValueError(f"--worker-group {text!r}: expected {form}")
    group: dict[str, Any] = {"name": match["name"], "workers": int(match["low"])}
    if match["top"] is not None:
        group["max_workers"] = int(match["top"])
    accel: dict[str, Any] = {}
    for pair in filter(None, match["rest"].split(",")):
        key, _, value = pair.partition("=")
        if key not in _GROUP_KEYS:
            raise ValueError(f"--worker-group {text!r}: unknown {key!r}; expected {form}")
        if key in ("gpus", "gpu-type"):
            accel[_GROUP_KEYS[key]] = int(value) if key == "gpus" and value.isdigit() else value
        else:
            group[key] = value
    if accel:
        group["accelerators"] = {"resource": DEFAULT_GPU_TYPE, "count": 1, **accel}
    return group

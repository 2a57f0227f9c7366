"""domain/ is pure: no I/O, no Kubernetes client, no web server; it imports only the wire models besides itself."""

from __future__ import annotations

import ast
from pathlib import Path

DOMAIN = Path(__file__).resolve().parents[2] / "jupyter_accel" / "domain"
# what would let a domain function touch the network, the disk, processes, threads or the server
FORBIDDEN = (
    "kubernetes",
    "tornado",
    "jupyter_server",
    "socket",
    "ssl",
    "http",
    "urllib",
    "requests",
    "subprocess",
    "threading",
    "asyncio",
    "concurrent",
    "os",
    "pathlib",
    "shutil",
    "io",
    "time",
)


def _absolute(path: Path, node: ast.ImportFrom) -> str:
    """A relative import spelled out against the module's package."""
    package = ["jupyter_accel", *path.relative_to(DOMAIN.parent).parent.parts]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add(_absolute(path, node) if node.level else node.module or "")
    return names


def test_domain_modules_do_no_io_and_know_no_server():
    modules = sorted(DOMAIN.rglob("*.py"))
    assert len(modules) >= 20
    for path in modules:
        for name in _imports(path):
            top = name.split(".")[0]
            assert top not in FORBIDDEN, f"{path.relative_to(DOMAIN)} imports {name}"
            if top == "jupyter_accel":
                allowed = name.startswith(("jupyter_accel.domain", "jupyter_accel.models"))
                assert allowed, f"{path.relative_to(DOMAIN)} imports {name}: domain/ uses only models/ and itself"


def test_the_resolver_spells_out_relative_imports():
    assert "jupyter_accel.models.jobs" in _imports(DOMAIN / "kinds" / "spec.py")
    assert "jupyter_accel.domain.builders" in _imports(DOMAIN / "kinds" / "rayjob.py")

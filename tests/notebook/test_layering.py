"""The kernel side imports only the wire models of the package, and nothing of the server's stack."""

from __future__ import annotations

import ast
from pathlib import Path

NOTEBOOK = Path(__file__).resolve().parents[2] / "jupyter_accel" / "notebook"
FORBIDDEN = (
    "kubernetes",
    "jupyter_server",
    "tornado",
    "jupyter_accel.cluster",
    "jupyter_accel.domain",
    "jupyter_accel.api",
    "jupyter_accel.app",
)


def _imports(path: Path) -> set[str]:
    names = set()
    package = ["jupyter_accel", "notebook", *path.relative_to(NOTEBOOK).parent.parts]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the module's package
                base = package[: len(package) - (node.level - 1)]
                if node.module:
                    names.add(".".join([*base, node.module]))
                else:  # `from .. import models`
                    names.update(".".join([*base, a.name]) for a in node.names)
            else:
                names.add(node.module or "")
    return names


def test_notebook_modules_import_nothing_of_the_server_side():
    modules = sorted(NOTEBOOK.rglob("*.py"))
    assert len(modules) >= 6
    for path in modules:
        bad = {n for n in _imports(path) for f in FORBIDDEN if n == f or n.startswith(f + ".")}
        assert not bad, f"{path.name} imports {sorted(bad)}"


def test_the_resolver_sees_the_models_import():
    assert "jupyter_accel.models" in _imports(NOTEBOOK / "client.py")  # `from .. import models`
    assert "jupyter_accel.notebook.client" in _imports(NOTEBOOK / "widgets" / "launcher.py")  # `from ..client`

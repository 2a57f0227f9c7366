"""What the Jupyter server imports while it starts stays light; the lazily loaded wire models are all reachable."""

from __future__ import annotations

import importlib
import inspect
import json
import subprocess
import sys
from enum import Enum

import pytest
from pydantic import BaseModel

from jupyter_accel import models

# what loading the server extension (handler table included) must not import: these load in a thread after start
HEAVY = ("kubernetes", "pydantic", "jupyter_accel.cluster", "jupyter_accel.services.jobs")


def test_loading_the_server_extension_imports_nothing_heavy():
    code = (
        "import json, sys\n"
        "import jupyter_accel, jupyter_accel.app, jupyter_accel.api.routes\n"
        "from jupyter_accel import _jupyter_server_extension_points\n"
        "_jupyter_server_extension_points()\n"
        f"heavy = {HEAVY!r}\n"
        "print(json.dumps(sorted(m for m in sys.modules if any(m == h or m.startswith(h + '.') for h in heavy))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_every_public_wire_class_is_exported():
    defined: dict[str, str] = {}
    for module in models._EXPORTS:
        mod = importlib.import_module(f"jupyter_accel.models.{module}")
        for name, obj in vars(mod).items():
            if (
                inspect.isclass(obj)
                and obj.__module__ == mod.__name__
                and issubclass(obj, BaseModel | Enum)
                and not name.startswith("_")
            ):
                defined[name] = module
    exported = {name: module for module, names in models._EXPORTS.items() for name in names}
    assert exported == defined


def test_exports_resolve_to_the_submodule_classes():
    from jupyter_accel.models import JobRequest  # the `from package import name` form goes through __getattr__
    from jupyter_accel.models.jobs import JobRequest as direct

    assert JobRequest is direct
    assert set(models.__all__) == {"API_PREFIX", "API_VERSION", *(n for ns in models._EXPORTS.values() for n in ns)}
    with pytest.raises(AttributeError, match="NoSuchModel"):
        models.NoSuchModel  # noqa: B018

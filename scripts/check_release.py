"""Release check in the manner of jupyter-releaser's: the version is one valid version everywhere it appears and the
changelog has its section. Run by `make test-fast`; CONTRIBUTING.md says how a release is made.

    python scripts/check_release.py [--tag vX.Y.Z]   # --tag: also check that the tag names this version
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from packaging.version import InvalidVersion, Version

ROOT = Path(__file__).resolve().parents[1]


def problems(tag: str | None = None) -> list[str]:
    out: list[str] = []
    package = json.loads((ROOT / "labextension" / "package.json").read_text())
    version = package.get("version", "")
    try:
        Version(version)
    except InvalidVersion:
        out.append(f"labextension/package.json: version {version!r} is not a valid version")
    if package.get("name") != "jupyter-accel":
        out.append(f"labextension/package.json: name {package.get('name')!r}, expected 'jupyter-accel'")
    install = json.loads((ROOT / "install.json").read_text())
    if install.get("packageName") != "jupyter-accel":
        out.append("install.json: packageName is not jupyter-accel")
    changelog = (ROOT / "CHANGELOG.md").read_text()
    if not re.search(rf"^## {re.escape(version)}( |$)", changelog, re.M):
        out.append(f"CHANGELOG.md: no '## {version}' section")
    built = ROOT / "jupyter_accel" / "_version.py"  # written by the build from package.json
    if built.exists() and f"'{version}'" not in built.read_text():
        out.append(f"jupyter_accel/_version.py (from the last build) is not {version}: rebuild (pip install -e .)")
    if tag is not None and tag != f"v{version}":
        out.append(f"tag {tag!r} does not name version {version} (expected v{version})")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tag")
    found = problems(ap.parse_args().tag)
    for line in found:
        print(f"release check: {line}", file=sys.stderr)
    if not found:
        print("release check: ok")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

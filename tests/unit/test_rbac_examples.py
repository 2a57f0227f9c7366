"""The RBAC examples grant every job kind of the registry: their job-kind rules are what scripts/gen_rbac.py
writes, and no job-kind group is granted by hand elsewhere in them."""

from __future__ import annotations

import importlib.util
import re
from dataclasses import replace
from pathlib import Path

import pytest

from jupyter_accel.domain.kinds import GROUP_VERSIONS, KINDS

ROOT = Path(__file__).resolve().parents[2]
_loader = importlib.util.spec_from_file_location("gen_rbac", ROOT / "scripts" / "gen_rbac.py")
assert _loader is not None and _loader.loader is not None
gen_rbac = importlib.util.module_from_spec(_loader)
_loader.loader.exec_module(gen_rbac)


def test_the_committed_examples_are_what_the_generator_writes():
    for name in gen_rbac.FILES:
        text = (ROOT / name).read_text()
        assert gen_rbac.render(text) == text, f"{name}: run python scripts/gen_rbac.py"
    assert gen_rbac.main(["--check"]) == 0


def test_the_generated_rules_cover_every_kind():
    rules = "\n".join(gen_rbac.job_rules())
    for spec in KINDS:
        assert re.search(rf"apiGroups: \[{re.escape(spec.group)}\]\n  resources: \[[^]]*\b{spec.plural}\b", rules)


def test_a_kind_added_to_the_registry_makes_the_examples_stale():
    text = (ROOT / gen_rbac.FILES[0]).read_text()
    newcomer = replace(KINDS[-1], group="example.com", plural="newjobs")
    assert gen_rbac.render(text, [*KINDS, newcomer]) != text
    with pytest.raises(ValueError, match="BEGIN"):
        gen_rbac.render(text.replace(gen_rbac.END, ""))


def test_no_job_kind_is_granted_outside_a_generated_block():
    """Outside the generated blocks no rule names a job kind's resource in its group (its group may appear for
    other resources: get on kubeflow.org notebooks, for "This workbench")."""
    kinds = {(spec.group, spec.plural) for spec in KINDS}
    for path in sorted((ROOT / "examples").rglob("*.yaml")):
        inside = False
        groups: set[str] = set()
        for line in path.read_text().splitlines():
            inside = (inside or line.strip() == gen_rbac.BEGIN) and line.strip() != gen_rbac.END
            found = re.match(r"\s*-?\s*apiGroups:\s*\[([^]]*)\]", line)
            if found:
                groups = {g.strip().strip("\"'") for g in found.group(1).split(",")} if not inside else set()
            listed = re.match(r"\s*resources:\s*\[([^]]*)\]", line)
            if listed and groups & set(GROUP_VERSIONS):
                resources = {r.strip().split("/")[0] for r in listed.group(1).split(",")}
                named = {(g, r) for g in groups for r in resources} & kinds
                assert not named, f"{path.relative_to(ROOT)}: {sorted(named)} granted by hand"

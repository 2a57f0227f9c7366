"""Node placement rules as kube-scheduler applies them: taints vs tolerations, nodeSelector, required node affinity,
node readiness. Used by the inventory (is a node usable), the fit check and the flavor matching."""

from __future__ import annotations

from typing import Any

# Only these keep a pod off a node at scheduling time; PreferNoSchedule is a preference.
BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")


def tolerates(toleration: dict[str, Any], taint: dict[str, Any]) -> bool:
    """core/v1 Toleration.ToleratesTaint: empty effect matches all effects, empty key with Exists matches all
    keys, operator defaults to Equal."""
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    operator = toleration.get("operator") or "Equal"
    if not key:
        return operator == "Exists"
    if key != taint.get("key"):
        return False
    if operator == "Exists":
        return True
    return (toleration.get("value") or "") == (taint.get("value") or "")


def untolerated_taints(
    taints: list[dict[str, Any]] | None,
    tolerations: list[dict[str, Any]] | None,
    effects: tuple[str, ...] = BLOCKING_EFFECTS,
) -> list[dict[str, Any]]:
    """Taints with a blocking effect that no toleration tolerates."""
    tols = tolerations or []
    return [t for t in taints or [] if t.get("effect") in effects and not any(tolerates(tol, t) for tol in tols)]


def taint_text(taint: dict[str, Any]) -> str:
    value = taint.get("value")
    return f"{taint.get('key')}{'=' + value if value else ''}:{taint.get('effect')}"


def matches_node_selector(labels: dict[str, str] | None, node_selector: dict[str, str] | None) -> bool:
    labels = labels or {}
    return all(labels.get(k) == v for k, v in (node_selector or {}).items())


def _match_expression(labels: dict[str, str], expr: dict[str, Any]) -> bool:
    key, op, values = expr.get("key", ""), expr.get("operator", ""), expr.get("values") or []
    present = key in labels
    if op == "In":
        return present and labels[key] in values
    if op == "NotIn":
        return not present or labels[key] not in values
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    if op in ("Gt", "Lt") and present and values:
        try:
            have, want = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return have > want if op == "Gt" else have < want
    return False


def matches_node_affinity(
    labels: dict[str, str] | None, affinity: dict[str, Any] | None, node_name: str | None = None
) -> bool:
    """Required node affinity: terms are ORed, expressions inside a term ANDed; matchFields supports
    metadata.name. An empty or missing requirement matches every node."""
    required = ((affinity or {}).get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    terms = (required or {}).get("nodeSelectorTerms") or []
    if not terms:
        return True
    labels = labels or {}
    fields = {"metadata.name": node_name} if node_name else {}
    for term in terms:
        exprs = term.get("matchExpressions") or []
        field_exprs = term.get("matchFields") or []
        if not exprs and not field_exprs:
            continue  # an empty term matches nothing
        if all(_match_expression(labels, e) for e in exprs) and all(_match_expression(fields, e) for e in field_exprs):
            return True
    return False


def node_condition(node: dict[str, Any], cond_type: str) -> dict[str, Any] | None:
    for cond in (node.get("status") or {}).get("conditions") or []:
        if cond.get("type") == cond_type:
            return cond
    return None


def is_node_ready(node: dict[str, Any]) -> bool:
    cond = node_condition(node, "Ready")
    return bool(cond and cond.get("status") == "True")


def is_node_unschedulable(node: dict[str, Any]) -> bool:
    return bool((node.get("spec") or {}).get("unschedulable"))


def placement_problems(
    node: dict[str, Any],
    *,
    node_selector: dict[str, str] | None = None,
    tolerations: list[dict[str, Any]] | None = None,
    affinity: dict[str, Any] | None = None,
    check_state: bool = True,
) -> list[str]:
    """Why a pod with these constraints cannot go to this node (ignoring free resources); empty when it can.
    `check_state=False` ignores readiness and cordoning (for "could it ever fit")."""
    meta = node.get("metadata") or {}
    labels = meta.get("labels") or {}
    problems: list[str] = []
    if check_state:
        if not is_node_ready(node):
            problems.append("node is not Ready")
        if is_node_unschedulable(node):
            problems.append("node is cordoned (unschedulable)")
    for key, value in (node_selector or {}).items():
        if labels.get(key) != value:
            problems.append(f"nodeSelector {key}={value} does not match")
    if not matches_node_affinity(labels, affinity, meta.get("name")):
        problems.append("required node affinity does not match")
    for taint in untolerated_taints((node.get("spec") or {}).get("taints"), tolerations):
        problems.append(f"taint {taint_text(taint)} is not tolerated")
    return problems


def flavor_matches(
    flavor: dict[str, Any] | None,
    *,
    node_selector: dict[str, str] | None,
    affinity: dict[str, Any] | None,
    tolerations: list[dict[str, Any]] | None,
) -> list[str]:
    """Kueue's flavor check for a PodSet: the flavor's nodeLabels must not contradict the pod's nodeSelector or
    required affinity (only keys the flavor labels are compared), and its nodeTaints must be tolerated unless the
    flavor brings its own tolerations. Returns the problems; empty = compatible."""
    spec = (flavor or {}).get("spec") or {}
    labels: dict[str, str] = spec.get("nodeLabels") or {}
    problems = [
        f"nodeSelector {k}={v} conflicts with flavor label {k}={labels[k]}"
        for k, v in (node_selector or {}).items()
        if k in labels and labels[k] != v
    ]
    required = ((affinity or {}).get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    terms = (required or {}).get("nodeSelectorTerms") or []
    if terms and labels:

        def term_ok(term: dict[str, Any]) -> bool:
            exprs = [e for e in term.get("matchExpressions") or [] if e.get("key") in labels]
            return all(_match_expression(labels, e) for e in exprs)

        if not any(term_ok(t) for t in terms):
            problems.append("required node affinity conflicts with the flavor's node labels")
    if not spec.get("tolerations"):
        for taint in untolerated_taints(spec.get("nodeTaints"), tolerations):
            problems.append(f"flavor taint {taint_text(taint)} is not tolerated")
    return problems

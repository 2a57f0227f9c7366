"""Accelerator inventory from nodes and pods, the `kubectl describe node` way: allocatable minus the requests of
bound, non-terminated pods, per node and per accelerator model."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping
from decimal import Decimal
from typing import Any, NamedTuple, Protocol, runtime_checkable

from ..models.base import Visibility
from ..models.inventory import (
    AcceleratorModelSummary,
    AcceleratorOnNode,
    InventoryResponse,
    NodeAccelerators,
    ResourceUse,
    Taint,
)
from .accelerators import AcceleratorInfo, AcceleratorRegistry
from .presentation import node_look
from .resources import parse_quantity, pod_requests
from .scheduling import is_node_ready, is_node_unschedulable

NOT_VISIBLE = "not visible to your account"
TERMINAL_PHASES = ("Succeeded", "Failed")
_SINGLE_MIG = re.compile(r"^(?P<parent>.+)-MIG-(?P<profile>\d+g\.\d+gb)$")
_PROFILE_GB = re.compile(r"\.(?P<gb>\d+)gb")


def is_active_pod(pod: dict[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") not in TERMINAL_PHASES


class Inventory(NamedTuple):
    summary: InventoryResponse  # the answer of GET inventory
    nodes: list[NodeAccelerators]  # the nodes with accelerators, by name (GET inventory/nodes pages them)


@runtime_checkable
class ChangeSource(Protocol):
    """A cache that says what changed since a revision (cluster/informer.CachedObjects)."""

    def changes_since(self, revision: int | None) -> Any: ...  # an informer.Changes


class InventoryMemo:
    """What the previous build computed per cached object. An informer replaces an object's dict when the object
    changes, so while the same dict is cached its result stands: a rebuild after a few pod changes reads those pods
    and sums again the nodes they are bound to, not the cluster. A memo follows one cache by its keys (`follow`)
    or is given every pod each time (`allocated`), never both. Not thread-safe: one build at a time per memo.
    `keep`: called with each node view as it is built, before it is kept (the server takes it out of the cycle
    collector's walk: cluster/gcfreeze.untracked); views are never changed after they are built."""

    def __init__(self, keep: Callable[[NodeAccelerators], object] | None = None) -> None:
        self._keep = keep
        self._pods: dict[int, dict[str, Any]] = {}  # id -> every pod of the last call (held: its id stays its own)
        self._revision: int | None = None  # the followed cache's revision these sums are at
        self._bound: dict[Hashable, str] = {}  # pod's key -> the node of a pod that holds what it requests
        self._members: dict[str, dict[Hashable, dict[str, Decimal]]] = {}  # node -> key -> that pod's requests
        self._totals: dict[str, dict[str, Decimal]] = {}
        self._nodes: dict[int, tuple[dict[str, Any], tuple[tuple[str, Decimal], ...] | None, NodeAccelerators]] = {}

    def allocated(self, pods: list[dict[str, Any]]) -> dict[str, dict[str, Decimal]]:
        """allocated_by_node(pods), from the pods that came, went or changed since the last call. A node they touch
        is summed again from its pods, in full: the same exact Decimals as a sum from scratch, digits included."""
        now = {id(p): p for p in pods}
        changed: dict[Hashable, dict[str, Any] | None] = dict.fromkeys(self._pods.keys() - now.keys())
        changed.update((key, now[key]) for key in now.keys() - self._pods.keys())
        self._pods = now
        return self._apply(changed)

    def follow(self, pods: ChangeSource) -> dict[str, dict[str, Decimal]]:
        """allocated_by_node of the pods cache `pods`, from its changes since the last call: no copy of its 20,000
        pods for each build (the cycle collector would walk it, holding the GIL: docs/scale.md)."""
        changes = pods.changes_since(self._revision)
        if changes.whole:  # every pod: start again
            self._bound, self._members, self._totals = {}, {}, {}
        self._revision = changes.revision
        return self._apply(changes.objects)

    def _apply(self, changed: Mapping[Hashable, dict[str, Any] | None]) -> dict[str, dict[str, Decimal]]:
        """Each pod by key as it is now (None: gone); then the nodes whose pods these were or are summed again."""
        touched: set[str] = set()
        for key, pod in changed.items():
            if (node := self._bound.pop(key, None)) is not None:
                del self._members[node][key]
                touched.add(node)
            spec = (pod or {}).get("spec") or {}
            if pod is not None and (node := spec.get("nodeName")) and is_active_pod(pod):
                self._bound[key] = node
                self._members.setdefault(node, {})[key] = pod_requests(spec)
                touched.add(node)
        for node in touched:
            if members := self._members.get(node):
                self._totals[node] = _summed(members.values())
            else:
                self._members.pop(node, None)
                self._totals.pop(node, None)
        return {node: dict(totals) for node, totals in self._totals.items()}  # the caller's to keep

    def node(
        self, node: dict[str, Any], allocated: dict[str, Decimal] | None, registry: AcceleratorRegistry
    ) -> NodeAccelerators:
        used = None if allocated is None else tuple(sorted(allocated.items()))
        hit = self._nodes.get(id(node))
        if hit is not None and hit[0] is node and hit[1] == used:
            return hit[2]
        view = node_accelerators(node, allocated, registry)
        if self._keep is not None:
            self._keep(view)
        self._nodes[id(node)] = (node, used, view)
        return view

    def keep_nodes(self, nodes: list[dict[str, Any]]) -> None:
        """Forget nodes that are gone."""
        ids = {id(n) for n in nodes}
        self._nodes = {k: v for k, v in self._nodes.items() if k in ids}


def allocated_by_node(
    pods: list[dict[str, Any]] | ChangeSource, memo: InventoryMemo | None = None
) -> dict[str, dict[str, Decimal]]:
    """node name -> summed effective requests of the non-terminated pods bound to it (unbound pods hold nothing).
    `pods`: a list, or a cache that says what changed (the memo then follows it: InventoryMemo.follow)."""
    if isinstance(pods, ChangeSource):
        return (memo or InventoryMemo()).follow(pods)
    if memo is not None:
        return memo.allocated(pods)
    by_node: dict[str, list[dict[str, Decimal]]] = defaultdict(list)
    for pod in pods:
        spec = pod.get("spec") or {}
        if spec.get("nodeName") and is_active_pod(pod):
            by_node[spec["nodeName"]].append(pod_requests(spec))
    return {node: _summed(requests) for node, requests in by_node.items()}


def _summed(requests: Iterable[dict[str, Decimal]]) -> dict[str, Decimal]:
    totals: dict[str, Decimal] = {}
    for each in requests:
        for name, qty in each.items():
            totals[name] = totals.get(name, Decimal(0)) + qty
    return totals


# where allocated and free come from (InventoryResponse.free_source): the sidebar and `%accel gpus` say it
FREE_FROM_PODS = "Allocated and free: summed from every pod of the cluster, which this account may read."
FREE_FROM_SERVICE = (
    "Allocated and free: summed per node by the shared read service from every pod of the cluster (it shows no pod "
    "names or namespaces)."
)


def allocations_to_wire(allocated: dict[str, dict[str, Decimal]]) -> dict[str, dict[str, Any]]:
    """allocated_by_node as the read service serves it: one object per node, named like the node, its quantities as
    strings ({"metadata": {"name": node}, "allocated": {"nvidia.com/gpu": "2", "cpu": "1.5"}})."""
    return {
        node: {"metadata": {"name": node}, "allocated": {r: format(q, "f") for r, q in sorted(used.items())}}
        for node, used in allocated.items()
    }


def allocations_from_wire(items: list[dict[str, Any]] | None) -> dict[str, dict[str, Decimal]] | None:
    """The read service's allocation objects back as allocated_by_node's answer (None stays None: not visible)."""
    if items is None:
        return None
    out: dict[str, dict[str, Decimal]] = {}
    for item in items:
        used = {}
        for name, qty in (item.get("allocated") or {}).items():
            try:
                used[name] = parse_quantity(qty)
            except ValueError:
                continue  # a malformed entry must not hide the rest of the node
        out[(item.get("metadata") or {}).get("name", "")] = used
    return out


def node_quantities(node: dict[str, Any], field: str) -> dict[str, Decimal]:
    out = {}
    for name, qty in ((node.get("status") or {}).get(field) or {}).items():
        try:
            out[name] = parse_quantity(qty)
        except ValueError:
            continue  # a malformed entry must not hide the rest of the node
    return out


def _int(value: Any) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def _prefixed_suffix(labels: dict[str, str], prefix: str) -> str | None:
    """The value encoded in a beta counter label such as beta.amd.com/gpu.product-name.MI300X: "8"."""
    for key in sorted(labels):
        if key.startswith(prefix) and len(key) > len(prefix):
            return key[len(prefix) :]
    return None


def _vram_mib(text: str | None) -> int | None:
    """AMD vram labels read like "192G" (GiB in practice) or "196592M"."""
    if not text:
        return None
    m = re.fullmatch(r"(\d+)\s*([GMT]?)i?B?", text.strip(), re.IGNORECASE)
    if not m:
        return None
    mult = {"": 1, "M": 1, "G": 1024, "T": 1024 * 1024}[m.group(2).upper()]
    return int(m.group(1)) * mult


def describe_device(info: AcceleratorInfo, labels: dict[str, str]) -> dict[str, Any]:
    """Model name, raw product label, memory, MIG profile and parent model of one resource on one node."""
    res = info.resource
    product: str | None = None
    memory: int | None = None
    mig, parent = info.mig_profile, None
    if info.vendor == "nvidia":
        product = labels.get("nvidia.com/gpu.product")
        if mig:  # mixed strategy: the slice is its own resource, the product label names the whole GPU
            parent = product
            memory = _int(labels.get(f"{res}.memory"))
            if memory is None and (m := _PROFILE_GB.search("." + mig)):
                memory = int(m.group("gb")) * 1024
            model = f"{parent} MIG {mig}" if parent else f"MIG {mig}"
            return {
                "model": model,
                "product_label": labels.get(f"{res}.product") or product,
                "memory_mib": memory,
                "mig_profile": mig,
                "parent_model": parent,
            }
        memory = _int(labels.get("nvidia.com/gpu.memory"))
        if product and (m := _SINGLE_MIG.match(product)):  # single strategy: slices exposed as nvidia.com/gpu
            mig, parent = m.group("profile"), m.group("parent")
    elif info.vendor == "amd":
        product = labels.get("amd.com/gpu.product-name") or _prefixed_suffix(labels, "beta.amd.com/gpu.product-name.")
        if not product:
            device = labels.get("amd.com/gpu.device-id") or _prefixed_suffix(labels, "beta.amd.com/gpu.device-id.")
            product = f"AMD device {device}" if device else None
        memory = _vram_mib(labels.get("amd.com/gpu.vram") or _prefixed_suffix(labels, "beta.amd.com/gpu.vram."))
    elif info.vendor == "intel":
        product = labels.get("gpu.intel.com/product")
    elif info.vendor == "habana":
        for key in sorted(labels):
            if key.startswith("habana.ai/") and any(w in key for w in ("product", "model", "type", "device")):
                product = labels[key]
                break
    return {
        # without a product label: the vendor and the resource, and that the model is unknown (not the bare name)
        "model": product or f"{info.ui_name} ({res}), unknown model",
        "product_label": product,
        "memory_mib": memory,
        "mig_profile": mig,
        "parent_model": parent,
    }


def _use(alloc: Decimal, used: Decimal | None) -> ResourceUse:
    if used is None:
        return ResourceUse(allocatable=float(alloc))
    return ResourceUse(allocatable=float(alloc), allocated=float(used), free=float(max(Decimal(0), alloc - used)))


def node_accelerators(
    node: dict[str, Any], allocated: dict[str, Decimal] | None, registry: AcceleratorRegistry
) -> NodeAccelerators:
    """One node's accelerators; `allocated` is this node's entry of allocated_by_node (None: pods not visible)."""
    meta = node.get("metadata") or {}
    labels = meta.get("labels") or {}
    capacity, allocatable = node_quantities(node, "capacity"), node_quantities(node, "allocatable")
    devices = []
    for res in sorted(set(capacity) | set(allocatable)):
        info = registry.classify(res)
        if info is None:
            continue
        alloc = int(allocatable.get(res, Decimal(0)))
        used = None if allocated is None else int(allocated.get(res, Decimal(0)))
        devices.append(
            AcceleratorOnNode(
                resource=res,
                vendor=info.vendor,
                vendor_name=info.ui_name,
                **describe_device(info, labels),
                capacity=int(capacity.get(res, Decimal(alloc))),
                allocatable=alloc,
                allocated=used,
                free=None if used is None else max(0, alloc - used),
            )
        )
    ready, cordoned = is_node_ready(node), is_node_unschedulable(node)
    taints = [
        Taint(key=t.get("key", ""), value=t.get("value") or None, effect=t.get("effect", ""))
        for t in (node.get("spec") or {}).get("taints") or []
    ]
    cpu = mem = None
    if "cpu" in allocatable:
        cpu = _use(allocatable["cpu"], None if allocated is None else allocated.get("cpu", Decimal(0)))
    if "memory" in allocatable:
        mem = _use(allocatable["memory"], None if allocated is None else allocated.get("memory", Decimal(0)))
    label, tone = node_look(ready, cordoned)
    return NodeAccelerators(
        name=meta.get("name", ""),
        ready=ready,
        unschedulable=cordoned,
        usable=ready and not cordoned,
        label=label,
        tone=tone,
        taints=taints,
        accelerators=devices,
        cpu=cpu,
        memory=mem,
    )


def summarize_models(nodes: list[NodeAccelerators]) -> list[AcceleratorModelSummary]:
    """Per (resource, model) totals. MIG slices stay separate rows and are never added to whole-GPU totals."""
    rows: dict[tuple[str, str], AcceleratorModelSummary] = {}
    for node in nodes:
        for dev in node.accelerators:
            if dev.capacity == 0 and dev.allocatable == 0:
                continue  # e.g. nvidia.com/gpu: 0 on a MIG-only node: the node shows it, no model row is empty
            key = (dev.resource, dev.model)
            row = rows.get(key)
            if row is None:
                row = rows[key] = AcceleratorModelSummary(
                    key=f"{dev.resource}|{dev.model}",
                    resource=dev.resource,
                    vendor=dev.vendor,
                    vendor_name=dev.vendor_name,
                    model=dev.model,
                    memory_mib=dev.memory_mib,
                    mig_profile=dev.mig_profile,
                    parent_model=dev.parent_model,
                    node_count=0,
                    capacity=0,
                    allocatable=0,
                    allocated=None if dev.allocated is None else 0,
                    free=None if dev.free is None else 0,
                    free_on_usable_nodes=None if dev.free is None else 0,
                    largest_free_per_node=None if dev.free is None else 0,
                )
            row.node_count += 1
            row.capacity += dev.capacity
            row.allocatable += dev.allocatable
            row.largest_allocatable_per_node = max(row.largest_allocatable_per_node, dev.allocatable)
            if dev.allocated is not None and row.allocated is not None and dev.free is not None:
                row.allocated += dev.allocated
                row.free = (row.free or 0) + dev.free
                if node.usable:
                    row.free_on_usable_nodes = (row.free_on_usable_nodes or 0) + dev.free
                    row.largest_free_per_node = max(row.largest_free_per_node or 0, dev.free)
    return sorted(rows.values(), key=lambda r: (r.vendor, r.resource, r.model))


def build_inventory(
    nodes: list[dict[str, Any]] | None,
    pods: list[dict[str, Any]] | ChangeSource | None,
    registry: AcceleratorRegistry,
    *,
    message: str = NOT_VISIBLE,
    memo: InventoryMemo | None = None,
) -> Inventory:
    """The inventory answer. `nodes=None` means nodes cannot be read (the answer says so); `pods=None` means
    pods cannot be read cluster-wide (allocatable shown, allocated/free left empty); `pods` may be the pods cache
    itself (allocated_by_node). Nodes without any accelerator resource are left out; nodes with an accelerator at
    0 allocatable are kept."""
    allocated = None if pods is None or nodes is None else allocated_by_node(pods, memo)
    return inventory_of(nodes, allocated, registry, message=message, memo=memo, free_source=FREE_FROM_PODS)


def inventory_of(
    nodes: list[dict[str, Any]] | None,
    allocated: dict[str, dict[str, Decimal]] | None,
    registry: AcceleratorRegistry,
    *,
    message: str = NOT_VISIBLE,
    memo: InventoryMemo | None = None,
    free_source: str = FREE_FROM_SERVICE,
) -> Inventory:
    """The inventory from the nodes and what their pods hold (allocated_by_node; None: pods not visible).
    `free_source`: where those sums come from, said beside the free figures."""
    if nodes is None:
        hidden = Visibility(visible=False, message=message)
        return Inventory(InventoryResponse(visibility=hidden, pods_visibility=hidden), [])
    views = []
    if memo is not None:
        memo.keep_nodes(nodes)
    for node in nodes:
        name = (node.get("metadata") or {}).get("name", "")
        used = None if allocated is None else allocated.get(name, {})
        view = memo.node(node, used, registry) if memo else node_accelerators(node, used, registry)
        if view.accelerators:
            views.append(view)
    views.sort(key=lambda v: v.name)
    names = sorted({d.resource for v in views for d in v.accelerators})
    pods_vis = Visibility() if allocated is not None else Visibility(visible=False, message=message)
    summary = InventoryResponse(
        models=summarize_models(views),
        node_count=len(views),
        accelerator_names=names,
        pods_visibility=pods_vis,
        free_source=free_source if allocated is not None else None,
    )
    return Inventory(summary, views)

"""The read service's pure parts, with plain dicts: revisions and deltas (store), what it publishes when caches change
(publish, over an in-memory hub), its authorization cache (auth, with the API server's answers given as dicts), and
the workbench's side: the remote cache, the event-stream parser, the token it sends, and that answers built from the
served allocations equal those built from the pods."""

from __future__ import annotations

import copy
import json
import time
from decimal import Decimal

from k8s_objects import GPU_TOLERATION, h100_node, mi300x_node, node, pod
from kubernetes.client import Configuration

from jupyter_accel.cluster.health import degraded
from jupyter_accel.cluster.informer import CacheState, Changes
from jupyter_accel.cluster.remote import ReadServiceFeed, ReadServiceSettings, bearer_token, sse_events
from jupyter_accel.domain.accelerators import AcceleratorRegistry
from jupyter_accel.domain.fit import FitCluster, assess_fit
from jupyter_accel.domain.inventory import (
    FREE_FROM_PODS,
    FREE_FROM_SERVICE,
    allocated_by_node,
    allocations_from_wire,
    allocations_to_wire,
    build_inventory,
    inventory_of,
)
from jupyter_accel.domain.presentation import cluster_reads
from jupyter_accel.domain.resources import PodDemand
from jupyter_accel.models import ClusterReadsSource, DegradedReason
from jupyter_accel.readservice.auth import Authorizer, token_hash
from jupyter_accel.readservice.keys import ALLOCATIONS_POLICIES, KEYS
from jupyter_accel.readservice.publish import Publisher
from jupyter_accel.readservice.store import Snapshot, apply

REGISTRY = AcceleratorRegistry()


def named(*objs):
    return {o["metadata"]["name"]: o for o in objs}


# -- store ---------------------------------------------------------------------------------------------------------
def test_revision_only_when_something_differs():
    s = Snapshot("nodes", "run1")
    assert s.update(named(node("a"), node("b")), "synced")
    assert s.revision == 1
    assert not s.update(named(node("a"), node("b")), "synced")  # equal objects: no revision
    assert s.update(named(node("a"), node("b")), "reconnecting", "reconnecting: gone")  # the state is served too
    assert s.revision == 2


def test_delta_since_a_revision_and_whole_when_unknown():
    nodes = [node(f"n{i}") for i in range(10)]
    s = Snapshot("nodes", "run1")
    s.update(named(*nodes), "synced")
    changed = copy.deepcopy(nodes[3])
    changed["metadata"]["labels"]["team"] = "x"
    s.update(named(*nodes[:3], changed, *nodes[4:9]), "synced")  # n3 changed, n9 deleted
    delta = json.loads(s.body(since=1))
    assert delta["since"] == 1 and delta["revision"] == 2
    assert [o["metadata"]["name"] for o in delta["changed"]] == ["n3"] and delta["deleted"] == ["n9"]
    assert json.loads(s.body(since=2))["changed"] == []  # up to date: nothing
    for unknown in (None, 7, -1):  # none held, from the future, nonsense: everything
        assert len(json.loads(s.body(since=unknown))["items"]) == 9
    # what a client holding revision 1 has after the delta equals the whole answer
    held = apply({}, json.loads(body_at_first_revision(nodes)))
    assert apply(held, delta) == apply({}, json.loads(s.body()))


def body_at_first_revision(nodes):
    """The answer a client got at revision 1."""
    s = Snapshot("nodes", "run1")
    s.update(named(*nodes), "synced")
    return s.body()


def test_a_delta_older_than_the_history_or_touching_most_objects_is_whole():
    s = Snapshot("nodes", "run1", history=2)
    s.update(named(node("a"), node("b"), node("c")), "synced")
    for i in range(3):
        s.update(named(node("a", labels={"i": str(i)}), node("b"), node("c")), "synced")
    assert "items" in json.loads(s.body(since=1))  # revisions 2..4 are not all in a history of 2
    assert "changed" in json.loads(s.body(since=3))
    s.update(named(node("a", labels={"i": "x"}), node("b", labels={"i": "x"}), node("c")), "synced")
    assert "items" in json.loads(s.body(since=4))  # two of three changed: the whole key is no bigger


def test_answers_are_serialized_once_per_revision():
    s = Snapshot("nodes", "run1")
    s.update(named(node("a")), "synced")
    assert s.cached(None) is None
    body = s.body()
    assert s.cached(None) is body
    s.update(named(node("b")), "synced")
    assert s.cached(None) is None


# -- publish --------------------------------------------------------------------------------------------------------
class Cache:
    def __init__(self, objects, state=CacheState.synced):
        self.objects, self.state, self.message = objects, state, None

    def changes_since(self, revision):
        """As CachedObjects' without a journal: every object, each time."""
        by_key = {((o["metadata"].get("namespace") or ""), o["metadata"]["name"]): o for o in self.objects}
        return Changes((revision or 0) + 1, by_key, whole=True)


class DictHub:
    """The read service's caches as plain dicts (what Publisher reads of cluster/identity_caches.IdentityCaches)."""

    def __init__(self, **caches):
        self.informers = {k: Cache(v) for k, v in caches.items()}

    def is_started(self):
        return True

    def items(self, key):
        return list(self.informers[key].objects)


def publisher(hub):
    published = []
    pub = Publisher(hub, "run1", 0.0, published.append)
    return pub, published


def test_a_pod_label_change_publishes_nothing_a_gpu_pod_publishes_its_node():
    gpu_pod = pod("p1", "h100-0", {"nvidia.com/gpu": "2", "cpu": "1"}, tolerations=[GPU_TOLERATION])
    others = [pod("p3", "h100-1", {"nvidia.com/gpu": "1"}), pod("p4", "gpu-mi300x-0", {"amd.com/gpu": "1"})]
    hub = DictHub(nodes=[h100_node("h100-0"), h100_node("h100-1"), mi300x_node()], allpods=[gpu_pod, *others])
    pub, _ = publisher(hub)
    for k in KEYS:
        pub.refresh(k)
    allocs = pub.snapshots["allocations"]
    assert json.loads(allocs.body())["items"][1] == {
        "metadata": {"name": "h100-0"},
        "allocated": {"cpu": "1", "nvidia.com/gpu": "2"},
    }
    assert pub.snapshots["clusterqueues"].state == "absent"  # no cache: not served by this cluster
    relabelled = copy.deepcopy(gpu_pod)
    relabelled["metadata"]["labels"] = {"churn": "1"}
    hub.informers["allpods"].objects = [relabelled, *others]
    allocations = next(k for k in KEYS if k.key == "allocations")
    assert not pub.refresh(allocations)
    hub.informers["allpods"].objects = [relabelled, *others, pod("p2", "h100-0", {"nvidia.com/gpu": "1"})]
    assert pub.refresh(allocations)
    delta = json.loads(allocs.body(since=1))
    assert delta["changed"] == [{"metadata": {"name": "h100-0"}, "allocated": {"cpu": "1", "nvidia.com/gpu": "3"}}]


def test_node_heartbeats_and_resource_versions_are_no_change():
    n = h100_node("h100-0")
    n["metadata"]["resourceVersion"] = "10"
    hub = DictHub(nodes=[n])
    pub, _ = publisher(hub)
    nodes_key = next(k for k in KEYS if k.key == "nodes")
    pub.refresh(nodes_key)
    beat = copy.deepcopy(n)
    beat["metadata"]["resourceVersion"] = "11"
    hub.informers["nodes"].objects = [beat]
    assert not pub.refresh(nodes_key)
    assert "resourceVersion" not in json.loads(pub.snapshots["nodes"].body())["items"][0]["metadata"]


def test_the_services_own_refusals_are_served_as_states():
    hub = DictHub(nodes=[])
    hub.informers["nodes"].state = CacheState.forbidden
    pub, _ = publisher(hub)
    for k in KEYS:
        pub.refresh(k)
    assert pub.snapshots["nodes"].state == "forbidden"
    assert pub.snapshots["allocations"].state == "forbidden"  # no pods cache: the service may not list them
    assert pub.ready()


def test_the_publisher_thread_names_the_changed_keys():
    hub = DictHub(nodes=[node("a")], allpods=[])
    pub, published = publisher(hub)
    pub.start()
    try:
        deadline = time.monotonic() + 5
        while not published and time.monotonic() < deadline:
            time.sleep(0.01)
        assert published and "nodes" in published[0]
        published.clear()
        hub.informers["nodes"].objects = [node("a"), node("b")]
        pub.on_change("nodes")
        pub.on_change("events")  # not served: ignored
        while not published and time.monotonic() < deadline:
            time.sleep(0.01)
        assert published == [{"nodes"}]
    finally:
        pub.stop()


def test_a_lone_change_is_published_at_once_and_churn_at_most_once_per_interval():
    hub = DictHub(nodes=[node("a")], allpods=[])
    published: list[tuple[float, set[str]]] = []
    pub = Publisher(hub, "run1", 1.0, lambda keys: published.append((time.monotonic(), keys)))
    pub.start()
    try:
        deadline = time.monotonic() + 5
        while not published and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(1.2)  # a quiet spell longer than the interval
        published.clear()
        hub.informers["nodes"].objects = [node("a"), node("b")]
        changed_at = time.monotonic()
        pub.on_change("nodes")
        while not published and time.monotonic() < deadline:
            time.sleep(0.01)
        first = published[0][0]
        assert first - changed_at < 0.5  # not held for the interval: a plain debounce would take 1 s
        hub.informers["nodes"].objects = [node("a"), node("b"), node("c")]
        pub.on_change("nodes")  # churn: the next revision waits for the interval
        while len(published) < 2 and time.monotonic() < deadline + 2:
            time.sleep(0.01)
        assert published[1][1] == {"nodes"} and published[1][0] - first >= 0.9
    finally:
        pub.stop()


# -- auth -----------------------------------------------------------------------------------------------------------
class AnsweringAuthorizer(Authorizer):
    """The API server's review answers given as dicts; records each review body it would send."""

    def __init__(self, users, rights, policy=None):
        self.now = 0.0
        super().__init__(api=None, clock=lambda: self.now, policy=policy)
        self.users, self.rights, self.sent = users, rights, []

    def _post(self, path, body, what):
        self.sent.append(body)
        if body["kind"] == "TokenReview":
            user = self.users.get(body["spec"]["token"])
            return {"authenticated": True, "user": user} if user else {"authenticated": False}
        attrs = body["spec"]["resourceAttributes"]
        return {"allowed": (body["spec"]["user"], attrs["resource"]) in self.rights}


def test_reviews_ask_for_the_callers_own_rights_cluster_wide_and_are_cached():
    auth = AnsweringAuthorizer({"tok-a": {"username": "alice", "uid": "u1", "groups": ["g"]}}, {("alice", "nodes")})
    caller, decisions = auth.decide("tok-a", ("nodes", "allocations"))
    assert caller.user == "alice" and decisions == {"nodes": True, "allocations": False}
    sar = [b for b in auth.sent if b["kind"] == "SubjectAccessReview"]
    assert sar[1]["spec"]["user"] == "alice" and sar[1]["spec"]["groups"] == ["g"] and sar[1]["spec"]["uid"] == "u1"
    assert sar[1]["spec"]["resourceAttributes"] == {"verb": "list", "group": "", "resource": "pods"}  # no namespace
    assert auth.cached("tok-a", ("nodes", "allocations")) == (caller, decisions)
    sent = len(auth.sent)
    auth.now = 60  # the refusal has expired (30 s), the grant and the token have not
    assert auth.cached("tok-a", ("nodes",)) is not None and auth.cached("tok-a", ("allocations",)) is None
    auth.decide("tok-a", ("nodes", "allocations"))
    assert len(auth.sent) == sent + 1  # one SubjectAccessReview, for allocations only
    auth.now = 1000
    assert auth.cached("tok-a", ("nodes",)) is None


def test_the_admins_allocations_policy_asks_for_the_right_it_names():
    """--allocations-for nodes: whoever may list nodes reads the per-node sums; the default asks for every pod."""
    alice = {"tok-a": {"username": "alice"}}
    strict = AnsweringAuthorizer(alice, {("alice", "nodes")})
    assert strict.decide("tok-a", ("allocations",))[1] == {"allocations": False}
    open_ = AnsweringAuthorizer(alice, {("alice", "nodes")}, policy={"allocations": ALLOCATIONS_POLICIES["nodes"]})
    assert open_.decide("tok-a", ("allocations",))[1] == {"allocations": True}
    asked = [b["spec"]["resourceAttributes"] for b in open_.sent if b["kind"] == "SubjectAccessReview"]
    assert asked == [{"verb": "list", "group": "", "resource": "nodes"}]
    nobody = AnsweringAuthorizer(alice, set(), policy={"allocations": ALLOCATIONS_POLICIES["nodes"]})
    assert nobody.decide("tok-a", ("allocations",))[1] == {"allocations": False}  # never wider than nodes


def test_a_token_not_accepted_is_cached_briefly_and_kept_only_as_its_hash():
    auth = AnsweringAuthorizer({}, set())
    assert auth.decide("bad-token", ("nodes",)) == (None, {})
    assert auth.cached("bad-token", ("nodes",)) == (None, {})
    assert all("bad-token" not in k for k, _ in auth._cache) and (token_hash("bad-token"), "") in auth._cache
    auth.now = 31
    assert auth.cached("bad-token", ("nodes",)) is None


# -- the workbench's side -------------------------------------------------------------------------------------------
def test_served_allocations_give_the_same_inventory_and_fit_as_the_pods():
    nodes = [h100_node("h100-0"), h100_node("h100-1"), mi300x_node(), node("cpu-0")]
    pods = [
        pod("a", "h100-0", {"nvidia.com/gpu": "3", "cpu": "500m", "memory": "1Gi"}, tolerations=[GPU_TOLERATION]),
        pod("b", "h100-0", {"nvidia.com/gpu": "1"}, tolerations=[GPU_TOLERATION]),
        pod("c", "gpu-mi300x-0", {"amd.com/gpu": "2"}),
        pod("done", "h100-1", {"nvidia.com/gpu": "8"}, phase="Succeeded"),
    ]
    wire = json.loads(json.dumps(list(allocations_to_wire(allocated_by_node(pods)).values())))
    allocated = allocations_from_wire(wire)
    assert allocated["h100-0"]["memory"] == Decimal(1024**3) and allocated["h100-0"]["cpu"] == Decimal("0.5")
    direct = build_inventory(nodes, pods, REGISTRY)
    served = inventory_of(nodes, allocated, REGISTRY)
    # the same figures; each says where they come from
    assert served.summary.free_source == FREE_FROM_SERVICE and direct.summary.free_source == FREE_FROM_PODS
    assert served.summary.model_copy(update={"free_source": None}) == direct.summary.model_copy(
        update={"free_source": None}
    )
    assert served.nodes == direct.nodes
    assert allocations_from_wire(None) is None
    demand = [PodDemand(role="worker", count=2, requests={"nvidia.com/gpu": Decimal(6)}, tolerations=[GPU_TOLERATION])]
    from_pods = assess_fit(demand, FitCluster(nodes=nodes, pods=pods), registry=REGISTRY)
    from_served = assess_fit(demand, FitCluster(nodes=nodes, pods=None, allocated=allocated), registry=REGISTRY)
    assert from_served == from_pods and from_served.pods_seen and from_served.roles[0].placeable_now == 1


def test_remote_cache_applies_answers_and_reports_changes_like_an_informer():
    changes = []
    feed = ReadServiceFeed(ReadServiceSettings("http://127.0.0.1:9"), lambda: "t", changes.append)
    cache = feed.caches["nodes"]
    assert set(feed.caches) == {k.key for k in KEYS} and cache.state == CacheState.starting
    full = {"key": "nodes", "instance": "i1", "revision": 4, "state": "synced", "message": None,
            "items": [node("a"), node("b")]}  # fmt: skip
    cache.apply(full)
    assert cache.state == CacheState.synced and cache.wait_synced(0) and changes == ["nodes"]
    assert cache.get("a")["metadata"]["name"] == "a" and cache.get("a", "team-a") is None
    rev = cache.revision
    cache.apply({**full, "revision": 5, "since": 4, "changed": [], "deleted": []})
    assert cache.revision == rev and changes == ["nodes"] and cache.remote_revision == 5  # nothing new: quiet
    cache.apply({**{k: v for k, v in full.items() if k != "items"}, "revision": 6, "since": 5,
                 "changed": [node("c")], "deleted": ["a"]})  # fmt: skip
    assert sorted(o["metadata"]["name"] for o in cache.items()) == ["b", "c"] and cache.revision == rev + 1
    cache.reconnecting("it cannot be reached")
    assert cache.state == CacheState.reconnecting and cache.readable and len(cache.items()) == 2
    cache.refuse(CacheState.forbidden, "not visible to your account")
    assert not cache.readable and cache.items() == [] and cache.remote_revision is None
    cache.reconnecting("again")
    assert cache.state == CacheState.forbidden  # a refusal stays one while the service is away


def test_event_stream_parser_skips_keep_alives():
    lines = [": keep-alive", "", "event: change", 'data: {"revisions": {"nodes": 1}}', "", ": keep-alive", "",
             "event: change", "data: {", 'data: "instance": "x"}', ""]  # fmt: skip
    assert list(sse_events(iter(lines))) == [{"revisions": {"nodes": 1}}, {"instance": "x"}]


def test_the_token_sent_is_the_clients_bearer_token():
    kubeconfig = Configuration()
    kubeconfig.api_key = {"authorization": "Bearer abc"}  # the kubeconfig loader's shape
    explicit = Configuration()
    explicit.api_key, explicit.api_key_prefix = {"authorization": "xyz"}, {"authorization": "Bearer"}
    in_cluster = Configuration()
    in_cluster.api_key = {"authorization": "bearer sa-token"}
    certificate = Configuration()
    tokens = [
        bearer_token(type("Api", (), {"configuration": c})) for c in (kubeconfig, explicit, in_cluster, certificate)
    ]
    assert tokens == ["abc", "xyz", "sa-token", None]


def test_where_cluster_reads_come_from_and_the_service_sentence():
    assert cluster_reads(None, used=False).source == ClusterReadsSource.api_server
    used = cluster_reads("https://rs.svc:8443", used=True)
    assert used.source == ClusterReadsSource.read_service and "https://rs.svc:8443" in used.message
    unused = cluster_reads("https://rs.svc:8443", used=False)
    assert unused.source == ClusterReadsSource.api_server and "client certificate" in unused.message
    d = degraded(None, [], ("http://rs:8080", "it cannot be reached (Connection refused)"))
    assert d.reason == DegradedReason.reconnecting and "read service at http://rs:8080" in d.message
    assert "Kubernetes API server" in degraded(None, ["pods"], ("u", "x")).message  # own watches first

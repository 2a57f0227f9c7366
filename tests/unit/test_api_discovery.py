"""Discovery: the preference table comes from the registry of kinds plus the other groups read, and the choices are
made on recorded API server answers (plain dicts; read() takes its GETs as a function, no Kubernetes client)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from jupyter_accel.cluster.discovery import (
    OTHER_GROUPS,
    PREFERRED,
    Discovery,
    choose_versions,
    kind_schema,
    preference_table,
    read,
    served_plurals,
)
from jupyter_accel.domain.builders.trainjob import POD_OVERRIDES
from jupyter_accel.domain.compat import compatibility
from jupyter_accel.domain.kinds import GROUP_VERSIONS, KINDS, spec_of_kind
from jupyter_accel.domain.kinds.trainjob import TRAINER_STATUS
from jupyter_accel.models import ApiAvailability, JobKind

TRAINJOB = spec_of_kind(JobKind.trainjob)

# GET /apis of a cluster with Kueue 0.16, KubeRay, the Training Operator, Trainer v2 and ODH 2.x (trimmed)
APIS: dict[str, Any] = {
    "kind": "APIGroupList",
    "apiVersion": "v1",
    "groups": [
        {"name": "apps", "versions": [{"groupVersion": "apps/v1", "version": "v1"}]},
        {
            "name": "kueue.x-k8s.io",
            "versions": [
                {"groupVersion": "kueue.x-k8s.io/v1beta2", "version": "v1beta2"},
                {"groupVersion": "kueue.x-k8s.io/v1beta1", "version": "v1beta1"},
            ],
            "preferredVersion": {"groupVersion": "kueue.x-k8s.io/v1beta2", "version": "v1beta2"},
        },
        {
            "name": "visibility.kueue.x-k8s.io",
            "versions": [{"groupVersion": "visibility.kueue.x-k8s.io/v1beta1", "version": "v1beta1"}],
        },
        {
            "name": "ray.io",
            "versions": [
                {"groupVersion": "ray.io/v1", "version": "v1"},
                {"groupVersion": "ray.io/v1alpha1", "version": "v1alpha1"},
            ],
        },
        {"name": "kubeflow.org", "versions": [{"groupVersion": "kubeflow.org/v1", "version": "v1"}]},
        {
            "name": "trainer.kubeflow.org",
            "versions": [{"groupVersion": "trainer.kubeflow.org/v1alpha1", "version": "v1alpha1"}],
        },
        {"name": "jobset.x-k8s.io", "versions": [{"groupVersion": "jobset.x-k8s.io/v1alpha2", "version": "v1alpha2"}]},
        {
            "name": "infrastructure.opendatahub.io",
            "versions": [{"groupVersion": "infrastructure.opendatahub.io/v1alpha1", "version": "v1alpha1"}],
        },
        # a version jupyter-accel does not know: the group is not used at all
        {"name": "dashboard.opendatahub.io", "versions": [{"groupVersion": "x/v2", "version": "v2"}]},
    ],
}


def resources(*names: str) -> dict[str, Any]:
    return {"kind": "APIResourceList", "resources": [{"name": n, "namespaced": True} for n in names]}


# what Trainer 2.1 and 2.2 publish for TrainJob in /openapi/v3/apis/trainer.kubeflow.org/v1alpha1 (trimmed)
def trainjob_doc(*spec_fields: str, progress: bool = False) -> dict[str, Any]:
    status = {"trainerStatus": {"type": "object"}} if progress else {"jobsStatus": {"type": "array"}}
    schema = {
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": {f: {"type": "array"} for f in spec_fields}},
            "status": {"type": "object", "properties": status},
        },
        "x-kubernetes-group-version-kind": [
            {"group": "trainer.kubeflow.org", "kind": "TrainJob", "version": "v1alpha1"}
        ],
    }
    return {"openapi": "3.0.0", "components": {"schemas": {"org.kubeflow.trainer.v1alpha1.TrainJob": schema}}}


TRAINER_2_1 = trainjob_doc("runtimeRef", "trainer", "podTemplateOverrides")
TRAINER_2_2 = trainjob_doc("runtimeRef", "trainer", "runtimePatches", progress=True)
TRAINER_PATH = "/openapi/v3/apis/trainer.kubeflow.org/v1alpha1"


def openapi_index(hash_: str) -> dict[str, Any]:
    return {
        "paths": {
            "apis/apps/v1": {"serverRelativeURL": "/openapi/v3/apis/apps/v1?hash=AAA"},
            "apis/trainer.kubeflow.org/v1alpha1": {"serverRelativeURL": f"{TRAINER_PATH}?hash={hash_}"},
        }
    }


class Recorded:
    """GET answers by path; every call is noted. A path without an answer raises, as a 404 would."""

    def __init__(self, answers: dict[str, Any]):
        self.answers = answers
        self.calls: list[tuple[str, dict[str, str]]] = []

    def __call__(self, path: str, query: Any) -> Any:
        self.calls.append((path, dict(query)))
        if path not in self.answers:
            raise LookupError(f"404 {path}")
        answer = self.answers[path]
        return answer(dict(query)) if callable(answer) else answer


def cluster(**more: Any) -> dict[str, Any]:
    return {
        "/apis": APIS,
        "/apis/kueue.x-k8s.io/v1beta2": resources("localqueues", "localqueues/status", "clusterqueues", "workloads"),
        "/apis/visibility.kueue.x-k8s.io/v1beta1": resources("localqueues/pendingworkloads"),
        "/apis/ray.io/v1": resources("rayclusters", "rayclusters/status", "rayjobs"),
        "/apis/kubeflow.org/v1": resources("pytorchjobs"),
        "/apis/trainer.kubeflow.org/v1alpha1": resources("trainjobs", "trainingruntimes", "clustertrainingruntimes"),
        "/apis/infrastructure.opendatahub.io/v1alpha1": resources("hardwareprofiles"),
        **more,
    }


def test_every_kind_names_its_versions_and_discovery_prefers_them():
    for spec in KINDS:
        assert spec.versions, spec.kind
        assert PREFERRED[spec.group] == spec.versions  # a kind's group is never missing from discovery
    assert PREFERRED == {**OTHER_GROUPS, **GROUP_VERSIONS}
    assert not set(OTHER_GROUPS) & {s.group for s in KINDS}  # no job-kind group is listed by hand
    with pytest.raises(ValueError, match="names no API versions"):
        replace(TRAINJOB, versions=())


def test_a_group_listed_both_by_a_kind_and_by_hand_is_refused():
    with pytest.raises(ValueError, match="listed twice"):
        preference_table({"ray.io": ("v1",)}, {"ray.io": ("v1",), "kueue.x-k8s.io": ("v1beta2",)})


def test_every_group_read_or_reported_is_discovered():
    from jupyter_accel.cluster.identity_caches import CUSTOM

    assert set(CUSTOM) <= set(PREFERRED)  # a cache of a group discovery never chooses a version for never opens
    assert set(ApiAvailability.groups().values()) <= set(PREFERRED)


def test_builders_write_the_first_version_their_kind_names():
    from jupyter_accel.domain.builders import BuildContext, build_objects
    from jupyter_accel.models import JobRequest

    ctx = BuildContext(namespace="team-a", image="img:1", name_suffix="abcde")
    programs = {"entrypoint": "python -V", "command": ["true"]}
    for spec in KINDS:
        body: dict[str, Any] = {"kind": spec.kind.value, "workers": max(spec.min_workers, 1)}
        if spec.program:
            body[spec.program[0]] = programs[spec.program[0]]
        [obj] = build_objects(JobRequest.model_validate(body), ctx)
        assert obj["apiVersion"] == f"{spec.group}/{spec.versions[0]}", spec.kind


def test_the_first_preferred_version_served_is_chosen():
    assert choose_versions(APIS) == {
        "kueue.x-k8s.io": "v1beta2",  # both served: the preferred one
        "visibility.kueue.x-k8s.io": "v1beta1",  # the fallback
        "ray.io": "v1",
        "kubeflow.org": "v1",
        "trainer.kubeflow.org": "v1alpha1",
        "infrastructure.opendatahub.io": "v1alpha1",
    }
    assert choose_versions({"groups": []}) == {}
    assert choose_versions(APIS, {"ray.io": ("v2", "v1alpha1", "v1")}) == {"ray.io": "v1alpha1"}


def test_served_plurals_leave_subresources_out():
    assert served_plurals(resources("rayclusters", "rayclusters/status", "rayjobs")) == {"rayclusters", "rayjobs"}
    assert served_plurals({}) == set()


def test_read_chooses_versions_and_lists_what_each_serves():
    get = Recorded(cluster())
    d = read(get, build_options=False)
    assert d.version("kueue.x-k8s.io") == "v1beta2" and d.version("dashboard.opendatahub.io") is None
    assert d.serves("ray.io", "rayjobs") and not d.serves("ray.io", "rayclusters/status")
    assert d.serves("trainer.kubeflow.org", "trainjobs") and not d.serves("kueue.x-k8s.io", "cohorts")
    assert {path for path, _ in get.calls} == {"/apis", *(f"/apis/{g}/{v}" for g, v in d.versions.items())}


def test_kind_schema_by_model_name_else_by_its_gvk():
    assert (
        kind_schema(TRAINER_2_2, TRAINJOB, "v1alpha1")
        is TRAINER_2_2["components"]["schemas"]["org.kubeflow.trainer.v1alpha1.TrainJob"]
    )
    [schema] = TRAINER_2_1["components"]["schemas"].values()
    renamed = {"components": {"schemas": {"TrainJob": schema}}}
    assert kind_schema(renamed, TRAINJOB, "v1alpha1") is renamed["components"]["schemas"]["TrainJob"]
    assert kind_schema(TRAINER_2_2, TRAINJOB, "v1") is None
    assert kind_schema({}, TRAINJOB, "v1alpha1") is None


def test_trainjob_pod_overrides_follow_the_served_schema():
    options = TRAINJOB.build_options
    assert options is not None
    schema = trainjob_doc("podTemplateOverrides")["components"]["schemas"]["org.kubeflow.trainer.v1alpha1.TrainJob"]
    # Trainer 2.1 (RHOAI 3.x): no trainerStatus either
    assert options(schema) == {POD_OVERRIDES: "podTemplateOverrides", TRAINER_STATUS: "absent"}
    schema = TRAINER_2_2["components"]["schemas"]["org.kubeflow.trainer.v1alpha1.TrainJob"]
    assert options(schema) == {POD_OVERRIDES: "runtimePatches", TRAINER_STATUS: "served"}  # 2.2+
    assert options(None) == {POD_OVERRIDES: "runtimePatches"}  # not known: the current shape, progress unknown
    assert options({"type": "object"}) == {POD_OVERRIDES: "runtimePatches", TRAINER_STATUS: "absent"}
    assert all(s.build_options is None for s in KINDS if s is not TRAINJOB)


def test_read_gives_trainjob_the_options_of_the_served_trainer_and_reads_a_schema_once_per_hash():
    served = {"doc": TRAINER_2_1}
    get = Recorded(
        cluster(**{"/openapi/v3": lambda q: openapi_index(served["hash"]), TRAINER_PATH: lambda q: served["doc"]})
    )
    served["hash"] = "H21"
    first = read(get)
    assert first.build_options(JobKind.trainjob) == {POD_OVERRIDES: "podTemplateOverrides", TRAINER_STATUS: "absent"}
    assert first.build_options(JobKind.pytorch) == {}
    assert (TRAINER_PATH, {"hash": "H21"}) in get.calls
    get.calls.clear()
    again = read(get, first)
    assert again == first and (TRAINER_PATH, {"hash": "H21"}) not in get.calls
    assert ("/openapi/v3", {}) in get.calls
    served.update(hash="H22", doc=TRAINER_2_2)  # Trainer upgraded: the document's hash changes
    upgraded = read(get, again)
    assert upgraded.build_options(JobKind.trainjob) == {POD_OVERRIDES: "runtimePatches", TRAINER_STATUS: "served"}
    assert upgraded != again  # the hub sees a change and rebuilds its info


def test_without_an_openapi_document_trainjob_keeps_what_it_had_else_the_current_shape():
    get = Recorded(cluster())  # no /openapi/v3: an old API server, or one a proxy hides
    d = read(get)
    assert d.build_options(JobKind.trainjob) == {POD_OVERRIDES: "runtimePatches"}
    known = Discovery(options={JobKind.trainjob: {POD_OVERRIDES: "podTemplateOverrides"}})
    assert read(get, known).build_options(JobKind.trainjob) == {POD_OVERRIDES: "podTemplateOverrides"}
    # the index names the document, but reading it fails: the same, and it is read again next time
    get = Recorded(cluster(**{"/openapi/v3": openapi_index("H")}))
    d = read(get, known)
    assert d.build_options(JobKind.trainjob) == {POD_OVERRIDES: "podTemplateOverrides"} and not d.schema_sources


def test_no_schema_is_read_when_no_kind_needs_one():
    answers = cluster(**{"/openapi/v3": openapi_index("H"), TRAINER_PATH: TRAINER_2_2})
    answers["/apis/trainer.kubeflow.org/v1alpha1"] = resources("trainingruntimes")  # TrainJob not served
    get = Recorded(answers)
    assert read(get).options == {}
    assert not any(path.startswith("/openapi") for path, _ in get.calls)
    get = Recorded(cluster(**{"/openapi/v3": openapi_index("H"), TRAINER_PATH: TRAINER_2_2}))
    assert read(get, build_options=False).options == {}  # a read service's hub builds no jobs
    assert not any(path.startswith("/openapi") for path, _ in get.calls)


def test_runtimes_are_listed_by_name_where_readable():
    get = Recorded(cluster(**{
        "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes": {
            "items": [{"metadata": {"name": "torch-distributed"}}, {"metadata": {"name": "deepspeed-distributed"}}]
        }
    }))  # fmt: skip
    assert read(get).runtimes == {JobKind.trainjob: ["deepspeed-distributed", "torch-distributed"]}
    assert read(Recorded(cluster())).runtimes == {}  # refused (here: no answer): offered by no name


def test_the_compatibility_report_of_a_current_stack():
    get = Recorded(cluster(**{"/openapi/v3": openapi_index("H22"), TRAINER_PATH: TRAINER_2_2}))
    d = read(get)
    report = compatibility(d.versions, d.serves, d.options)
    assert "Kueue: kueue.x-k8s.io/v1beta2" in report.served
    assert "TrainJob: trainer.kubeflow.org/v1alpha1" in report.served
    assert "TrainJob progress from status.trainerStatus (Trainer 2.2 or later)" in report.features
    assert "places in line from Kueue's visibility API" in report.features
    assert [d for d in report.deprecated if d.startswith("PyTorchJob")]  # the Training Operator is served
    assert report.missing == []


def test_the_compatibility_report_of_an_older_stack_says_what_will_not_work():
    answers = cluster(**{"/openapi/v3": openapi_index("H21"), TRAINER_PATH: TRAINER_2_1})
    answers["/apis"] = {
        "groups": [
            g if g["name"] != "kueue.x-k8s.io" else {**g, "versions": [{"version": "v1beta1"}]}
            for g in APIS["groups"]
            if g["name"] not in ("ray.io", "visibility.kueue.x-k8s.io", "infrastructure.opendatahub.io")
        ]
    }
    answers["/apis/kueue.x-k8s.io/v1beta1"] = resources("localqueues", "clusterqueues", "workloads")
    d = read(Recorded(answers))
    report = compatibility(d.versions, d.serves, d.options)
    assert any(x.startswith("Kueue serves only its v1beta1 API") for x in report.deprecated), report
    assert any(x.startswith("TrainJob's podTemplateOverrides (Trainer 2.1)") for x in report.deprecated), report
    assert "Ray cluster is not offered: KubeRay is not installed" in report.missing, report.missing
    assert "Kueue's visibility API is not served: a queued job's place in line is unknown" in report.missing
    assert "TrainJob progress: the served Trainer has no status.trainerStatus (needs 2.2)" in report.missing
    assert "Hardware profiles are not served: requests name devices directly" in report.missing

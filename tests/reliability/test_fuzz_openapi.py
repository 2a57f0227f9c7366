"""Fuzz every documented operation from docs/openapi.json with schemathesis, against a Jupyter server connected to
the devcluster as the notebook user in a throwaway namespace.

Checks on every answer: no 5xx; the status code, content type and body conform to the document; every 4xx is JSON
with a `message`; negative (schema-violating) data is refused. At the end: every job, ConfigMap and Workload in the
namespace belongs to a job that a 2xx submit answered with, so no refused request left anything behind.

Not fuzzed: `GET stream` (an endless event stream) and `identity/token` (it would switch the server's identity in the
middle of the run); tests/reliability/test_hostile.py and test_token_leaks.py cover them. JA_FUZZ_EXAMPLES sets
the examples per operation (default 1300; the two JobRequest operations get 6/13 of it, those without parameters
one): about 10,300 cases, two to three minutes on two cores.
"""

from __future__ import annotations

import collections
import json
import os
import time
from pathlib import Path

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from reliability_report import note
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from devcluster.jupyter_server import JupyterProcess

pytestmark = pytest.mark.cluster

DOC = Path(__file__).parents[2] / "docs" / "openapi.json"
EXAMPLES = int(os.environ.get("JA_FUZZ_EXAMPLES", "1300"))
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    negative_data_rejection,
]

SCHEMA = schemathesis.openapi.from_path(DOC)
OPERATIONS = {f"{op.method.upper()} {op.path}": op for op in (r.ok() for r in SCHEMA.get_all_operations())}
NOT_FUZZED = {"GET /accel/v1/stream", "PUT /accel/v1/identity/token", "DELETE /accel/v1/identity/token"}
# examples per operation: a JobRequest costs ~3x the generation time of the rest; an operation without
# parameters has one request only
HEAVY = {"POST /accel/v1/fit", "POST /accel/v1/jobs"}


def budget(label: str) -> int:
    op = OPERATIONS[label]
    if not op.body and not list(op.iter_parameters()):
        return 1
    return max(1, EXAMPLES * 6 // 13) if label in HEAVY else EXAMPLES


CASES: collections.Counter[str] = collections.Counter()
STATUSES: collections.Counter[tuple[str, int]] = collections.Counter()
FAILURES: list[str] = []
CREATED: dict[str, set[str]] = collections.defaultdict(set)  # kind (plural) -> names named by 2xx submits
STARTED = [0.0]


@pytest.fixture(scope="module")
def fuzz_server(throwaway_namespace, tmp_path_factory):
    server = JupyterProcess(tmp_path_factory.mktemp("fuzz-server"), throwaway_namespace.accel_config()).start()
    info = server.wait_connected()
    session = requests.Session()
    session.headers.update(server.headers)
    STARTED[0] = time.monotonic()
    try:
        yield server, session, info
    finally:
        session.close()
        server.stop()


def _record_created(case, response) -> None:
    if case.method.upper() == "POST" and case.path.endswith("/jobs") and response.status_code in (200, 201):
        body = response.json()
        CREATED[body["job"]["kind"]].add(body["job"]["name"])
        for obj in body.get("objects", []):
            kind, _, name = obj.partition("/")
            CREATED[kind].add(name)


@pytest.mark.parametrize("label", sorted(set(OPERATIONS) - NOT_FUZZED))
def test_fuzz_operation(label, fuzz_server):
    """Positive (schema-valid) and negative (schema-violating) requests of one operation, from schemathesis'
    strategies, driven by hypothesis; every answer validated."""
    server, session, _ = fuzz_server
    op = OPERATIONS[label]
    strategy = st.one_of(op.as_strategy(GenerationMode.POSITIVE), op.as_strategy(GenerationMode.NEGATIVE))

    @given(strategy)
    @settings(
        max_examples=budget(label),
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.generate],  # no shrinking: a failure is reported as found, with its curl line
    )
    def run(case):
        CASES[label] += 1
        try:
            response = case.call(base_url=server.base_url, session=session, timeout=20)
        except requests.RequestException as exc:
            FAILURES.append(f"{label}: no answer: {exc}")
            raise
        STATUSES[(label, response.status_code)] += 1
        try:
            case.validate_response(response, checks=CHECKS)
            if 400 <= response.status_code < 500:
                ctype = (response.headers.get("content-type") or [""])[0]  # schemathesis: lower-case keys, lists
                assert ctype.startswith("application/json"), (ctype, response.text[:300])
                body = response.json()
                assert isinstance(body, dict) and body.get("message"), f"4xx without a message: {response.text[:300]}"
        except BaseException as exc:  # schemathesis' FailureGroup, or the asserts above
            FAILURES.append(f"{label} -> {response.status_code}: {' | '.join(str(exc).splitlines()[:6])[:400]}")
            raise
        _record_created(case, response)

    run()


def test_fuzz_figures_and_nothing_left_by_refused_requests(fuzz_server, throwaway_namespace):
    """Runs after the fuzzing above (file order): shows the figures, then compares the namespace's objects with
    what the accepted submits named. Only POST jobs creates objects, so only 2xx submits may have left any."""
    _, _, info = fuzz_server
    total = sum(CASES.values())
    seconds = time.monotonic() - STARTED[0]
    note(f"fuzz: {total} schemathesis cases over {len(CASES)} operations in {seconds:.0f} s; {len(FAILURES)} failed")
    for label, n in sorted(CASES.items()):
        codes = ", ".join(f"{code}x{c}" for (lab, code), c in sorted(STATUSES.items()) if lab == label)
        note(f"fuzz:   {n:5d}  {label}  [{codes}]")
    for f in FAILURES:
        note(f"fuzz: FAILURE {f}")
    if os.environ.get("JA_FUZZ_EXAMPLES") is None:
        assert total >= 10_000, f"only {total} cases were generated"
    apis = info["capabilities"]["apis"]
    kinds = {
        "ray-cluster": f"/apis/ray.io/{apis['ray']}/namespaces/{{ns}}/rayclusters" if apis["ray"] else None,
        "ray-job": f"/apis/ray.io/{apis['ray']}/namespaces/{{ns}}/rayjobs" if apis["ray"] else None,
        "pytorch": f"/apis/kubeflow.org/{apis['pytorchjob']}/namespaces/{{ns}}/pytorchjobs"
        if apis["pytorchjob"]
        else None,
        "trainjob": f"/apis/trainer.kubeflow.org/{apis['trainjob']}/namespaces/{{ns}}/trainjobs"
        if apis["trainjob"]
        else None,
    }
    left: list[str] = []
    created_jobs = set()
    for kind, path in kinds.items():
        if path is None:
            continue
        names = throwaway_namespace.names(path)
        created_jobs |= names & CREATED[kind]
        left += [f"{kind}/{n}" for n in sorted(names - CREATED[kind])]
    ns = throwaway_namespace.name
    made = set().union(*CREATED.values())
    for cm in throwaway_namespace.admin.get(f"/api/v1/namespaces/{ns}/configmaps")["items"]:
        name, owners = cm["metadata"]["name"], {o["name"] for o in cm["metadata"].get("ownerReferences") or []}
        # an operator's own ConfigMap for a job a submit made (Trainer's runtime snapshot and status-server CA)
        if name != "kube-root-ca.crt" and name not in CREATED["ConfigMap"] and not owners & made:
            left.append(f"ConfigMap/{name} (owners {sorted(owners)})")
    workloads = throwaway_namespace.admin.get(f"/apis/kueue.x-k8s.io/{apis['kueue']}/namespaces/{ns}/workloads")
    for wl in workloads["items"]:
        owners = {o["name"] for o in wl["metadata"].get("ownerReferences") or []}
        if not owners & created_jobs and not owners & set().union(*CREATED.values()):
            left.append(f"Workload/{wl['metadata']['name']} (owners {sorted(owners)})")
    accepted = sum(c for (lab, code), c in STATUSES.items() if lab == "POST /accel/v1/jobs" and code in (200, 201))
    note(
        f"fuzz: {accepted} submits accepted ({json.dumps({k: len(v) for k, v in CREATED.items()})}); left by refused: {len(left)}"
    )
    assert not left, f"objects no accepted submit named: {left}"

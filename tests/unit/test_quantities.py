"""How a quantity reads: one rule (models/quantities.py) for the domain's sentences and the wire's text fields,
which the sidebar and the notebooks show as given."""

from __future__ import annotations

from decimal import Decimal

from jupyter_accel.models import (
    AcceleratorModelSummary,
    NodeAccelerators,
    PendingAhead,
    QuotaHeadroom,
    ResourceQuota,
    RoleFit,
)
from jupyter_accel.models.quantities import device_memory, format_quantity

GIB = 2**30


def test_amounts_in_the_units_people_read():
    assert format_quantity("memory", 64 * GIB) == "64Gi"
    assert format_quantity("memory", 1.5 * 2**40) == "1.5Ti"
    assert format_quantity("memory", Decimal(2**40 - 512 * GIB)) == "512Gi"
    assert format_quantity("ephemeral-storage", 512) == "512"
    assert format_quantity("cpu", 1.5) == "1.5" and format_quantity("cpu", 0.1 + 0.2) == "0.3"
    assert format_quantity("nvidia.com/gpu", 8.0) == "8"


def test_any_amount_a_request_may_carry_reads_without_error():
    # the fuzzer found "memory": "9999999999999999999999999999Ei": two places of it need more than Decimal's 28 digits
    huge = Decimal(9999999999999999999999999999 * 2**60)
    assert format_quantity("memory", huge) == "9999999999999999999999999999Ei"
    assert format_quantity("cpu", Decimal("1e40")) == "1" + "0" * 40
    assert format_quantity("nvidia.com/gpu", float("inf")) == "Infinity"


def test_device_memory_reads_like_the_product_name():
    assert device_memory(81559) == "80 GiB"
    assert device_memory(9728) == "9.5 GiB"
    assert device_memory(512) == "512 MiB"
    assert device_memory(None) is None


def test_the_wire_models_carry_the_text_beside_the_numbers():
    model = AcceleratorModelSummary(
        key="k", resource="nvidia.com/gpu", vendor="nvidia", vendor_name="NVIDIA", model="H100", memory_mib=81559,
        node_count=1, capacity=8, allocatable=8,
    )  # fmt: skip
    assert model.memory_text == "80 GiB"
    node = NodeAccelerators.model_validate(
        {
            "name": "n",
            "ready": True,
            "unschedulable": False,
            "usable": True,
            "cpu": {"allocatable": 96, "allocated": 10.5, "free": 85.5},
            "memory": {"allocatable": 2 * 2**40, "free": 2**40 - 512 * GIB},
        }
    )
    assert node.cpu.text == {"allocatable": "96", "allocated": "10.5", "free": "85.5"}
    assert node.memory.text == {"allocatable": "2Ti", "free": "512Gi"}
    quota = ResourceQuota(resource="memory", nominal=64 * GIB, usage=16 * GIB, borrowing_limit=None)
    assert quota.text == {"nominal": "64Gi", "usage": "16Gi"}
    row = QuotaHeadroom(
        role="worker", flavor="f", resource="nvidia.com/gpu", needed=4, needed_in_flavor=4, nominal=8, reserved=6,
        free=2, borrowable=0, available=2, max_capacity=8, fits_now=False, ever_fits=True,
    )  # fmt: skip
    assert row.text["needed_in_flavor"] == "4" and row.text["available"] == "2"
    role = RoleFit(role="worker", count=1, requests={"nvidia.com/gpu": 16, "memory": 64 * GIB})
    assert role.requests_text == {"nvidia.com/gpu": "16", "memory": "64Gi"}
    assert PendingAhead(name="w", requests={"cpu": 0.5}).requests_text == {"cpu": "0.5"}
    # an answer parsed from the wire keeps the server's text
    sent = {"resource": "memory", "nominal": 1.0, "text": {"nominal": "as sent"}}
    assert ResourceQuota.model_validate(sent).text == {"nominal": "as sent"}


def test_a_queue_resource_in_one_sentence():
    from jupyter_accel.domain.queues import quota_summary

    gpu = ResourceQuota(resource="nvidia.com/gpu", nominal=8, usage=2, reserved=3, borrowable=4)
    assert quota_summary(gpu) == "nvidia.com/gpu: 2 used, 1 reserved of 8 nominal, 4 borrowable"
    memory = ResourceQuota(resource="memory", nominal=64 * GIB, usage=16 * GIB, reserved=16 * GIB)
    assert quota_summary(memory) == "memory: 16Gi used of 64Gi nominal"
    hidden = ResourceQuota(resource="nvidia.com/gpu", usage=None, reserved=2)  # only the LocalQueue's own figures
    assert quota_summary(hidden) == "nvidia.com/gpu: 0 used, 2 reserved of 0 nominal"

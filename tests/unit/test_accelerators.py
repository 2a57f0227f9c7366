"""Accelerator registry: defaults, admin config in Kubeflow's spawner shape, name checks."""

from __future__ import annotations

import pytest

from jupyter_accel.domain.accelerators import AcceleratorRegistry


def test_defaults_classify_vendor_families():
    reg = AcceleratorRegistry()
    assert reg.classify("nvidia.com/gpu").vendor == "nvidia"
    mig = reg.classify("nvidia.com/mig-3g.40gb")
    assert (mig.vendor, mig.mig_profile, mig.ui_name) == ("nvidia", "3g.40gb", "NVIDIA MIG 3g.40gb")
    assert reg.classify("amd.com/gpu").vendor == "amd"
    assert reg.classify("habana.ai/gaudi").ui_name == "Intel Gaudi"
    assert reg.classify("gpu.intel.com/xe").vendor == "intel"
    for plain in ("cpu", "memory", "pods", "ephemeral-storage", "hugepages-2Mi"):
        assert reg.classify(plain) is None


def test_admin_config_wins_over_defaults_and_adds_names():
    reg = AcceleratorRegistry.from_config(
        {
            "vendors": [
                {"limitsKey": "nvidia.com/gpu", "uiName": "NVIDIA H100 pool"},
                {"limitsKey": "aws.amazon.com/neuroncore", "uiName": "AWS Neuron"},
            ]
        }
    )
    assert reg.classify("nvidia.com/gpu").ui_name == "NVIDIA H100 pool"
    neuron = reg.classify("aws.amazon.com/neuroncore")
    assert (neuron.vendor, neuron.ui_name) == ("aws.amazon.com", "AWS Neuron")
    assert reg.classify("amd.com/gpu") is not None  # defaults kept


def test_config_without_defaults_and_bare_list():
    reg = AcceleratorRegistry.from_config([{"limitsKey": "example.com/fpga", "uiName": "FPGA"}], include_defaults=False)
    assert reg.is_accelerator("example.com/fpga")
    assert not reg.is_accelerator("nvidia.com/gpu")


@pytest.mark.parametrize(
    "bad, field",
    [
        ({"vendors": [{"uiName": "x"}]}, "accelerators.vendors[0].limitsKey"),
        ({"vendors": [{"limitsKey": "a*b/gpu"}]}, "accelerators.vendors[0].limitsKey"),
        ({"vendors": "nvidia.com/gpu"}, "accelerators.vendors"),
    ],
)
def test_bad_config_names_the_field(bad, field):
    with pytest.raises(ValueError, match=field.replace("[", r"\[").replace("]", r"\]")):
        AcceleratorRegistry.from_config(bad)


def test_known_names_merge_exact_keys_with_discovered_pattern_matches():
    reg = AcceleratorRegistry()
    names = reg.known_names(["nvidia.com/mig-1g.10gb", "cpu", "gpu.intel.com/i915"])
    assert "nvidia.com/mig-1g.10gb" in names and "gpu.intel.com/i915" in names
    assert "cpu" not in names and "nvidia.com/mig-*" not in names
    assert names == sorted(names)


def test_check_name_rejects_unknown_with_allowed_list():
    reg = AcceleratorRegistry()
    assert reg.check_name("nvidia.com/mig-2g.20gb") == "nvidia.com/mig-2g.20gb"
    with pytest.raises(ValueError) as info:
        reg.check_name("nvidia.com/gpus", field="workers.gpu_type")
    msg = str(info.value)
    assert msg.startswith("workers.gpu_type: 'nvidia.com/gpus' is not a known accelerator")
    assert "nvidia.com/gpu," in msg and "nvidia.com/mig-*" in msg

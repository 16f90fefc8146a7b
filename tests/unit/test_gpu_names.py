"""GPU model names as nvidia-smi and people write them map to one catalog name (pure, no Pulumi)."""

import pytest

from gpukit.components.catalog.gpu_names import (
    AmbiguousGpuModelError,
    UnknownGpuNameError,
    canonical_gpu_name,
    label_safe,
    normalise,
    suggest_models,
)
from gpukit.components.catalog.gpus import GPU_MODELS, Architecture, gpu_model

# Names as nvidia-smi prints them, each seen in public nvidia-smi output, logs or test fixtures
# (GitHub code search, 2026-12; see components/catalog/gpu_names.py).
NVIDIA_SMI_NAMES = [
    ("NVIDIA GeForce RTX 4090", "RTX-4090"),
    ("NVIDIA GeForce RTX 5090", "RTX-5090"),
    ("NVIDIA RTX A6000", "RTX-A6000"),
    ("NVIDIA RTX 6000 Ada Generation", "RTX-6000-Ada"),
    ("NVIDIA H100 80GB HBM3", "H100"),
    ("NVIDIA H100 PCIe", "H100"),
    ("NVIDIA H100 NVL", "H100-NVL"),
    ("NVIDIA H200", "H200"),
    ("NVIDIA A100-SXM4-80GB", "A100-80GB"),
    ("NVIDIA A100-PCIE-40GB", "A100-40GB"),
    ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "RTX-PRO-6000"),
    ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "RTX-PRO-6000"),
    ("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "RTX-PRO-6000"),
    ("NVIDIA L40S", "L40S"),
    ("NVIDIA L40", "L40"),
    ("NVIDIA A10", "A10"),
]

PEOPLES_NAMES = [
    ("GeForce RTX 4090", "RTX-4090"),
    ("RTX 4090", "RTX-4090"),
    ("rtx4090", "RTX-4090"),
    ("4090", "RTX-4090"),
    ("rtx_4090", "RTX-4090"),
    ("RTX 6000 Ada Generation", "RTX-6000-Ada"),
    ("H100 PCIe", "H100"),
    ("A100 80GB PCIe", "A100-80GB"),
    ("h100-nvl", "H100-NVL"),
    ("a30", "A30"),
    ("Tesla T4", "T4"),
]


@pytest.mark.parametrize(("name", "canonical"), NVIDIA_SMI_NAMES + PEOPLES_NAMES)
def test_spellings_map_to_one_catalog_name(name: str, canonical: str) -> None:
    assert canonical_gpu_name(name) == canonical


def test_every_catalog_name_maps_to_itself_in_any_case() -> None:
    for name in GPU_MODELS:
        assert canonical_gpu_name(name) == name
        assert canonical_gpu_name(name.lower()) == name


def test_normalisation_drops_vendor_words_case_and_separators() -> None:
    assert normalise("NVIDIA GeForce RTX 4090") == "rtx4090"
    assert normalise("NVIDIA RTX 6000 Ada Generation") == "rtx6000ada"
    assert normalise("NVIDIA A100-SXM4-80GB") == "a100sxm480gb"


@pytest.mark.parametrize(
    ("name", "candidates"),
    [
        ("A100", ("A100-40GB", "A100-80GB")),
        ("a-100", ("A100-40GB", "A100-80GB")),
        ("6000", ("RTX-6000-Ada", "RTX-A6000", "RTX-PRO-6000")),
        ("RTX 6000", ("RTX-6000-Ada", "RTX-PRO-6000")),
    ],
)
def test_ambiguous_short_names_are_refused_with_candidates(name: str, candidates: tuple[str, ...]) -> None:
    with pytest.raises(AmbiguousGpuModelError) as err:
        canonical_gpu_name(name)
    assert err.value.candidates == candidates


@pytest.mark.parametrize(
    ("name", "suggestions"),
    [
        ("rtx4900", ["RTX-4090"]),
        ("L40x", ["L40", "L40S"]),
        ("RTX 4080 SUPER", []),
        ("GTX 1080", []),
        ("x", []),
    ],
)
def test_unknown_names_suggest_only_close_models(name: str, suggestions: list[str]) -> None:
    with pytest.raises(UnknownGpuNameError) as err:
        canonical_gpu_name(name)
    assert err.value.suggestions == suggestions == suggest_models(name)


def test_new_catalog_models_carry_their_sourced_facts() -> None:
    rtx4090 = gpu_model("RTX-4090")
    assert (rtx4090.memory_gb, rtx4090.architecture, rtx4090.compute_capability) == (
        24,
        Architecture.ADA,
        "8.9",
    )
    assert not rtx4090.mig_capable
    assert gpu_model("RTX-5090").architecture == Architecture.BLACKWELL
    assert gpu_model("A30").mig_profiles == ("1g.6gb", "2g.12gb", "4g.24gb")
    assert gpu_model("H100-NVL").memory_gb == 94
    assert gpu_model("H200-NVL").mig_profiles == gpu_model("H200").mig_profiles


def test_declared_names_become_label_values() -> None:
    assert label_safe("RTX 4080 SUPER") == "RTX-4080-SUPER"
    assert label_safe("  (x) ") == "x"
    assert label_safe("...") == ""

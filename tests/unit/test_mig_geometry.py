"""MIG geometry in the GPU catalog: which layouts fit one GPU, checked against NVIDIA's stock layouts."""

from itertools import product
from typing import Any

import pytest
import yaml

from gpukit.components.catalog.gpus import GPU_MODELS, fits, gpu_model, max_layouts
from gpukit.components.catalog.mig import MigGeometry, MigProfile, layout_fits
from harness import GPU_OPERATOR_REFERENCE

MIG_CONFIG = GPU_OPERATOR_REFERENCE / "mig-parted-default-config.yaml"
MIG_MODELS = [g for g in GPU_MODELS.values() if g.mig_capable]

# PCI device IDs of each catalog model as the vendored mig-parted config's `device-filter`s name them
# (ID = device << 16 | 0x10DE). Sources: gpu-facts §2.2 (0x2330 H100 80GB, 0x2335 H200, 0x2901 B200,
# 0x20B0 A100 40GB, 0x2BB5 RTX PRO 6000) and the PCI ID repository (pci-ids.ucw.cz: 0x20B2
# A100-SXM4-80GB, 0x20B5 A100 80GB PCIe, 0x20B1 A100 PCIe 40GB, 0x2331 H100 PCIe).
PCI_IDS = {
    "A100-40GB": {"0x20B010DE", "0x20B110DE"},
    "A100-80GB": {"0x20B210DE", "0x20B510DE"},
    "H100": {"0x233010DE", "0x233110DE"},
    "H200": {"0x233510DE"},
    "B200": {"0x290110DE"},
    "RTX-PRO-6000": {"0x2BB510DE"},
    # The config's own comments: "A30-24GB" 0x20B7; "H100 NVL, H800 NVL" 0x2321, 0x233A; "H200 141GB,
    # H200 NVL" 0x2335, 0x233B.
    "A30": {"0x20B710DE"},
    "H100-NVL": {"0x232110DE", "0x233A10DE"},
    "H200-NVL": {"0x233510DE", "0x233B10DE"},
}


def _stock_configs() -> dict[str, list[dict[str, Any]]]:
    configmap = yaml.safe_load(MIG_CONFIG.read_text())
    return yaml.safe_load(configmap["data"]["config.yaml"])["mig-configs"]


def _stock_layouts(model: str) -> list[tuple[str, dict[str, int]]]:
    """Every `all-*` layout the stock config applies to `model`: entries whose device filter names the
    model, or that have none and use only profiles the model has (variants like +me are left out)."""
    found = []
    profiles = set(gpu_model(model).mig_profiles)
    for name, entries in _stock_configs().items():
        for entry in entries:
            devices = entry.get("mig-devices") or {}
            filters = entry.get("device-filter")
            filters = {filters} if isinstance(filters, str) else set(filters or ())
            if not devices or not set(devices) <= profiles:
                continue
            if filters and not filters & PCI_IDS[model]:
                continue
            found.append((name, devices))
    return found


@pytest.mark.parametrize("model", [g.name for g in MIG_MODELS])
def test_every_stock_layout_fits(model):
    layouts = _stock_layouts(model)
    # Each model has at least all-<profile> for each of its profiles and its all-balanced entry.
    assert len(layouts) >= len(gpu_model(model).mig_profiles) + 1, layouts
    assert [(name, layout) for name, layout in layouts if not fits(model, layout)] == []
    if model != "RTX-PRO-6000":
        assert "all-balanced" in {n for n, _ in layouts}


@pytest.mark.parametrize("model", [g.name for g in MIG_MODELS])
def test_one_more_instance_than_the_stock_all_profile_layout_does_not_fit(model):
    for name, layout in _stock_layouts(model):
        if name.startswith("all-") and name != "all-balanced" and len(layout) == 1:
            ((profile, count),) = layout.items()
            assert not fits(model, {profile: count + 1}), (name, layout)


@pytest.mark.parametrize(
    ("layout", "expected"),
    [
        ({"1g.10gb": 7}, True),
        ({"1g.10gb": 8}, False),  # 7 compute slices
        ({"4g.40gb": 1, "3g.40gb": 1}, True),
        ({"3g.40gb": 2, "1g.10gb": 1}, False),  # two 3g take all 8 memory slices
        ({"3g.40gb": 1, "2g.20gb": 2}, True),
        ({"2g.20gb": 3, "1g.10gb": 1}, True),
        ({"1g.20gb": 3, "1g.10gb": 2}, True),  # 1g.20gb at 2, 4, 6 and 1g.10gb at 0, 1
        ({"4g.40gb": 1, "1g.20gb": 1, "1g.10gb": 2}, True),
        ({"4g.40gb": 2}, False),  # 4g starts at slice 0 only
        ({"7g.80gb": 1, "1g.10gb": 1}, False),
        ({"1g.20gb": 5}, False),
        ({"1g.5gb": 1}, False),  # an A100-40GB profile
        ({"1g.10gb": -1}, False),
        ({}, True),
    ],
)
def test_h100_layouts(layout, expected):
    assert fits("H100", layout) is expected


def test_models_without_mig_fit_nothing():
    assert not fits("L4", {"1g.10gb": 1})
    assert max_layouts("L4") == ()


def test_placements_are_checked_not_just_slice_sums():
    # A made-up geometry where the sums allow what placement forbids: two 2-slice instances that may
    # both only start at slice 0.
    geometry = MigGeometry(7, 8, (MigProfile("2g.20gb", 2, 2, (0,), 3),))
    assert not layout_fits(geometry, {"2g.20gb": 2})
    unplaced = MigGeometry(7, 8, (MigProfile("2g.20gb", 2, 2, None, 3),))
    assert layout_fits(unplaced, {"2g.20gb": 2})


@pytest.mark.parametrize("model", [g.name for g in MIG_MODELS if g.mig and g.mig.compute_slices == 7])
def test_placements_agree_with_slice_sums_and_stock_maxima(model):
    """On the 7-slice GPUs, NVIDIA's placements reject nothing that slice sums and the stock per-profile
    maxima accept: sizing with counts is exact there (a changed placement table shows up here)."""
    geometry = gpu_model(model).mig
    assert geometry is not None
    counted = MigGeometry(
        geometry.compute_slices,
        geometry.memory_slices,
        tuple(
            MigProfile(p.name, p.compute_slices, p.memory_slices, None, p.max_per_gpu)
            for p in geometry.profiles
        ),
    )
    for counts in product(*(range(p.max_per_gpu + 2) for p in geometry.profiles)):
        layout = {p.name: c for p, c in zip(geometry.profiles, counts, strict=True) if c}
        assert layout_fits(geometry, layout) == layout_fits(counted, layout), layout


@pytest.mark.parametrize("model", [g.name for g in MIG_MODELS])
def test_maximal_layouts_fit_cannot_grow_and_cover_every_layout(model):
    geometry = gpu_model(model).mig
    assert geometry is not None
    maximal = max_layouts(model)
    assert maximal
    for layout in maximal:
        assert fits(model, layout)
        for p in geometry.profiles:
            assert not fits(model, {**layout, p.name: layout.get(p.name, 0) + 1})
    for counts in product(*(range(p.max_per_gpu + 1) for p in geometry.profiles)):
        layout = {p.name: c for p, c in zip(geometry.profiles, counts, strict=True) if c}
        if fits(model, layout):
            assert any(all(m.get(k, 0) >= v for k, v in layout.items()) for m in maximal), layout


def test_profile_geometry_facts():
    geometry = gpu_model("H100").mig
    assert geometry is not None
    assert (geometry.compute_slices, geometry.memory_slices) == (7, 8)
    three = geometry.profile("3g.40gb")
    assert (three.compute_slices, three.memory_slices, three.memory_gb) == (3, 4, 40)
    assert gpu_model("A100-40GB").mig.profile("1g.10gb").memory_slices == 2  # type: ignore[union-attr]
    rtx = gpu_model("RTX-PRO-6000").mig
    assert rtx is not None and (rtx.compute_slices, rtx.memory_slices) == (4, 4)
    # A profile's GB is its memory slices' share of the GPU's memory (rounded down in the name).
    for model in MIG_MODELS:
        assert model.mig is not None
        for p in model.mig.profiles:
            assert p.memory_gb == pytest.approx(
                model.memory_gb * p.memory_slices / model.mig.memory_slices, abs=1
            )

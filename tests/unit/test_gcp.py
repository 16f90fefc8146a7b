"""Pure GCP pieces: the machine catalog, accelerator zones, subnet ranges, placement, driver modes."""

import ipaddress

import pytest

from gpukit.components.catalog.gpus import GPU_MODELS
from gpukit.components.preflight import driver_branch_for
from gpukit.components.resolve.config import resolve_config
from gpukit.components.spec import DriverMode, GkeDriverVersion, Platform, Provider
from gpukit.components.substrate import ResolvedCluster
from gpukit.providers.gcp.catalog import (
    ACCELERATOR_ZONES,
    GCP_CATALOG,
    GCP_MACHINE_TYPES,
    accelerator_zones,
)
from gpukit.providers.gcp.gke.gpu_software import gke_gpu_node_software
from gpukit.providers.gcp.gke.node_pool import (
    disk_type,
    gpu_driver_version,
    image_type,
    pool_labels,
    secure_boot,
)
from gpukit.providers.gcp.placement import cluster_location, pool_zones
from gpukit.providers.gcp.ranges import overlaps, subnet_ranges
from harness import example_config, pool_facts, substrate


def test_every_gpu_machine_names_a_known_gpu_and_an_accelerator_with_a_zone_table_or_none() -> None:
    for machine in GCP_MACHINE_TYPES.values():
        if machine.has_gpu:
            assert machine.gpu_model in GPU_MODELS, machine.name
            assert machine.accelerator_type and machine.accelerator_type.startswith("nvidia-"), machine.name
        if machine.price_per_hour is None:
            assert machine.price_note, f"{machine.name}: an unknown price must say why"


@pytest.mark.parametrize(
    ("name", "accelerator", "count"),
    [
        ("g2-standard-8", "nvidia-l4", 1),
        ("g2-standard-24", "nvidia-l4", 2),
        ("a2-highgpu-8g", "nvidia-tesla-a100", 8),
        ("a2-ultragpu-1g", "nvidia-a100-80gb", 1),
        ("a3-highgpu-8g", "nvidia-h100-80gb", 8),
        ("a3-megagpu-8g", "nvidia-h100-mega-80gb", 8),
        ("a3-ultragpu-8g", "nvidia-h200-141gb", 8),
        ("a4-highgpu-8g", "nvidia-b200", 8),
        ("g4-standard-384", "nvidia-rtx-pro-6000", 8),
    ],
)
def test_machine_to_accelerator(name: str, accelerator: str, count: int) -> None:
    machine = GCP_MACHINE_TYPES[name]
    assert (machine.accelerator_type, machine.gpu_count) == (accelerator, count)


def test_hyperdisk_only_families() -> None:
    only = {m.name.rsplit("-", 1)[0] for m in GCP_MACHINE_TYPES.values() if m.hyperdisk_only}
    assert only == {"a3-ultragpu", "a4-highgpu", "g4-standard"}


def test_n1_with_attached_t4s_is_priced_as_machine_plus_gpus() -> None:
    machine = GCP_CATALOG.pool_instance("n1-standard-8", {"model": "T4", "count": 2})
    assert (machine.gpu_model, machine.gpu_count, machine.accelerator_type) == ("T4", 2, "nvidia-tesla-t4")
    assert machine.price_per_hour == pytest.approx(0.38 + 2 * 0.35)
    assert GCP_CATALOG.machine("n1-standard-8").has_gpu is False


def test_accelerator_zones() -> None:
    assert accelerator_zones("nvidia-h200-141gb", "us-central1") == ["us-central1-b"]
    assert accelerator_zones("nvidia-h200-141gb", "asia-southeast1") == []  # a known region without it
    assert accelerator_zones("nvidia-rtx-pro-6000", "us-central1") is None  # no data: pools name zones
    assert accelerator_zones("nvidia-l4", "mars-north1") is None
    for regions in ACCELERATOR_ZONES.values():
        assert all(zones and set(zones) <= set("abcdef") for zones in regions.values())


def test_default_subnet_ranges_do_not_overlap_and_fit_in_the_cidr() -> None:
    for prefix in range(16, 21):
        cidr = f"10.60.0.0/{prefix}"
        ranges = subnet_ranges(cidr)
        assert overlaps(ranges) == []
        vpc = ipaddress.IPv4Network(cidr)
        for r in (ranges.nodes, ranges.pods, ranges.services):
            assert ipaddress.IPv4Network(r).subnet_of(vpc)
    assert subnet_ranges("10.60.0.0/16").max_nodes == 128
    assert subnet_ranges("10.60.0.0/16", pods="100.64.0.0/14").max_nodes == 1024


def test_overlapping_explicit_ranges_are_found() -> None:
    # 10.60.0.0/17 covers both the nodes /18 and the default services /20 (10.60.64.0/20).
    assert overlaps(subnet_ranges("10.60.0.0/16", pods="10.60.0.0/17")) == [
        ("nodes", "pods"),
        ("pods", "services"),
    ]
    assert overlaps(subnet_ranges("10.60.0.0/16", services="10.60.0.0/24")) == [("nodes", "services")]


def _gke_cluster(**extra: object) -> dict[str, object]:
    return {"name": "c", "platform": Platform.GKE, "region": "us-central1", **extra}


def test_pool_zones_follow_the_gpu_and_the_cluster_location() -> None:
    l4 = pool_facts(
        {"name": "l4", "instance_type": "g2-standard-8", "min_nodes": 0, "max_nodes": 2}, Provider.GCP
    )
    cpu = pool_facts(
        {"name": "sys", "instance_type": "e2-standard-4", "min_nodes": 1, "max_nodes": 2}, Provider.GCP
    )
    regional, zonal = _gke_cluster(), _gke_cluster(zone="us-central1-c")
    assert cluster_location(regional) == "us-central1"  # type: ignore[arg-type]
    assert cluster_location(zonal) == "us-central1-c"  # type: ignore[arg-type]
    assert pool_zones(regional, l4) == ["us-central1-a", "us-central1-b", "us-central1-c"]  # type: ignore[arg-type]
    assert pool_zones(zonal, l4) == ["us-central1-c"]  # type: ignore[arg-type]
    assert pool_zones(regional, cpu) == []  # type: ignore[arg-type]
    assert pool_zones(zonal, cpu) == ["us-central1-c"]  # type: ignore[arg-type]


def test_node_pool_settings_per_driver_mode() -> None:
    l4 = pool_facts(
        {"name": "l4", "instance_type": "g2-standard-8", "min_nodes": 0, "max_nodes": 2}, Provider.GCP
    )
    assert gpu_driver_version(DriverMode.PREINSTALLED, GkeDriverVersion.LATEST) == "LATEST"
    assert gpu_driver_version(DriverMode.PREINSTALLED, GkeDriverVersion.DEFAULT) == "DEFAULT"
    assert gpu_driver_version(DriverMode.OPERATOR, GkeDriverVersion.DEFAULT) == "INSTALLATION_DISABLED"
    assert image_type(l4, DriverMode.PREINSTALLED) == "COS_CONTAINERD"
    assert image_type(l4, DriverMode.OPERATOR) == "UBUNTU_CONTAINERD"
    assert secure_boot(l4, DriverMode.PREINSTALLED) is True
    assert secure_boot(l4, DriverMode.OPERATOR) is False
    assert "gke-no-default-nvidia-gpu-device-plugin" not in pool_labels(l4, DriverMode.PREINSTALLED)
    assert pool_labels(l4, DriverMode.OPERATOR)["gke-no-default-nvidia-gpu-device-plugin"] == "true"
    assert disk_type(l4) == "pd-balanced"
    a4 = pool_facts(
        {"name": "b", "instance_type": "a4-highgpu-8g", "min_nodes": 0, "max_nodes": 1}, Provider.GCP
    )
    assert disk_type(a4) == "hyperdisk-balanced"
    assert l4.taints[0].value == "present"  # GKE's own taint value: no drift


def test_gke_node_software() -> None:
    managed = gke_gpu_node_software(DriverMode.PREINSTALLED, GkeDriverVersion.LATEST)
    assert managed.runs_gpu_operator is False
    assert any(o.name == "DCGM metrics" and o.runs for o in managed.platform_operands)
    operator = gke_gpu_node_software(DriverMode.OPERATOR, GkeDriverVersion.DEFAULT)
    assert operator.runs_gpu_operator and operator.needs_priority_quota
    assert not operator.driver_preinstalled and not operator.toolkit_preinstalled
    assert operator.toolkit_env == (("RUNTIME_CONFIG_SOURCE", "file"),)


@pytest.mark.parametrize(
    ("driver", "version", "branch"),
    [
        (DriverMode.PREINSTALLED, "default", 535),
        (DriverMode.PREINSTALLED, "latest", 580),
        (DriverMode.OPERATOR, None, 595),
    ],
)
def test_driver_branch_per_gke_driver_choice(driver: DriverMode, version: str | None, branch: int) -> None:
    operator: dict[str, object] = {"chart_version": "v26.7.0", "driver": driver}
    if version:
        operator["gke_driver_version"] = GkeDriverVersion(version)
    args = {"cluster": _gke_cluster(), "gpu_operator": operator, "node_pools": []}
    l4 = pool_facts(
        {"name": "l4", "instance_type": "g2-standard-8", "min_nodes": 0, "max_nodes": 2}, Provider.GCP
    )
    cluster = ResolvedCluster(args, substrate("gke"), (l4,))  # type: ignore[arg-type]
    assert driver_branch_for(cluster, l4) == branch


def test_operator_shared_gke_pools_at_zero_warn_of_over_scaling() -> None:
    """GKE's autoscaler sizes a scale-up from zero by the node pool's GPUs, not the GPU Operator's
    shares (issue 29, point 7): the plan says so for a shared pool at minNodes 0 with driver: operator,
    and not with GKE's own sharing."""

    def findings(driver: str) -> list[str]:
        config = example_config("gke-dev")
        config["gpukit:gpuOperator"] = {"chartVersion": "v26.7.0", "driver": driver}
        config["gpukit:nodePools"][1]["sharing"] = {"mode": "time-slicing", "replicas": 4}
        cluster: ResolvedCluster = resolve_config(config)
        return [f.key for f in cluster.substrate.findings(cluster)]

    assert "gpukit:nodePools[1].sharing" in findings("operator")
    assert "gpukit:nodePools[1].sharing" not in findings("preinstalled")

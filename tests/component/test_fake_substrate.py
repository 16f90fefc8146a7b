"""GpuCluster's own logic, apart from any cloud: a fake substrate stands in the registry.

What GpuCluster decides itself (whether the GPU Operator runs and with what, the pool outputs, what a
plan reports) must hold whatever substrate builds the machines; the substrate only contributes
through its protocol.
"""

from collections.abc import Mapping
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest

from gpukit.components import ClusterHandle, GpuCluster, Platform, Provider, Substrate
from gpukit.components.catalog.instances import InstanceType, MachineCatalog, PriceBasis
from gpukit.components.config.schema import CLOUD_MACHINE_KEYS, CLOUD_MACHINE_REQUIRED
from gpukit.components.node_software import GpuNodeSoftware
from gpukit.components.plan_fakes import PlanFakes
from gpukit.components.pools import PoolFacts
from gpukit.components.pricing import Charge
from gpukit.components.substrate import ResolvedCluster
from gpukit.plan import plan_program
from gpukit.plan.report import render_text
from harness import Recording, record, unsecret

OPERATOR_SOFTWARE = GpuNodeSoftware(
    driver_preinstalled=True,
    toolkit_preinstalled=False,
    summary="fake image with a driver",
    toolkit_env=(("FAKE_SOCKET", "/run/fake.sock"),),
    needs_priority_quota=True,
)


class FakeSubstrate(Substrate):
    platform = Platform.EKS  # the key it stands under in the swapped registry
    provider = Provider.AWS
    name = "fake"
    title = "a fake substrate"
    where = "the fake substrate"
    builds_machines = True
    sdk = None
    settings = ()
    accepts = CLOUD_MACHINE_KEYS
    requires = CLOUD_MACHINE_REQUIRED
    catalog = MachineCatalog(
        cloud="fake",
        source="tests/component/test_fake_substrate.py",
        price_basis=PriceBasis("nowhere", "today", "the test"),
        machines={
            "cpu.small": InstanceType("cpu.small", 2, 8, 0.25),
            "gpu.one": InstanceType("gpu.one", 8, 32, 2.0, "L4", 1),
        },
    )
    gpu_taint_value = "fake"

    def __init__(self, software: GpuNodeSoftware = OPERATOR_SOFTWARE) -> None:
        self.software = software
        self.built: list[ResolvedCluster] = []

    def gpu_node_software(self, cluster: ResolvedCluster) -> GpuNodeSoftware:
        return self.software

    def preinstalled_driver_branch(self, cluster: ResolvedCluster, pool: PoolFacts) -> int | None:
        return 580

    def charges(self, cluster: ResolvedCluster) -> list[Charge]:
        return [Charge("fake control plane", 1.0, 1.0)]

    def plan_fakes(self, config: Mapping[str, Any]) -> PlanFakes | None:
        return None

    def build(self, name: str, cluster: ResolvedCluster, parent: pulumi.Resource) -> ClusterHandle:
        self.built.append(cluster)
        kubernetes = k8s.Provider(
            f"{name}-k8s", kubeconfig="fake", opts=pulumi.ResourceOptions(parent=parent)
        )
        return ClusterHandle(
            name=pulumi.Output.from_input(cluster.name),
            kubeconfig=pulumi.Output.secret("fake kubeconfig"),
            kubernetes=kubernetes,
            storage_summary="fake storage",
        )


def args(*pools: dict[str, Any]) -> dict[str, Any]:
    return {
        "cluster": {
            "name": "fake",
            "platform": "eks",
            "kubernetes_version": "1.35",
            "network": {"cidr": "10.0.0.0/16"},
            "api_access_cidrs": [],
        },
        "node_pools": list(pools)
        or [
            {"name": "system", "instance_type": "cpu.small", "min_nodes": 1, "max_nodes": 1},
            {"name": "gpus", "instance_type": "gpu.one", "min_nodes": 0, "max_nodes": 3},
        ],
        "gpu_operator": {"chart_version": "v26.7.0", "driver": "preinstalled"},
    }


def build(cluster_args: dict[str, Any]) -> tuple[Recording, list[GpuCluster]]:
    made: list[GpuCluster] = []
    rec = record(lambda: made.append(GpuCluster("fake", cluster_args)))  # type: ignore[arg-type]
    return rec, made


def test_the_substrate_builds_from_validated_facts(fake: FakeSubstrate) -> None:
    build(args())
    (cluster,) = fake.built
    assert [(p.name, p.instance.name, p.is_gpu) for p in cluster.pools] == [
        ("system", "cpu.small", False),
        ("gpus", "gpu.one", True),
    ]
    assert cluster.pools[1].taints[0].value == "fake"  # the substrate's taint value


def test_the_operator_runs_with_what_the_nodes_lack(fake: FakeSubstrate) -> None:
    rec, _ = build(args())
    values = rec.one("kubernetes:helm.sh/v3:Release").inputs["values"]
    assert values["driver"] == {"enabled": False}  # the image has one
    assert values["toolkit"] == {"enabled": True, "env": [{"name": "FAKE_SOCKET", "value": "/run/fake.sock"}]}
    assert values["daemonsets"]["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    ]
    assert rec.one("kubernetes:core/v1:ResourceQuota")  # the substrate asked for it
    release = rec.one("kubernetes:helm.sh/v3:Release")
    assert rec.parent_of(rec.parent_of(release)).type == "gpukit:index:GpuCluster"  # type: ignore[union-attr]


def test_no_operator_where_the_platform_runs_the_gpu_stack(fake: FakeSubstrate) -> None:
    fake.software = GpuNodeSoftware(True, True, "the platform's own", runs_gpu_operator=False)
    rec, _ = build(args())
    assert rec.of_type("kubernetes:helm.sh/v3:Release") == []


def test_no_operator_without_a_gpu_pool(fake: FakeSubstrate) -> None:
    rec, _ = build(args({"name": "system", "instance_type": "cpu.small", "min_nodes": 1, "max_nodes": 1}))
    assert rec.of_type("kubernetes:helm.sh/v3:Release") == []


def test_pool_outputs_and_secret_kubeconfig(fake: FakeSubstrate) -> None:
    seen: dict[str, bool] = {}

    async def program() -> None:
        cluster = GpuCluster("fake", args())  # type: ignore[arg-type]
        seen["secret"] = await cluster.kubeconfig.is_secret()
        assert cluster.pools[1] == {
            "name": "gpus",
            "instanceType": "gpu.one",
            "gpuModel": "L4",
            "gpusPerNode": 1,
            "minNodes": 0,
            "maxNodes": 3,
            "capacity": "on-demand",
            "labels": {
                "gpukit.dev/pool": "gpus",
                "gpukit.dev/gpu-model": "L4",
                "nvidia.com/gpu.present": "true",
            },
            "taints": ["nvidia.com/gpu=fake:NoSchedule"],
            "interconnect": None,  # the interconnect add-on's key: the fake sets up no fabric
        }

    record(program)
    assert seen == {"secret": True}


def test_validation_follows_the_substrates_declarations(fake: FakeSubstrate) -> None:
    from gpukit.components import ConfigError

    bad = args()
    bad["node_pools"][1]["node_image"] = "al2023"  # an EKS key the fake does not take
    bad["node_pools"][1]["instance_type"] = "gpu.two"
    with pytest.raises(ConfigError) as raised:
        build(bad)
    assert [str(p) for p in raised.value.problems] == [
        "gpukit:nodePools[1].instanceType: unknown fake instance type 'gpu.two'; did you mean gpu.one?",
        "gpukit:nodePools[1].nodeImage: no substrate gpukit knows takes it; this cluster is a fake substrate",
    ]
    assert fake.built == []


def test_the_report_shows_the_substrates_prices_and_charges(fake: FakeSubstrate) -> None:
    plan = plan_program(lambda: GpuCluster("fake", args()))  # type: ignore[arg-type]
    text = render_text(plan.clusters[0])
    assert "Cost (list prices in nowhere, today; USD per hour):" in text
    assert "  fake control plane: $1.00" in text
    assert "  total at idle (min nodes): $1.25" in text  # the charge and one cpu.small
    assert "  total at max (max nodes):  $7.25" in text  # and three gpu.one
    assert "Storage: fake storage" in text
    assert unsecret(
        next(r for r in plan.resources if r.type == "pulumi:providers:kubernetes").inputs["kubeconfig"]
    )

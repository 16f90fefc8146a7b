"""The fabric table, the EFA interface layout against EC2's and Karpenter's rules, the VPC CNI floor, and
the EFA device plugin's values against its vendored chart."""

from pathlib import Path
from typing import Any

import pytest
import yaml
from karpenter_crds import KARPENTER_REFERENCE

from gpukit.components.addons.interconnect.device_plugins import EFA_DEVICE_PLUGIN, device_plugin_values
from gpukit.components.catalog.fabrics import FabricKind, MachineFabric, machine_fabric
from gpukit.components.name_rules import ResourceNameError
from gpukit.components.pools import FABRIC_LABEL
from gpukit.components.spec import Interconnect
from gpukit.providers.aws.catalog import AWS_INSTANCE_TYPES
from gpukit.providers.aws.efa import (
    EFA_ONLY,
    INTERFACE,
    efa_count,
    efa_layout,
    efa_nccl_env,
    launch_template_interfaces,
    node_class_interfaces,
    vpc_cni_version_problem,
)
from gpukit.providers.aws.fakes import AwsFakes
from gpukit.providers.gcp.catalog import GCP_CATALOG
from harness import pool_facts, unknown_values

PLUGIN = Path(__file__).parents[1] / "reference/aws-efa-k8s-device-plugin-v0.5.30"


def test_machines_with_four_or_more_efa_interfaces_have_a_fast_fabric_and_smaller_ones_do_not() -> None:
    fast = sorted(name for name, t in AWS_INSTANCE_TYPES.items() if machine_fabric(t) is not None)
    assert fast == [
        "g6e.48xlarge",
        "g7e.48xlarge",
        "p4d.24xlarge",
        "p4de.24xlarge",
        "p5.48xlarge",
        "p5e.48xlarge",
        "p5en.48xlarge",
        "p6-b200.48xlarge",
    ]
    assert machine_fabric(AWS_INSTANCE_TYPES["p5.48xlarge"]) == MachineFabric(FabricKind.EFA, 32, 3200)
    assert machine_fabric(AWS_INSTANCE_TYPES["p5.4xlarge"]) is None  # one EFA: the ordinary network
    assert machine_fabric(AWS_INSTANCE_TYPES["g6.12xlarge"]) is None
    mega = machine_fabric(GCP_CATALOG.pool_instance("a3-megagpu-8g", None))
    assert mega is not None and mega.describe() == "GPUDirect-TCPXO, 8 extra NICs, 1,600 Gbps"
    assert machine_fabric(AWS_INSTANCE_TYPES["p4d.24xlarge"]).describe() == "EFA x4 (bandwidth not sourced)"  # type: ignore[union-attr]


def test_a_pool_gets_its_fabric_only_where_the_substrate_builds_it_and_not_with_none() -> None:
    spec = {
        "name": "h100",
        "instance_type": "p5.48xlarge",
        "min_nodes": 0,
        "max_nodes": 2,
        "zones": ["usw2-az3"],
    }
    on_eks = pool_facts(spec)
    assert on_eks.fabric == MachineFabric(FabricKind.EFA, 32, 3200)
    assert on_eks.labels[FABRIC_LABEL] == "efa"
    off = pool_facts({**spec, "interconnect": Interconnect.NONE})
    assert off.fabric is None and FABRIC_LABEL not in off.labels
    cpu = pool_facts({"name": "system", "instance_type": "m7i.large", "min_nodes": 1, "max_nodes": 1})
    assert cpu.fabric is None


@pytest.mark.parametrize("count", [1, 4, 8, 16, 32])
def test_the_layout_is_an_ena_primary_and_one_efa_only_per_network_card(count: int) -> None:
    layout = efa_layout(count)
    assert layout[0].card == 0 and layout[0].device == 0 and layout[0].kind == INTERFACE
    assert [(i.card, i.device, i.kind) for i in layout[1:]] == [(0, 1, EFA_ONLY)] + [
        (card, 0, EFA_ONLY) for card in range(1, count)
    ]
    assert efa_count(layout) == count
    assert len(layout) == count + 1


def test_launch_template_interfaces_carry_the_groups_and_no_subnet_or_public_address() -> None:
    (primary, *rest) = launch_template_interfaces(efa_layout(4), ["sg-cluster", "sg-efa"])
    for nic in (primary, *rest):
        assert nic["security_groups"] == ["sg-cluster", "sg-efa"]
        assert nic["delete_on_termination"] == "true"
        assert "subnet_id" not in nic and "associate_public_ip_address" not in nic
    assert primary["interface_type"] == "interface"
    assert {nic["interface_type"] for nic in rest} == {"efa-only"}


def _cel_rules() -> list[str]:
    crd = yaml.safe_load((KARPENTER_REFERENCE / "karpenter.k8s.aws_ec2nodeclasses.yaml").read_text())
    (version,) = crd["spec"]["versions"]
    spec = version["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    return [rule["rule"] for rule in spec["networkInterfaces"]["x-kubernetes-validations"]]


def _cel_holds(rule: str, interfaces: list[dict[str, Any]]) -> bool:
    import celpy

    env = celpy.Environment()
    program = env.program(env.compile(rule))
    return bool(program.evaluate({"self": celpy.json_to_cel(interfaces)}))


@pytest.mark.parametrize("count", [1, 8, 32])
def test_the_node_class_layout_keeps_karpenters_cel_rules(count: int) -> None:
    rules = _cel_rules()
    assert len(rules) == 2  # the primary rule and the one-EFA-per-card rule (v1.14.1)
    assert all(_cel_holds(rule, node_class_interfaces(efa_layout(count))) for rule in rules)


def test_the_cel_rules_catch_a_layout_karpenter_refuses() -> None:
    rules = _cel_rules()
    no_primary = [{"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "efa-only"}]
    two_on_a_card = [
        {"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"},
        {"networkCardIndex": 1, "deviceIndex": 0, "interfaceType": "efa-only"},
        {"networkCardIndex": 1, "deviceIndex": 1, "interfaceType": "efa-only"},
    ]
    assert not _cel_holds(rules[0], no_primary)
    assert not _cel_holds(rules[1], two_on_a_card)


def test_the_plan_fakes_refuse_launch_templates_ec2_refuses() -> None:
    fakes = AwsFakes({"aws:region": "us-east-1"})
    token = "aws:ec2/launchTemplate:LaunchTemplate"
    good = [
        {"networkCardIndex": i.card, "deviceIndex": i.device, "interfaceType": i.kind} for i in efa_layout(2)
    ]
    fakes.resource(token, "ok-lt", {"networkInterfaces": good})
    bad = {
        "efa-only primary": [{"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "efa-only"}],
        "unknown type": [{"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "trunk"}],
        "public address": [{**good[0], "associatePublicIpAddress": "true"}, good[1]],
        "two EFA on a card": [
            good[0],
            good[1],
            {"networkCardIndex": 0, "deviceIndex": 2, "interfaceType": "efa"},
        ],
    }
    for why, interfaces in bad.items():
        with pytest.raises(ResourceNameError):
            fakes.resource(token, "bad-lt", {"networkInterfaces": interfaces})
            pytest.fail(why)
    with pytest.raises(ResourceNameError, match="strategy"):
        fakes.resource("aws:ec2/placementGroup:PlacementGroup", "pg", {"strategy": "clustered"})


@pytest.mark.parametrize(
    ("version", "refused"),
    [
        ("v1.18.4-eksbuild.1", True),
        ("v1.7.10-eksbuild.1", True),
        ("v1.18.5-eksbuild.1", False),
        ("v1.20.4-eksbuild.2", False),
        ("v2.0.0", False),
        ("default-1.35", False),  # not a version: EKS's own pick, never refused for want of a number
    ],
)
def test_efa_only_interfaces_need_vpc_cni_1_18_5(version: str, refused: bool) -> None:
    problem = vpc_cni_version_problem(version)
    assert (problem is not None) is refused
    if problem:
        assert version in problem and "1.18.5" in problem


def test_nccl_env_names_the_efa_provider_and_rdma_reads_only_where_aws_tests_them() -> None:
    assert efa_nccl_env("p5.48xlarge") == {"FI_PROVIDER": "efa", "FI_EFA_USE_DEVICE_RDMA": "1"}
    assert efa_nccl_env("g6e.48xlarge") == {"FI_PROVIDER": "efa"}


def test_every_device_plugin_value_is_a_key_of_the_pinned_chart() -> None:
    chart = yaml.safe_load((PLUGIN / "values.yaml").read_text())
    h100 = pool_facts(
        {
            "name": "h100",
            "instance_type": "p5.48xlarge",
            "min_nodes": 0,
            "max_nodes": 2,
            "zones": ["usw2-az3"],
        }
    )
    values = device_plugin_values(FabricKind.EFA, [h100])
    assert unknown_values(values, chart) == []
    assert values["supportedInstanceLabels"] == {"keys": [FABRIC_LABEL], "values": ["efa"]}
    assert values["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    pinned = yaml.safe_load((PLUGIN / "Chart.yaml").read_text())
    assert (pinned["name"], pinned["version"]) == (EFA_DEVICE_PLUGIN.chart, EFA_DEVICE_PLUGIN.version)


def test_the_chart_selects_nodes_by_the_labels_gpukit_sets() -> None:
    """The chart's node affinity is built from supportedInstanceLabels (key In values), so gpukit's
    label decides where the plugin runs; and it advertises the resource pods request."""
    template = (PLUGIN / "daemonset.yaml").read_text()
    assert "range .Values.supportedInstanceLabels.keys" in template
    assert "toYaml $.Values.supportedInstanceLabels.values" in template
    assert "with .Values.tolerations" in template
    assert EFA_DEVICE_PLUGIN.resource == "vpc.amazonaws.com/efa"

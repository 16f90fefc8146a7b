"""EFA pools on EKS under the mocks: the launch template's interfaces, the placement group, one zone,
the security group open to itself, scale-from-zero for EFA pods, the device plugin, the `pools` output,
and Karpenter's EC2NodeClass, as the engine recorded them; and the VPC CNI floor, checked before
anything is created."""

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from crd_schemas import validate as validate_crd
from karpenter_crds import validate

from gpukit.cli import main
from gpukit.components.name_rules import planned_name
from gpukit.program import build
from gpukit.providers.aws.fakes import AwsFakes
from gpukit.providers.aws.names import AWS_NAME_RULES
from harness import (
    ROOT,
    Recording,
    asg_tags,
    doc_stack,
    eks_config,
    karpenter_eks_config,
    record,
    unknown_argument_names,
)

H100 = {"name": "h100", "instanceType": "p5.48xlarge", "minNodes": 0, "maxNodes": 2, "zones": ["usw2-az3"]}
LT = "aws:ec2/launchTemplate:LaunchTemplate"
PG = "aws:ec2/placementGroup:PlacementGroup"


def with_pool(config: dict[str, Any], **pool: Any) -> dict[str, Any]:
    config["gpukit:nodePools"].append({**H100, **pool})
    return config


@pytest.fixture(scope="module")
def mng() -> Recording:
    return record(lambda: build(with_pool(eks_config())))


def placement_name(group: Any) -> str:
    """The name AWS gives the placement group: Pulumi's auto-name (the plan fakes' planned name)."""
    name = planned_name(PG, group.name, group.inputs, AWS_NAME_RULES[PG][0])
    assert name is not None and name.startswith(f"{group.name}-")
    return name


def efa_group(rec: Recording) -> str:
    """The id of the EFA security group (its fake id, as the interfaces carry it)."""
    return rec.one("aws:ec2/securityGroup:SecurityGroup", "unit-efa").id


def test_the_efa_pool_launches_one_ena_and_32_efa_only_interfaces_in_its_placement_group(
    mng: Recording,
) -> None:
    lt = mng.one(LT, "unit-h100-usw2-az3-lt").inputs
    interfaces = lt["networkInterfaces"]
    assert len(interfaces) == 33
    assert interfaces[0] == {
        "networkCardIndex": 0,
        "deviceIndex": 0,
        "interfaceType": "interface",
        "securityGroups": interfaces[0]["securityGroups"],
        "deleteOnTermination": "true",
    }
    assert [(n["networkCardIndex"], n["deviceIndex"], n["interfaceType"]) for n in interfaces[1:]] == [
        (0, 1, "efa-only"),
        *((card, 0, "efa-only") for card in range(1, 32)),
    ]
    groups = {tuple(n["securityGroups"]) for n in interfaces}
    (pair,) = groups
    assert efa_group(mng) in pair and len(pair) == 2  # the cluster security group and the EFA group
    assert all("subnetId" not in n and "associatePublicIpAddress" not in n for n in interfaces)
    placement = mng.one(PG, "unit-h100-pg")
    assert placement.inputs["strategy"] == "cluster"
    assert lt["placement"] == {"groupName": placement_name(placement)}
    assert unknown_argument_names(lt) == []


def test_the_efa_pool_keeps_one_zone_and_other_pools_no_efa(mng: Recording) -> None:
    groups = [r for r in mng.of_type("aws:eks/nodeGroup:NodeGroup") if "-h100-" in r.name]
    assert [g.name for g in groups] == ["unit-h100-usw2-az3-ng"]
    (subnet,) = groups[0].inputs["subnetIds"]
    made = {s.id: s for s in mng.of_type("aws:ec2/subnet:Subnet")}
    zone = made[subnet].inputs["availabilityZone"]
    zone_ids = dict(AwsFakes({"aws:region": "us-west-2"}).zones())
    assert zone_ids[zone] == "usw2-az3"
    for lt in mng.of_type(LT):
        if "-h100-" not in lt.name:
            assert "networkInterfaces" not in lt.inputs and "placement" not in lt.inputs
    assert len(mng.of_type(PG)) == 1


def test_the_efa_group_admits_all_traffic_from_itself_and_nothing_else(mng: Recording) -> None:
    group = efa_group(mng)
    rules = [
        *mng.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"),
        *mng.of_type("aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"),
    ]
    own = [r.inputs for r in rules if r.inputs["securityGroupId"] == group]
    assert len(own) == 2
    for rule in own:
        assert rule["ipProtocol"] == "-1"
        assert rule["referencedSecurityGroupId"] == group
        assert "cidrIpv4" not in rule


def test_a_pending_efa_pod_scales_the_pool_from_zero(mng: Recording) -> None:
    tags = asg_tags(mng, "unit-h100-")
    prefix = "k8s.io/cluster-autoscaler/node-template"
    assert tags[f"{prefix}/resources/vpc.amazonaws.com/efa"] == "32"
    assert tags[f"{prefix}/resources/hugepages-2Mi"] == "10256Mi"
    assert tags[f"{prefix}/label/gpukit.dev/fabric"] == "efa"


def test_the_device_plugin_runs_on_the_efa_nodes_only(mng: Recording) -> None:
    release = mng.one("kubernetes:helm.sh/v3:Release", "unit-efa-device-plugin-release").inputs
    assert release["chart"] == "aws-efa-k8s-device-plugin"
    assert release["version"] == "v0.5.30"
    assert release["repositoryOpts"] == {"repo": "https://aws.github.io/eks-charts"}
    assert release["namespace"] == "kube-system"
    values = release["values"]
    assert values["supportedInstanceLabels"] == {"keys": ["gpukit.dev/fabric"], "values": ["efa"]}
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in values["tolerations"]


def test_without_efa_pools_nothing_of_efa_is_built() -> None:
    rec = record(lambda: build(eks_config()))
    assert rec.of_type(PG) == []
    assert [r for r in rec.of_type("kubernetes:helm.sh/v3:Release") if "efa" in r.name] == []
    assert [r for r in rec.of_type("aws:ec2/securityGroup:SecurityGroup") if r.name.endswith("-efa")] == []


def test_interconnect_none_keeps_a_p5_pool_on_the_ordinary_network() -> None:
    rec = record(lambda: build(with_pool(eks_config(), interconnect="none", zones=["usw2-az1", "usw2-az3"])))
    assert rec.of_type(PG) == []
    assert all("networkInterfaces" not in lt.inputs for lt in rec.of_type(LT))


def test_an_unpinned_efa_pool_asked_for_explicitly_gets_one_group_in_one_zone() -> None:
    config = with_pool(eks_config(), interconnect="auto")
    del config["gpukit:nodePools"][-1]["zones"]
    config["gpukit:nodePools"][-1]["maxNodes"] = 4
    rec = record(lambda: build(config))
    groups = [r for r in rec.of_type("aws:eks/nodeGroup:NodeGroup") if "-h100-" in r.name]
    assert len(groups) == 1
    assert groups[0].inputs["scalingConfig"]["maxSize"] == 4
    assert len(rec.of_type(PG)) == 1


def test_an_unpinned_p5_pool_with_interconnect_left_out_keeps_its_zones_and_gets_no_efa() -> None:
    """What such a pool had before interconnect existed: a group per zone that offers the type, no EFA
    (so a `pulumi up` of an existing stack deletes no zone's nodes)."""
    config = with_pool(eks_config())
    del config["gpukit:nodePools"][-1]["zones"]
    config["gpukit:nodePools"][-1]["maxNodes"] = 4
    rec = record(lambda: build(config))
    groups = [r for r in rec.of_type("aws:eks/nodeGroup:NodeGroup") if "-h100-" in r.name]
    assert len(groups) > 1
    assert rec.of_type(PG) == []
    assert all("networkInterfaces" not in lt.inputs for lt in rec.of_type(LT) if "-h100-" in lt.name)


def test_an_efa_pool_in_a_reused_vpc_launches_into_one_subnet_of_its_zone() -> None:
    """A reused VPC may have several private subnets in the EFA pool's zone: its nodes launch into one
    (EFA is confirmed within one subnet), other pools into all of their zone's."""
    config = with_pool(eks_config())
    # In the plan's fake EC2 these lie in usw2-az3 (4, 5) and usw2-az1 (3): two subnets in the EFA zone.
    reused = ["subnet-0123456789abcdef4", "subnet-0123456789abcdef5", "subnet-0123456789abcdef3"]
    config["gpukit:cluster"]["network"] = {"vpcId": "vpc-0123456789abcdef0", "subnetIds": reused}
    config["gpukit:nodePools"][1]["zones"] = ["usw2-az3"]
    rec = record(lambda: build(config))
    groups = {r.name: r.inputs["subnetIds"] for r in rec.of_type("aws:eks/nodeGroup:NodeGroup")}
    assert groups["unit-h100-usw2-az3-ng"] == [reused[0]]
    assert groups["unit-l4-usw2-az3-ng"] == reused[:2]


def test_an_old_vpc_cni_stops_the_run_before_anything_is_created(monkeypatch: pytest.MonkeyPatch) -> None:
    original = AwsFakes.invoke
    created: list[str] = []
    resource = AwsFakes.resource

    def invoke(self: AwsFakes, token: str, args: dict[str, Any]) -> dict[str, Any] | None:
        answer = original(self, token, args)
        if token == "aws:eks/getAddonVersion:getAddonVersion" and args.get("addonName") == "vpc-cni":
            return {**(answer or {}), "version": "v1.18.4-eksbuild.1"}
        return answer

    def recording(self: AwsFakes, token: str, name: str, inputs: dict[str, Any]) -> Any:
        created.append(token)
        return resource(self, token, name, inputs)

    monkeypatch.setattr(AwsFakes, "invoke", invoke)
    monkeypatch.setattr(AwsFakes, "resource", recording)
    with pytest.raises(
        Exception, match=r"gpukit:nodePools\[2\]\.interconnect: .*v1\.18\.4-eksbuild\.1.*1\.18\.5"
    ):
        record(lambda: build(with_pool(eks_config())))
    assert "aws:ec2/vpc:Vpc" not in created and "aws:eks/cluster:Cluster" not in created


@pytest.fixture(scope="module")
def karpenter() -> Recording:
    return record(lambda: build(with_pool(karpenter_eks_config(), zones=["usw2-az1"])))


def _objects(rec: Recording, kind: str) -> dict[str, dict[str, Any]]:
    return {
        r.inputs["metadata"]["name"]: r.inputs
        for r in rec.of_type(f"kubernetes:karpenter.{'sh' if kind == 'NodePool' else 'k8s.aws'}/v1:{kind}")
    }


def test_karpenter_launches_the_efa_layout_in_the_placement_group_and_zone(karpenter: Recording) -> None:
    node_class = _objects(karpenter, "EC2NodeClass")["h100"]
    spec = node_class["spec"]
    assert len(spec["networkInterfaces"]) == 33
    assert spec["networkInterfaces"][0] == {
        "networkCardIndex": 0,
        "deviceIndex": 0,
        "interfaceType": "interface",
    }
    placement = karpenter.one(PG, "unit-h100-pg")
    assert spec["placementGroupSelector"] == {"name": placement_name(placement)}
    made = {s.id: s for s in karpenter.of_type("aws:ec2/subnet:Subnet")}
    zone_ids = dict(AwsFakes({"aws:region": "us-west-2"}).zones())
    (term,) = spec["subnetSelectorTerms"]
    assert zone_ids[made[term["id"]].inputs["availabilityZone"]] == "usw2-az1"
    assert {"id": efa_group(karpenter)} in spec["securityGroupSelectorTerms"]
    node_pool = _objects(karpenter, "NodePool")["h100"]
    requirements = node_pool["spec"]["template"]["spec"]["requirements"]
    assert {"key": "topology.k8s.aws/zone-id", "operator": "In", "values": ["usw2-az1"]} in requirements
    for obj in (node_class, node_pool):
        validate(
            {
                "apiVersion": obj["apiVersion"],
                "kind": obj["kind"],
                "metadata": obj["metadata"],
                "spec": obj["spec"],
            }
        )
    l4 = _objects(karpenter, "EC2NodeClass")["l4"]["spec"]
    assert "networkInterfaces" not in l4 and "placementGroupSelector" not in l4


def test_the_example_jobset_asks_for_what_the_plan_says_a_pod_on_the_pool_needs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/interconnect.md's JobSet (examples/training/) is a valid JobSet whose pod requests and sets
    what the plan's `interconnect` entry for its pool says, on the doc's own stack."""
    path = doc_stack("docs/interconnect.md", "eks-efa", tmp_path)
    assert main(["plan", "--config", str(path), "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)["interconnect"]["h100"]
    jobset = yaml.safe_load((ROOT / "examples/training/efa-torchrun-jobset.yaml").read_text())
    validate_crd(jobset)
    pod = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"gpukit.dev/pool": "h100"}
    (container,) = pod["containers"]
    requests = {k: str(v) for k, v in container["resources"]["requests"].items()}
    assert expected["requests"].items() <= requests.items()
    env = {e["name"]: e["value"] for e in container["env"]}
    assert expected["env"].items() <= env.items()
    assert jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["parallelism"] == 2

"""Karpenter's objects, values and policy as pure functions: golden files, the v1.14.1 CRD schemas and
chart values, and the CEL rules the schemas carry that JSON Schema cannot check."""

import json
import re
from typing import Any

import jsonschema
import pytest
import yaml
from karpenter_crds import CHART_VALUES, KARPENTER_REFERENCE, validate

from gpukit.components.spec import Capacity, SharingMode
from gpukit.providers.aws.eks.karpenter_interruption import INTERRUPTION_EVENTS
from gpukit.providers.aws.eks.karpenter_objects import AMI_ALIAS, karpenter_objects, node_pool_spec
from gpukit.providers.aws.eks.karpenter_values import controller_replicas, karpenter_values
from gpukit.providers.aws.iam_policies import interruption_queue_policy, karpenter_controller_policy
from harness import chart_has, key_paths, pool_facts

L4_SPOT = pool_facts(
    {
        "name": "l4",
        "instance_type": "g6.xlarge",
        "min_nodes": 0,
        "max_nodes": 8,
        "capacity": Capacity.SPOT,
        "zones": ["usw2-az1", "usw2-az2"],
        "sharing": {"mode": SharingMode.TIME_SLICING, "replicas": 4},
    }
)
H100 = pool_facts(
    {"name": "h100", "instance_type": "p5.48xlarge", "min_nodes": 0, "max_nodes": 2, "disk_size_gb": 500}
)
SYSTEM = pool_facts({"name": "system", "instance_type": "m7i.large", "min_nodes": 1, "max_nodes": 1})


def objects() -> list[dict[str, Any]]:
    return karpenter_objects(
        [SYSTEM, L4_SPOT, H100],
        role="eks-dev-karpenter-node-role-1234567",
        subnet_ids=["subnet-0aaa1111", "subnet-0bbb2222"],
        security_group_ids=["sg-0ccc3333"],
        tags={"gpukit:cluster": "eks-dev", "managed-by": "gpukit"},
    )


def test_karpenter_objects_golden(golden) -> None:  # type: ignore[no-untyped-def]
    golden("karpenter-objects-eks.yaml", yaml.safe_dump_all(objects(), sort_keys=True))


def test_one_node_class_and_node_pool_per_gpu_pool_and_none_for_the_system_pool() -> None:
    kinds = [(o["kind"], o["metadata"]["name"]) for o in objects()]
    assert kinds == [
        ("EC2NodeClass", "l4"),
        ("NodePool", "l4"),
        ("EC2NodeClass", "h100"),
        ("NodePool", "h100"),
    ]


def test_every_object_is_valid_against_the_v1_14_1_crd_schemas() -> None:
    for obj in objects():
        validate(obj)


def test_the_schema_check_catches_a_misspelt_field_and_a_bad_value() -> None:
    (node_class, node_pool) = objects()[:2]
    misspelt = {**node_pool, "spec": {**node_pool["spec"], "limit": {"cpu": "4"}}}
    with pytest.raises(jsonschema.ValidationError):
        validate(misspelt)
    bad = json.loads(json.dumps(node_class))
    bad["spec"]["metadataOptions"]["httpTokens"] = "sometimes"
    with pytest.raises(jsonschema.ValidationError):
        validate(bad)


def _label_domain(key: str) -> str:
    return key.split("/", 1)[0] if "/" in key else ""


def test_template_labels_and_requirements_keep_the_crd_cel_rules() -> None:
    # nodepools CRD: template labels may not use the karpenter.sh or karpenter.k8s.aws domains (but
    # capacity-type), nor kubernetes.io/hostname; the same for requirement keys.
    for obj in objects():
        if obj["kind"] != "NodePool":
            continue
        template = obj["spec"]["template"]
        keys = list(template["metadata"]["labels"]) + [r["key"] for r in template["spec"]["requirements"]]
        for key in keys:
            domain = _label_domain(key)
            assert key == "karpenter.sh/capacity-type" or not domain.endswith("karpenter.sh"), key
            assert not domain.endswith("karpenter.k8s.aws"), key
            assert key != "kubernetes.io/hostname"
        assert all(r["values"] for r in template["spec"]["requirements"] if r["operator"] == "In")


def test_node_class_tags_and_ami_keep_the_crd_cel_rules() -> None:
    for obj in objects():
        if obj["kind"] != "EC2NodeClass":
            continue
        spec = obj["spec"]
        for key in spec["tags"]:
            assert key not in ("eks:eks-cluster-name", "karpenter.sh/nodepool", "karpenter.sh/nodeclaim")
            assert key != "karpenter.k8s.aws/ec2nodeclass" and not key.startswith("kubernetes.io/cluster")
        assert spec["amiSelectorTerms"] == [{"alias": AMI_ALIAS}]  # an alias stands alone
        assert re.fullmatch(r"al2023@v\d{8}", AMI_ALIAS)  # pinned, never @latest
        assert sum(1 for d in spec["blockDeviceMappings"] if d.get("rootVolume")) == 1


def test_spot_pools_fall_back_to_on_demand_and_on_demand_pools_stay_on_demand() -> None:
    def capacity(pool: Any) -> list[str]:
        requirements = node_pool_spec(pool)["template"]["spec"]["requirements"]
        (req,) = [r for r in requirements if r["key"] == "karpenter.sh/capacity-type"]
        return list(req["values"])

    assert capacity(L4_SPOT) == ["spot", "on-demand"]
    assert capacity(H100) == ["on-demand"]


def test_node_pool_carries_the_pools_labels_taint_zones_types_and_a_node_ceiling() -> None:
    spec = node_pool_spec(L4_SPOT)
    labels = spec["template"]["metadata"]["labels"]
    # The device plugin's sharing entry, the accelerator label and gpukit's pool labels, as the
    # managed node groups have them.
    assert labels == {**L4_SPOT.labels}
    assert labels["nvidia.com/device-plugin.config"] == "time-slicing-4"
    assert labels["k8s.amazonaws.com/accelerator"] == "nvidia-l4"
    assert spec["template"]["spec"]["taints"] == [
        {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
    ]
    reqs = {r["key"]: r["values"] for r in spec["template"]["spec"]["requirements"]}
    assert reqs["topology.k8s.aws/zone-id"] == ["usw2-az1", "usw2-az2"]
    assert reqs["node.kubernetes.io/instance-type"] == ["g6.xlarge"]
    assert spec["limits"] == {"nodes": "8", "cpu": str(8 * 4)}  # 8 nodes of 4 vCPUs
    assert "topology.k8s.aws/zone-id" not in {
        r["key"] for r in node_pool_spec(H100)["template"]["spec"]["requirements"]
    }


def test_gpu_nodes_are_removed_only_when_empty_and_never_expire() -> None:
    spec = node_pool_spec(H100)
    assert spec["disruption"]["consolidationPolicy"] == "WhenEmpty"
    assert spec["disruption"]["consolidateAfter"] == "10m"
    assert spec["template"]["spec"]["expireAfter"] == "Never"


def test_root_volumes_are_encrypted_and_sized_like_the_pools_node_groups() -> None:
    (h100_class,) = [o for o in objects() if o["kind"] == "EC2NodeClass" and o["metadata"]["name"] == "h100"]
    (device,) = h100_class["spec"]["blockDeviceMappings"]
    assert device["ebs"] == {
        "volumeSize": "500Gi",
        "volumeType": "gp3",
        "encrypted": True,
        "deleteOnTermination": True,
    }
    assert h100_class["spec"]["metadataOptions"]["httpTokens"] == "required"
    assert h100_class["spec"]["metadataOptions"]["httpPutResponseHopLimit"] == 1


def test_every_karpenter_value_key_exists_in_the_1_14_1_chart() -> None:
    values = karpenter_values("eks-dev", "eks-dev-karpenter", ["system"], 1)
    missing = [p for p in key_paths(values) if not chart_has(p, CHART_VALUES)]
    assert missing == []
    assert not chart_has("settings.interruptQueue", CHART_VALUES)


def test_controller_runs_on_the_system_pools_one_replica_per_node() -> None:
    values = karpenter_values("eks-dev", "eks-dev-karpenter", ["system"], 1)
    assert values["settings"] == {"clusterName": "eks-dev", "interruptionQueue": "eks-dev-karpenter"}
    (term,) = values["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ]
    assert {"key": "gpukit.dev/pool", "operator": "In", "values": ["system"]} in term["matchExpressions"]
    assert {"key": "karpenter.sh/nodepool", "operator": "DoesNotExist"} in term["matchExpressions"]
    assert [controller_replicas(n) for n in (1, 2, 5)] == [1, 2, 2]


class _CloudFormationLoader(yaml.SafeLoader):
    """Reads CloudFormation's short-form functions (!Sub, !Ref, !GetAtt) as their plain argument."""


_CloudFormationLoader.add_multi_constructor(
    "!",
    lambda loader, _tag, node: loader.construct_scalar(node) if isinstance(node, yaml.ScalarNode) else None,
)


def _reference() -> dict[str, Any]:
    text = (KARPENTER_REFERENCE / "cloudformation.yaml").read_text()
    return yaml.load(text, Loader=_CloudFormationLoader)


def _reference_statements() -> dict[str, Any]:
    template = _reference()
    found: dict[str, Any] = {}
    for resource in template["Resources"].values():
        document = resource.get("Properties", {}).get("PolicyDocument")
        if isinstance(document, str):
            for statement in json.loads(document)["Statement"]:
                found[statement["Sid"]] = statement
    return found


def test_controller_policy_grants_what_karpenters_reference_grants_scoped_to_this_cluster() -> None:
    policy = json.loads(
        karpenter_controller_policy(
            cluster_name="eks-dev",
            region="us-west-2",
            account_id="123456789012",
            partition="aws",
            node_role_arn="arn:aws:iam::123456789012:role/node",
            queue_arn="arn:aws:sqs:us-west-2:123456789012:eks-dev-karpenter",
        )
    )
    ours = {s["Sid"]: s for s in policy["Statement"]}
    reference = _reference_statements()
    # Every statement but zonal shift, with the same actions.
    assert set(ours) == set(reference) - {"AllowZonalShiftStatusReadOnly"}
    for sid, statement in ours.items():
        want = reference[sid]["Action"]
        assert sorted([want] if isinstance(want, str) else want) == sorted(
            [statement["Action"]] if isinstance(statement["Action"], str) else statement["Action"]
        ), sid
    assert ours["AllowPassingInstanceRole"]["Resource"] == "arn:aws:iam::123456789012:role/node"
    assert ours["AllowInterruptionQueueActions"]["Resource"].endswith(":eks-dev-karpenter")
    deletion = ours["AllowScopedDeletion"]["Condition"]["StringEquals"]
    assert deletion == {"aws:ResourceTag/kubernetes.io/cluster/eks-dev": "owned"}
    text = json.dumps(policy)
    assert "${" not in text and "us-west-2" in text


def test_interruption_rules_and_queue_policy_follow_the_reference() -> None:
    template = _reference()
    patterns = [
        r["Properties"]["EventPattern"]
        for r in template["Resources"].values()
        if r["Type"] == "AWS::Events::Rule"
    ]
    assert sorted(map(json.dumps, patterns)) == sorted(map(json.dumps, INTERRUPTION_EVENTS.values()))
    policy = json.loads(interruption_queue_policy("arn:aws:sqs:us-west-2:1:q"))
    allow, deny = policy["Statement"]
    assert allow["Principal"]["Service"] == ["events.amazonaws.com", "sqs.amazonaws.com"]
    assert deny["Effect"] == "Deny" and deny["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}

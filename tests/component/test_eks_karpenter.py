"""GpuCluster on EKS with Karpenter (the default autoscaler) under the mocks: assertions on the inputs
the engine recorded."""

import json
from typing import Any

import pytest
from karpenter_crds import validate

from gpukit.program import build
from harness import Recording, karpenter_eks_config, record, unknown_argument_names

KARPENTER = "unit-karpenter"
QUEUE_ARN = "arn:aws:sqs:us-west-2:123456789012:unit-karpenter"


@pytest.fixture(scope="module")
def dev() -> Recording:
    config = karpenter_eks_config()
    config["gpukit:nodePools"][1]["sharing"] = {"mode": "time-slicing", "replicas": 4}
    config["gpukit:nodePools"].append(
        {
            "name": "h100",
            "instanceType": "p5.48xlarge",
            "minNodes": 0,
            "maxNodes": 2,
            "diskSizeGb": 500,
            "zones": ["usw2-az3"],
        }
    )
    return record(lambda: build(config))


def custom(rec: Recording, kind: str, pool: str) -> dict[str, Any]:
    token = {
        "NodePool": "kubernetes:karpenter.sh/v1:NodePool",
        "EC2NodeClass": "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass",
    }[kind]
    return rec.one(token, f"{KARPENTER}-{pool}-{kind.lower()}").inputs


def test_gpu_pools_get_no_managed_node_group_and_the_system_pool_keeps_one(dev: Recording) -> None:
    groups = [g.inputs["labels"]["gpukit.dev/pool"] for g in dev.of_type("aws:eks/nodeGroup:NodeGroup")]
    assert groups == ["system"]
    charts = [r.inputs["chart"] for r in dev.of_type("kubernetes:helm.sh/v3:Release")]
    assert "cluster-autoscaler" not in charts
    assert "oci://public.ecr.aws/karpenter/karpenter" in charts


def test_every_recorded_karpenter_object_is_valid_against_the_crd_schemas(dev: Recording) -> None:
    found = [
        r
        for r in dev.resources
        if r.type in ("kubernetes:karpenter.sh/v1:NodePool", "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass")
    ]
    assert len(found) == 4  # l4 and h100, one of each
    for r in found:
        validate(r.inputs)


def test_node_pools_carry_the_pools_taints_labels_limits_and_capacity_types(dev: Recording) -> None:
    l4 = custom(dev, "NodePool", "l4")["spec"]
    labels = l4["template"]["metadata"]["labels"]
    assert labels["gpukit.dev/pool"] == "l4"
    assert labels["nvidia.com/device-plugin.config"] == "time-slicing-4"
    assert labels["k8s.amazonaws.com/accelerator"] == "nvidia-l4"
    assert l4["template"]["spec"]["taints"] == [
        {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
    ]
    reqs = {r["key"]: r["values"] for r in l4["template"]["spec"]["requirements"]}
    assert reqs["karpenter.sh/capacity-type"] == ["spot", "on-demand"]
    assert reqs["topology.k8s.aws/zone-id"] == ["usw2-az1", "usw2-az2"]
    assert l4["limits"] == {"nodes": "8", "cpu": "32"}
    h100 = custom(dev, "NodePool", "h100")["spec"]
    assert {r["key"]: r["values"] for r in h100["template"]["spec"]["requirements"]}[
        "karpenter.sh/capacity-type"
    ] == ["on-demand"]
    assert h100["limits"] == {"nodes": "2", "cpu": str(2 * 192)}
    assert h100["disruption"]["consolidationPolicy"] == "WhenEmpty"


def test_node_classes_use_the_clusters_subnets_security_group_and_the_karpenter_node_role(
    dev: Recording,
) -> None:
    spec = custom(dev, "EC2NodeClass", "l4")["spec"]  # the p5 pool's is EFA's (test_eks_efa.py)
    assert spec["role"].startswith(f"{KARPENTER}-node-role-")
    private = [s.id for s in dev.of_type("aws:ec2/subnet:Subnet") if "-private-" in s.name]
    assert len(private) == 3
    assert sorted(t["id"] for t in spec["subnetSelectorTerms"]) == sorted(private)
    (term,) = spec["securityGroupSelectorTerms"]
    assert term["id"].startswith("sg-")  # the cluster security group, known once the cluster exists
    rules = dev.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")
    assert all(r.inputs["securityGroupId"] == term["id"] for r in rules if "-efa-self-" not in r.name)
    spec = custom(dev, "EC2NodeClass", "h100")["spec"]
    assert spec["blockDeviceMappings"][0]["ebs"]["volumeSize"] == "500Gi"
    assert spec["metadataOptions"]["httpTokens"] == "required"
    assert spec["tags"]["gpukit:cluster"] == "unit"


def test_the_node_role_joins_through_an_ec2_linux_access_entry(dev: Recording) -> None:
    entry = dev.one("aws:eks/accessEntry:AccessEntry", f"{KARPENTER}-node-access").inputs
    assert entry["type"] == "EC2_LINUX"
    assert entry["principalArn"].startswith(f"arn:aws:iam::123456789012:role/{KARPENTER}-node-role-")
    attached = [
        a.inputs["policyArn"]
        for a in dev.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")
        if a.name.startswith(f"{KARPENTER}-node-")
    ]
    # Not the VPC CNI's rights: aws-node has its own Pod Identity role.
    assert sorted(a.rsplit("/", 1)[-1] for a in attached) == [
        "AmazonEC2ContainerRegistryPullOnly",
        "AmazonEKSWorkerNodePolicy",
    ]


def test_controller_release_is_pinned_with_pod_identity_and_the_interruption_queue(dev: Recording) -> None:
    release = dev.one("kubernetes:helm.sh/v3:Release", f"{KARPENTER}-release").inputs
    assert (release["chart"], release["version"]) == ("oci://public.ecr.aws/karpenter/karpenter", "1.14.1")
    assert release["skipCrds"] is True
    assert release["values"]["settings"] == {"clusterName": "unit", "interruptionQueue": "unit-karpenter"}
    assert release["values"]["replicas"] == 1  # one system node
    crds = dev.one("kubernetes:helm.sh/v3:Release", f"{KARPENTER}-crd-release").inputs
    assert (crds["chart"], crds["version"]) == ("oci://public.ecr.aws/karpenter/karpenter-crd", "1.14.1")
    association = dev.one(
        "aws:eks/podIdentityAssociation:PodIdentityAssociation", f"{KARPENTER}-identity"
    ).inputs
    assert (association["namespace"], association["serviceAccount"]) == ("kube-system", "karpenter")
    policy = json.loads(dev.one("aws:iam/rolePolicy:RolePolicy", f"{KARPENTER}-ctrl-policy").inputs["policy"])
    statements = {s["Sid"]: s for s in policy["Statement"]}
    assert statements["AllowInterruptionQueueActions"]["Resource"] == QUEUE_ARN
    entry = dev.one("aws:eks/accessEntry:AccessEntry", f"{KARPENTER}-node-access").inputs
    assert statements["AllowPassingInstanceRole"]["Resource"] == entry["principalArn"]


def test_interruption_queue_is_encrypted_and_fed_by_the_five_eventbridge_rules(dev: Recording) -> None:
    queue = dev.one("aws:sqs/queue:Queue", f"{KARPENTER}-interruption-queue")
    assert queue.inputs["sqsManagedSseEnabled"] is True
    assert queue.inputs["name"] == "unit-karpenter"
    rules = {
        json.loads(r.inputs["eventPattern"])["detail-type"][0]
        for r in dev.of_type("aws:cloudwatch/eventRule:EventRule")
    }
    assert rules == {
        "AWS Health Event",
        "EC2 Spot Instance Interruption Warning",
        "EC2 Instance Rebalance Recommendation",
        "EC2 Instance State-change Notification",
        "EC2 Capacity Reservation Instance Interruption Warning",
    }
    targets = dev.of_type("aws:cloudwatch/eventTarget:EventTarget")
    assert len(targets) == 5 and all(t.inputs["arn"] == QUEUE_ARN for t in targets)
    policy = json.loads(
        dev.one("aws:sqs/queuePolicy:QueuePolicy", f"{KARPENTER}-interruption-queue-policy").inputs["policy"]
    )
    assert policy["Statement"][0]["Principal"]["Service"] == ["events.amazonaws.com", "sqs.amazonaws.com"]


def test_node_pools_wait_for_their_node_class_and_the_controller(dev: Recording) -> None:
    pool = dev.one("kubernetes:karpenter.sh/v1:NodePool", f"{KARPENTER}-l4-nodepool")
    node_class = dev.one("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", f"{KARPENTER}-l4-ec2nodeclass")
    release = dev.one("kubernetes:helm.sh/v3:Release", f"{KARPENTER}-release")
    assert {node_class.urn, release.urn} <= set(pool.dependencies)


def test_every_resource_argument_is_one_the_provider_schema_knows(dev: Recording) -> None:
    for r in dev.resources:
        if r.type.startswith("aws:"):
            assert unknown_argument_names(r.inputs) == [], r.name


def test_a_bottlerocket_gpu_pool_runs_on_the_pinned_bottlerocket_alias() -> None:
    """Issue 29, point 20: refused before for want of a pinned alias; now its node class names the
    pinned Bottlerocket release and sizes the data volume, where Bottlerocket keeps images."""
    config = karpenter_eks_config()
    config["gpukit:nodePools"][1]["nodeImage"] = "bottlerocket"
    rec = record(lambda: build(config))
    node_class = custom(rec, "EC2NodeClass", "l4")
    validate(node_class)
    spec = node_class["spec"]
    assert spec["amiSelectorTerms"] == [{"alias": "bottlerocket@v1.66.0"}]
    assert [(d["deviceName"], d["ebs"]["volumeSize"]) for d in spec["blockDeviceMappings"]] == [
        ("/dev/xvdb", "100Gi")
    ]
    labels = custom(rec, "NodePool", "l4")["spec"]["template"]["metadata"]["labels"]
    assert labels["nvidia.com/gpu.deploy.device-plugin"] == "false"  # Bottlerocket runs its own

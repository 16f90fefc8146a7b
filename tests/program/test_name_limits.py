"""Every cloud name gpukit generates fits its cloud's limit, for the longest cluster and pool names
validation accepts; two clusters whose long names differ only at the end share no name; and resources
that keep a fixed name are deleted before they are replaced.

The plan's fakes refuse any name its cloud would refuse (providers/<cloud>/names.py), so a plan that
completes is the proof for every resource type those tables cover; these tests also make sure every
named resource type gpukit creates is covered.
"""

import copy
from typing import Any

import pytest

from gpukit.components.name_rules import planned_name
from gpukit.components.resolve.validation import CLUSTER_NAME_MAX, POOL_NAME_MAX
from gpukit.components.validate.common import NAME_RE
from gpukit.program import Built, build
from gpukit.providers.aws.names import AWS_NAME_RULES
from gpukit.providers.gcp.names import GCP_NAME_RULES
from harness import Recording, example_config, record, substrate
from tests.ssh_host_keys import ED25519_OTHER

RULES = {**AWS_NAME_RULES, **GCP_NAME_RULES}
# Cloud resource types gpukit creates that have no name of their own (a Name tag at most).
UNNAMED = {
    *(
        f"aws:ec2/{t}"
        for t in (
            "vpc:Vpc",
            "subnet:Subnet",
            "internetGateway:InternetGateway",
            "routeTable:RouteTable",
            "routeTableAssociation:RouteTableAssociation",
            "eip:Eip",
            "natGateway:NatGateway",
            "vpcEndpoint:VpcEndpoint",  # CreateVpcEndpoint takes no name (a Name tag only)
            "networkInterface:NetworkInterface",
            "instance:Instance",
            # An EBS volume and its attachment carry ids only (CreateVolume and AttachVolume take no name).
            "volumeAttachment:VolumeAttachment",
        )
    ),
    "aws:ebs/volume:Volume",
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
    "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule",
    "aws:lb/listener:Listener",
    "aws:lb/targetGroupAttachment:TargetGroupAttachment",
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
    "aws:kms/key:Key",
    "aws:eks/addon:Addon",
    # EFS mount targets and FSx file systems take no name (a Name tag only); EFS file systems have a
    # creation token rule.
    "aws:efs/mountTarget:MountTarget",
    # A file system policy is one per file system (PutFileSystemPolicy takes the file system id only).
    "aws:efs/fileSystemPolicy:FileSystemPolicy",
    "aws:fsx/lustreFileSystem:LustreFileSystem",
    "aws:eks/accessEntry:AccessEntry",
    "aws:eks/accessPolicyAssociation:AccessPolicyAssociation",
    "aws:eks/podIdentityAssociation:PodIdentityAssociation",
    "aws:autoscaling/tag:Tag",
    "aws:sqs/queuePolicy:QueuePolicy",
    "aws:cloudwatch/eventTarget:EventTarget",
    "aws:secretsmanager/secretVersion:SecretVersion",
    "gcp:projects/iAMMember:IAMMember",
    "gcp:projects/service:Service",
    "gcp:kms/cryptoKeyIAMMember:CryptoKeyIAMMember",
    "gcp:serviceaccount/iAMMember:IAMMember",
    "gcp:kms/secretCiphertext:SecretCiphertext",  # the result of an encrypt call, no resource of its own
    "gcp:secretmanager/secretVersion:SecretVersion",
    "gcp:secretmanager/secretIamMember:SecretIamMember",
}
CLOUD_STACKS = ["eks-dev", "gke-dev", "k3s-aws", "k3s-gcp"]


def longest(stem: str, limit: int) -> str:
    """`stem` repeated to exactly `limit` characters: a name as long as validation accepts."""
    name = (stem * limit)[:limit]
    assert NAME_RE.match(name), name
    return name


LONG_CLUSTER = longest("ml-research-", CLUSTER_NAME_MAX)  # ml-research-ml-research-ml-resea


def with_longest_names(stack: str, cluster_name: str = LONG_CLUSTER) -> dict[str, Any]:
    """An example stack with the longest cluster name and pool names, and 3 servers where k3s has any;
    the pools' names differ only in their last character."""
    config = copy.deepcopy(example_config(stack))
    config["gpukit:cluster"]["name"] = cluster_name
    for i, pool in enumerate(config["gpukit:nodePools"]):
        pool["name"] = longest("gpu-pool-", POOL_NAME_MAX - 1) + str(i)
        if pool.get("role") == "server" and "hosts" not in pool:
            pool["minNodes"] = pool["maxNodes"] = 3
    return config


def planned(config: dict[str, Any], secrets: tuple[str, ...] = ()) -> tuple[Recording, Built]:
    built: list[Built] = []
    # The fakes refuse a name their cloud would refuse.
    recording = record(lambda: built.append(build(config, secrets)), config=config, secret_keys=[*secrets])
    return recording, built[0]


def cloud_resources(recording: Recording) -> list[Any]:
    return [r for r in recording.resources if r.custom and r.type.split(":")[0] in ("aws", "gcp")]


@pytest.mark.parametrize("stack", CLOUD_STACKS)
def test_the_longest_names_gpukit_accepts_give_names_every_cloud_accepts(stack: str) -> None:
    recording, _ = planned(with_longest_names(stack))
    resources = cloud_resources(recording)
    assert {r.type for r in resources} - RULES.keys() - UNNAMED == set(), "named types without a rule"
    for resource in (r for r in resources if r.type in RULES):
        names = [
            planned_name(resource.type, resource.name, resource.inputs, rule) for rule in RULES[resource.type]
        ]
        assert any(names), f"{resource.name}: no name the cloud can be held to"
        for rule, name in zip(RULES[resource.type], names, strict=True):
            if name is not None:
                assert len(name) <= rule.max_length and rule.pattern.fullmatch(name), (resource.name, name)


# Named within their cluster, not the project or account: the pools' names, as the config gives them.
IN_THE_CLUSTER = {"gcp:container/nodePool:NodePool", "aws:eks/nodeGroup:NodeGroup"}


@pytest.mark.parametrize("stack", ["eks-dev", "gke-dev", "k3s-gcp"])  # k3s on EC2 names by prefix only
def test_clusters_whose_long_names_differ_only_at_the_end_share_no_name(stack: str) -> None:
    """Service accounts, addresses, firewall rules and secrets are named per project: cutting long
    names short would give the second cluster the first one's. (Prefixes may repeat: the provider
    appends a unique id to each.)"""
    other = LONG_CLUSTER[:-1] + "z"
    names = []
    for cluster in (LONG_CLUSTER, other):
        recording, _ = planned(with_longest_names(stack, cluster))
        names.append(
            {
                (r.type, rule.field, r.inputs[rule.field])
                for r in cloud_resources(recording)
                if r.type not in IN_THE_CLUSTER
                for rule in RULES.get(r.type, ())
                if rule.field in r.inputs
            }
        )
    assert names[0] and names[0].isdisjoint(names[1]), names[0] & names[1]


def test_ssh_node_names_of_the_longest_pool_names_and_long_addresses_fit_and_differ() -> None:
    config = with_longest_names("k3s-ssh")
    config["gpukit:sshPrivateKey"] = (
        "-----BEGIN OPENSSH PRIVATE KEY-----\ntest-only\n-----END OPENSSH PRIVATE KEY-----\n"
    )
    agents = config["gpukit:nodePools"][1]
    domain = "rack-a.datacenter-frankfurt.research.example"
    agents["hosts"] = [
        {"address": f"gpu-node.{domain}.{tld}", "user": "ubuntu", "hostKey": ED25519_OTHER}
        for tld in ("com", "net")
    ]
    _, built = planned(config, ("gpukit:sshPrivateKey",))
    nodes = [h.node for h in substrate("k3s-ssh").planned_hosts(built.cluster)]
    assert len(set(nodes)) == len(nodes) == 3
    for node in nodes:
        assert len(node) <= 63 and NAME_RE.match(node.lstrip("0123456789")), node


# Fixed-name resources Pulumi may replace: the old one goes first, or the new one fails on its name.
DELETED_FIRST = {
    "gcp:compute/address:Address",
    "gcp:compute/instance:Instance",
    "gcp:compute/firewall:Firewall",
    "gcp:compute/instanceGroupManager:InstanceGroupManager",
    "gcp:container/nodePool:NodePool",
    "gcp:secretmanager/secret:Secret",
    "aws:ec2/instance:Instance",  # k3s servers: their network interface attaches to one at a time
}
# Replaced only with the whole cluster: created first, the new one fails on its name before anything
# is deleted (the cluster's pools and machines would go first otherwise).
CREATED_FIRST = {
    "gcp:compute/network:Network",
    "gcp:compute/subnetwork:Subnetwork",
    "gcp:container/cluster:Cluster",
    "aws:eks/cluster:Cluster",
}


@pytest.mark.parametrize("stack", CLOUD_STACKS)
def test_fixed_name_resources_are_deleted_before_they_are_replaced(stack: str) -> None:
    recording, _ = planned(with_longest_names(stack))
    resources = cloud_resources(recording)
    first = {r.type for r in resources if r.delete_before_replace}
    assert {r.type for r in resources} & DELETED_FIRST <= first
    assert first <= DELETED_FIRST
    assert not first & CREATED_FIRST


def test_k3s_on_ec2_names_its_api_load_balancer_by_prefix() -> None:
    """A load balancer's 32 characters leave no room for a long cluster's auto-name; with a prefix the
    provider fills them, and a replacement is created before the old one goes."""
    recording, _ = planned(with_longest_names("k3s-aws"))
    for token in ("aws:lb/loadBalancer:LoadBalancer", "aws:lb/targetGroup:TargetGroup"):
        resource = recording.one(token)
        assert resource.inputs["namePrefix"] == "k3s-" and "name" not in resource.inputs
        assert not resource.delete_before_replace


def test_k3s_on_compute_engine_hostnames_leave_room_for_the_node_id() -> None:
    """A GCE machine's hostname is its instance name, and k3s registers `<hostname>-<8 hex>`
    (`with-node-id`): that must stay a valid node name, at most 63 characters."""
    recording, _ = planned(with_longest_names("k3s-gcp"))
    servers = [r.inputs["name"] for r in recording.of_type("gcp:compute/instance:Instance")]
    groups = [
        r.inputs["baseInstanceName"] + "-abcd"  # the group's suffix for each instance
        for r in recording.of_type("gcp:compute/instanceGroupManager:InstanceGroupManager")
    ]
    assert servers and groups
    for hostname in servers + groups:
        node = f"{hostname}-0123abcd"
        assert len(node) <= 63 and NAME_RE.match(node), node
    assert max(len(h) for h in servers + groups) > 50  # the longest names were in play

"""Shared volumes on EKS under the mocks: what the engine recorded for efs, fsx-lustre and s3 volumes."""

import json
from typing import Any

import pytest

from gpukit.components.plan_fakes import stable_hex
from gpukit.program import build
from gpukit.providers.aws.fakes import ACCOUNT_ID, AwsFakes
from harness import Recording, eks_config, record, unknown_argument_names

STORAGE = {
    "shared": [
        {"name": "models", "kind": "efs", "role": "model-cache", "sizeGb": 200},
        {"name": "ckpt", "kind": "fsx-lustre", "role": "checkpoints", "sizeGb": 2400, "tier": "500"},
        {"name": "data", "kind": "s3", "role": "datasets", "sizeGb": 100, "bucket": "my-datasets"},
        {"name": "weights", "kind": "s3", "role": "model-cache", "sizeGb": 100, "bucket": "my-weights"},
    ]
}


@pytest.fixture(scope="module")
def rec() -> Recording:
    config = eks_config(**{"gpukit:storage": STORAGE})
    config["gpukit:nodePools"].append(
        {"name": "h100", "instanceType": "p5.48xlarge", "minNodes": 0, "maxNodes": 2, "zones": ["usw2-az3"]}
    )
    return record(lambda: build(config))


def cluster_security_group(rec: Recording) -> str:
    """The cluster security group EKS makes (the fakes' output for the cluster): what every managed node
    and every Karpenter node carries."""
    (cluster,) = rec.of_type("aws:eks/cluster:Cluster")
    return f"sg-{stable_hex(cluster.inputs['name'], 'cluster-sg')}"


def ingress(rec: Recording, prefix: str) -> list[dict[str, Any]]:
    return [
        r.inputs
        for r in rec.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")
        if r.name.startswith(prefix)
    ]


def addon(rec: Recording, name: str) -> dict[str, Any]:
    (found,) = [a.inputs for a in rec.of_type("aws:eks/addon:Addon") if a.inputs["addonName"] == name]
    return found


def role_of(rec: Recording, addon_inputs: dict[str, Any]) -> str:
    (association,) = addon_inputs["podIdentityAssociations"]
    return association["roleArn"]


def test_efs_file_system_is_encrypted_elastic_and_in_every_node_zone(rec: Recording) -> None:
    (fs,) = rec.of_type("aws:efs/fileSystem:FileSystem")
    assert fs.inputs["encrypted"] is True
    assert fs.inputs["throughputMode"] == "elastic"
    assert fs.inputs["performanceMode"] == "generalPurpose"
    assert fs.inputs["creationToken"] == "unit-models"
    targets = rec.of_type("aws:efs/mountTarget:MountTarget")
    subnets = {r.id for r in rec.of_type("aws:ec2/subnet:Subnet") if "-private-" in r.name}
    assert {t.inputs["subnetId"] for t in targets} == subnets  # one per zone, the nodes' subnets
    assert all(t.inputs["fileSystemId"] == fs.id for t in targets)


def test_file_systems_admit_only_the_nodes_security_group(rec: Recording) -> None:
    groups = {g.name: g for g in rec.of_type("aws:ec2/securityGroup:SecurityGroup")}
    efs_sg = groups["unit-shared-models-access-sg"]
    fsx_sg = groups["unit-shared-ckpt-access-sg"]
    assert "ingress" not in efs_sg.inputs and "egress" not in efs_sg.inputs  # rules only as resources
    all_rules = rec.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule") + rec.of_type(
        "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
    )
    shared = [r.inputs for r in all_rules if r.name.startswith("unit-shared-")]
    assert shared and not any("cidrIpv4" in r or "cidrIpv6" in r for r in shared)  # no CIDR anywhere
    efs_rules = ingress(rec, "unit-shared-models-access-in-")
    assert [(r["fromPort"], r["toPort"], r["ipProtocol"]) for r in efs_rules] == [(2049, 2049, "tcp")]
    (node_sg,) = {r["referencedSecurityGroupId"] for r in efs_rules}
    assert node_sg != efs_sg.id
    # Lustre: 988 and 1018-1023 from the nodes and between the file servers, nothing else.
    fsx_in = ingress(rec, "unit-shared-ckpt-access-in-")
    assert sorted((r["fromPort"], r["toPort"], r["referencedSecurityGroupId"]) for r in fsx_in) == sorted(
        [(988, 988, node_sg), (988, 988, fsx_sg.id), (1018, 1023, node_sg), (1018, 1023, fsx_sg.id)]
    )
    back = ingress(rec, "unit-shared-ckpt-access-nodes-in-")
    assert {(r["securityGroupId"], r["referencedSecurityGroupId"]) for r in back} == {(node_sg, fsx_sg.id)}


def test_the_nodes_group_is_the_cluster_security_group(rec: Recording) -> None:
    (efs_rule,) = ingress(rec, "unit-shared-models-access-in-")
    assert efs_rule["referencedSecurityGroupId"] == cluster_security_group(rec)


def test_lustre_is_persistent_2_with_its_tier_in_the_gpu_zone(rec: Recording) -> None:
    (fs,) = rec.of_type("aws:fsx/lustreFileSystem:LustreFileSystem")
    assert fs.inputs["deploymentType"] == "PERSISTENT_2"
    assert fs.inputs["storageType"] == "SSD"
    assert fs.inputs["storageCapacity"] == 2400
    assert fs.inputs["perUnitStorageThroughput"] == 500
    subnet = next(s for s in rec.of_type("aws:ec2/subnet:Subnet") if s.id == fs.inputs["subnetIds"])
    assert "-private-" in subnet.name
    # The H100 pool (16 GPUs at max) pins usw2-az3: the file system sits next to it, not in the L4 zones.
    zone_ids = dict(AwsFakes({"aws:region": "us-west-2"}).zones())
    assert zone_ids[subnet.inputs["availabilityZone"]] == "usw2-az3"


def test_lustre_volume_is_static_and_bound_to_its_claim(rec: Recording) -> None:
    (fs,) = rec.of_type("aws:fsx/lustreFileSystem:LustreFileSystem")
    sc = rec.one("kubernetes:storage.k8s.io/v1:StorageClass", "unit-shared-ckpt-sc").inputs
    assert sc["provisioner"] == "kubernetes.io/no-provisioner"  # never a dynamically made file system
    pv = rec.one("kubernetes:core/v1:PersistentVolume", "unit-shared-ckpt-pv").inputs["spec"]
    assert pv["csi"]["driver"] == "fsx.csi.aws.com"
    assert pv["csi"]["volumeHandle"] == fs.id
    assert pv["csi"]["volumeAttributes"]["dnsname"] == f"{fs.id}.fsx.us-west-2.amazonaws.com"
    assert len(pv["csi"]["volumeAttributes"]["mountname"]) == 8
    assert pv["accessModes"] == ["ReadWriteMany"]
    assert pv["storageClassName"] == "shared-ckpt"
    claim = rec.one("kubernetes:core/v1:PersistentVolumeClaim", "unit-shared-ckpt-claim").inputs
    assert claim["spec"]["volumeName"] == "shared-ckpt"
    assert pv["claimRef"] == {"name": "shared-ckpt", "namespace": claim["metadata"]["namespace"]}


def test_efs_storage_class_makes_access_points_on_its_file_system(rec: Recording) -> None:
    (fs,) = rec.of_type("aws:efs/fileSystem:FileSystem")
    sc = rec.one("kubernetes:storage.k8s.io/v1:StorageClass", "unit-shared-models-sc").inputs
    assert sc["metadata"]["name"] == "shared-models"
    assert sc["provisioner"] == "efs.csi.aws.com"
    assert sc["parameters"] == {"provisioningMode": "efs-ap", "fileSystemId": fs.id, "directoryPerms": "700"}
    assert sc["reclaimPolicy"] == "Retain"


def test_each_driver_is_an_add_on_with_its_own_pod_identity(rec: Recording) -> None:
    efs = addon(rec, "aws-efs-csi-driver")
    fsx = addon(rec, "aws-fsx-csi-driver")
    s3 = addon(rec, "aws-mountpoint-s3-csi-driver")
    assert efs["podIdentityAssociations"][0]["serviceAccount"] == "efs-csi-controller-sa"
    assert fsx["podIdentityAssociations"][0]["serviceAccount"] == "fsx-csi-controller-sa"
    assert s3["podIdentityAssociations"][0]["serviceAccount"] == "s3-csi-driver-sa"
    assert "addonVersion" not in efs  # EKS's default for the cluster's minor, like the EBS add-on
    assert len({role_of(rec, a) for a in (efs, fsx, s3)}) == 3
    attachments = {
        a.inputs["policyArn"] for a in rec.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")
    }
    assert "arn:aws:iam::aws:policy/service-role/AmazonEFSCSIDriverPolicy" in attachments
    assert "arn:aws:iam::aws:policy/AmazonFSxFullAccess" not in attachments
    assert "arn:aws:iam::aws:policy/AmazonS3FullAccess" not in attachments
    for resource in rec.of_type("aws:iam/role:Role"):
        if "-shared-" in resource.name:
            trust = json.loads(resource.inputs["assumeRolePolicy"])
            assert trust["Statement"][0]["Principal"] == {"Service": "pods.eks.amazonaws.com"}


def test_s3_driver_reaches_only_the_named_bucket(rec: Recording) -> None:
    (policy,) = [
        p for p in rec.of_type("aws:iam/rolePolicy:RolePolicy") if p.name == "unit-shared-s3-csi-policy"
    ]
    document = json.loads(policy.inputs["policy"])
    resources = [r for s in document["Statement"] for r in s["Resource"]]
    assert sorted(resources) == [
        "arn:aws:s3:::my-datasets",
        "arn:aws:s3:::my-datasets/*",
        "arn:aws:s3:::my-weights",
        "arn:aws:s3:::my-weights/*",
    ]
    pv = rec.one("kubernetes:core/v1:PersistentVolume", "unit-shared-data-pv").inputs["spec"]
    assert pv["csi"]["volumeAttributes"] == {"bucketName": "my-datasets"}


def test_a_datasets_bucket_is_mounted_read_only(rec: Recording) -> None:
    """Datasets: the driver's role may only list and read that bucket, the volume and its claim are
    ReadOnlyMany and Mountpoint mounts it read-only; a model cache keeps writing."""
    (policy,) = [
        p for p in rec.of_type("aws:iam/rolePolicy:RolePolicy") if p.name == "unit-shared-s3-csi-policy"
    ]
    objects = {
        r: s["Action"]
        for s in json.loads(policy.inputs["policy"])["Statement"]
        if s["Action"] != "s3:ListBucket"
        for r in s["Resource"]
    }
    assert objects["arn:aws:s3:::my-datasets/*"] == ["s3:GetObject"]
    assert "s3:PutObject" in objects["arn:aws:s3:::my-weights/*"]
    data = rec.one("kubernetes:core/v1:PersistentVolume", "unit-shared-data-pv").inputs["spec"]
    assert data["accessModes"] == ["ReadOnlyMany"]
    assert data["mountOptions"] == ["region us-west-2", "read-only"]
    claim = rec.one("kubernetes:core/v1:PersistentVolumeClaim", "unit-shared-data-claim").inputs["spec"]
    assert claim["accessModes"] == ["ReadOnlyMany"]
    weights = rec.one("kubernetes:core/v1:PersistentVolume", "unit-shared-weights-pv").inputs["spec"]
    assert weights["accessModes"] == ["ReadWriteMany"]
    assert weights["mountOptions"] == ["region us-west-2"]


def test_fsx_controller_cannot_create_or_delete_file_systems(rec: Recording) -> None:
    (policy,) = [
        p for p in rec.of_type("aws:iam/rolePolicy:RolePolicy") if p.name == "unit-shared-fsx-csi-policy"
    ]
    actions = {s["Action"] for s in json.loads(policy.inputs["policy"])["Statement"]}
    assert actions == {"fsx:DescribeFileSystems"}


def test_add_ons_wait_for_pod_identity_agent(rec: Recording) -> None:
    agent = rec.one("aws:eks/addon:Addon", "unit-pod-identity-agent")
    for resource in rec.of_type("aws:eks/addon:Addon"):
        if resource.name.startswith("unit-shared-"):
            assert agent.urn in resource.dependencies


def test_shared_storage_arguments_are_ones_the_providers_know(rec: Recording) -> None:
    for resource in rec.resources:
        if resource.name.startswith("unit-shared-") and resource.custom:
            assert unknown_argument_names(resource.inputs) == [], resource.name


def lustre_zone_of(rec: Recording) -> str:
    (fs,) = rec.of_type("aws:fsx/lustreFileSystem:LustreFileSystem")
    subnet = next(s for s in rec.of_type("aws:ec2/subnet:Subnet") if s.id == fs.inputs["subnetIds"])
    return dict(AwsFakes({"aws:region": "us-west-2"}).zones())[subnet.inputs["availabilityZone"]]


def lustre_config(l4_max_nodes: int, **volume: Any) -> dict[str, Any]:
    ckpt = {"name": "ckpt", "kind": "fsx-lustre", "role": "checkpoints", "sizeGb": 2400, **volume}
    config = eks_config(**{"gpukit:storage": {"shared": [ckpt]}})
    config["gpukit:nodePools"][1]["maxNodes"] = l4_max_nodes
    config["gpukit:nodePools"].append(
        {"name": "h100", "instanceType": "p5.48xlarge", "minNodes": 0, "maxNodes": 2, "zones": ["usw2-az3"]}
    )
    return config


def test_a_pinned_lustre_zone_does_not_follow_the_biggest_gpu_pool() -> None:
    """Raising the L4 pool to 100 GPUs makes it the biggest: an unpinned file system moves to its zone
    (a replacement, an empty file system); one whose zone the config pins stays where it is."""
    assert lustre_zone_of(record(lambda: build(lustre_config(8)))) == "usw2-az3"
    assert lustre_zone_of(record(lambda: build(lustre_config(100)))) == "usw2-az1"  # what the pin prevents
    pinned = record(lambda: build(lustre_config(100, zone="usw2-az3")))
    assert lustre_zone_of(pinned) == "usw2-az3"


def test_lustre_takes_a_final_backup_tagged_with_its_cluster_when_deleted(rec: Recording) -> None:
    (fs,) = rec.of_type("aws:fsx/lustreFileSystem:LustreFileSystem")
    assert fs.inputs["skipFinalBackup"] is False
    # The provider's default tags do not reach a final backup: without the cluster's own, an operator
    # cannot tell whose it is.
    assert fs.inputs["finalBackupTags"] == {
        "gpukit:cluster": "unit",
        "managed-by": "gpukit",
        "Name": "unit-ckpt-final",
    }


def test_an_ephemeral_stacks_lustre_leaves_no_backup_behind() -> None:
    """Each teardown of an ephemeral copy would otherwise leave one backup, billed until deleted."""
    config = lustre_config(8)
    config["gpukit:ephemeral"] = {"expiresAt": "2026-12-03T12:00:00Z"}
    (fs,) = record(lambda: build(config)).of_type("aws:fsx/lustreFileSystem:LustreFileSystem")
    assert fs.inputs["skipFinalBackup"] is True
    assert "finalBackupTags" not in fs.inputs


def test_new_lustre_file_systems_run_2_15_and_existing_ones_are_not_upgraded(rec: Recording) -> None:
    """The FSx API creates Lustre 2.12 unless told; raising an existing one's version upgrades it in place."""
    (fs,) = rec.of_type("aws:fsx/lustreFileSystem:LustreFileSystem")
    assert fs.inputs["fileSystemTypeVersion"] == "2.15"
    assert "fileSystemTypeVersion" in fs.ignore_changes


def test_efs_refuses_clients_without_tls(rec: Recording) -> None:
    """The file system's own policy denies any connection without TLS (the default policy lets any client
    of a mount target in, TLS or not) and otherwise grants only through a mount target."""
    (fs,) = rec.of_type("aws:efs/fileSystem:FileSystem")
    (policy,) = rec.of_type("aws:efs/fileSystemPolicy:FileSystemPolicy")
    assert policy.inputs["fileSystemId"] == fs.id
    allow, deny = json.loads(policy.inputs["policy"])["Statement"]
    arn = f"arn:aws:elasticfilesystem:us-west-2:{ACCOUNT_ID}:file-system/{fs.id}"
    assert deny["Effect"] == "Deny" and deny["Action"] == "*" and deny["Resource"] == arn
    assert deny["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    assert allow["Effect"] == "Allow"
    assert allow["Condition"] == {
        "Bool": {"elasticfilesystem:AccessedViaMountTarget": "true"},
        # Only through an access point: no mount of the root with a node role's credentials.
        "Null": {"elasticfilesystem:AccessPointArn": "false"},
    }
    sc = rec.one("kubernetes:storage.k8s.io/v1:StorageClass", "unit-shared-models-sc")
    assert policy.urn in sc.dependencies  # no claim is provisioned before the policy is in place


def test_efs_admits_only_the_node_roles_and_no_root(rec: Recording) -> None:
    """Issue 29, point 15: EFS's default policy admits any anonymous client of a mount target, and pods
    reach the mount targets with their node's security group. The policy names the nodes' roles (managed
    node groups' and, under Karpenter, its own), grants no root, and the class mounts with IAM."""
    (policy,) = rec.of_type("aws:efs/fileSystemPolicy:FileSystemPolicy")
    allow = json.loads(policy.inputs["policy"])["Statement"][0]
    assert allow["Action"] == ["elasticfilesystem:ClientMount", "elasticfilesystem:ClientWrite"]
    node_roles = {g.inputs["nodeRoleArn"] for g in rec.of_type("aws:eks/nodeGroup:NodeGroup")}
    assert len(node_roles) == 1 and allow["Principal"] == {"AWS": sorted(node_roles)}
    sc = rec.one("kubernetes:storage.k8s.io/v1:StorageClass", "unit-shared-models-sc")
    assert sc.inputs["mountOptions"] == ["iam"]


def test_under_karpenter_efs_admits_karpenters_node_role_too() -> None:
    from harness import karpenter_eks_config

    rec = record(
        lambda: build(karpenter_eks_config(**{"gpukit:storage": {"shared": [STORAGE["shared"][0]]}}))
    )
    (policy,) = rec.of_type("aws:efs/fileSystemPolicy:FileSystemPolicy")
    principals = json.loads(policy.inputs["policy"])["Statement"][0]["Principal"]["AWS"]
    managed = {g.inputs["nodeRoleArn"] for g in rec.of_type("aws:eks/nodeGroup:NodeGroup")}
    karpenter = rec.one("aws:eks/accessEntry:AccessEntry", "unit-karpenter-node-access").inputs[
        "principalArn"
    ]
    assert len(managed) == 1 and karpenter not in managed
    assert principals == sorted({*managed, karpenter})


def test_no_network_policy_on_eks_where_the_cni_enforces_none(rec: Recording) -> None:
    assert not rec.of_type("kubernetes:networking.k8s.io/v1:NetworkPolicy")


def test_the_plan_says_claims_provisioned_before_need_iam_in_their_volumes() -> None:
    """Upgrading a cluster: a PersistentVolume keeps the mount options its class had when it was made,
    so the plan names the one thing an operator must add for EFS to keep mounting it."""
    from gpukit.components.addons.storage.plan import planned_volumes
    from gpukit.components.resolve.config import resolve_config
    from gpukit.providers.aws.eks.shared_storage.findings import efs_iam_findings

    cluster = resolve_config(eks_config(**{"gpukit:storage": STORAGE}))
    (finding,) = efs_iam_findings(cluster, planned_volumes(cluster))
    assert finding.key == "gpukit:storage.shared[0]"
    assert "add `iam` to their PersistentVolumes' mountOptions (class shared-models)" in finding.message

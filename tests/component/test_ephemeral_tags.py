"""An ephemeral stack's expiry is on every cloud resource: the AWS tag / Google Cloud label
`gpukit-expires-at`, driven by `gpukit:ephemeral.expiresAt`, on plans of the longest name an ephemeral
stack can get."""

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from gpukit.components.ephemeral import EXPIRY_TAG
from gpukit.components.errors import ConfigError
from gpukit.components.resolve.config import resolve_config
from gpukit.ephemeral.names import ephemeral_name
from gpukit.program import build
from harness import Recorded, Recording, example_config, record

EXPIRES_AT = "2026-12-01T15:30:00Z"
LABEL = "20261201t1530z"
# The longest name: a source that fills SOURCE_ROOM, so every name gpukit derives is at its longest.
NAME = ephemeral_name("researchteamstack", datetime(2026, 12, 1, 11, 30, tzinfo=UTC), "x7k2")


def _ephemeral(stack: str) -> tuple[dict[str, Any], str]:
    config = example_config(stack)
    config["gpukit:cluster"]["name"] = NAME
    config["gpukit:ephemeral"] = {"expiresAt": EXPIRES_AT}
    region = config.get("aws:region") or config["gcp:region"]
    return config, region


def _run(stack: str) -> Recording:
    config, region = _ephemeral(stack)
    return record(lambda: build(config), region=region)


def test_the_longest_ephemeral_name_is_a_full_length_cluster_name() -> None:
    assert len(NAME) == 32 and NAME.startswith("eph-researchteam-")


ASG = "aws:autoscaling/group:Group"
ASG_TAG = "aws:autoscaling/tag:Tag"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
DEFAULT_TAGS_MISS = frozenset({ASG})
"""AWS types the provider's default tags do not reach though they take tags: an Auto Scaling group
takes a list of tags with PropagateAtLaunch (terraform-aws-eks#1916)."""


def _own_aws_tags(r: Recorded) -> dict[str, str]:
    """The tags a resource's own inputs give it: a tag map, or an Auto Scaling group's tag list."""
    tags = r.inputs.get("tags")
    if isinstance(tags, list):
        return {t["key"]: t["value"] for t in tags}
    return dict(tags or {})


@pytest.mark.parametrize("stack", ["eks-dev", "eks-train", "k3s-aws"])
def test_every_aws_resource_is_tagged_with_the_expiry(stack: str) -> None:
    rec = _run(stack)
    providers = rec.of_type("pulumi:providers:aws")
    assert providers
    for p in providers:  # default tags reach every taggable resource the provider creates ...
        assert json.loads(p.inputs["defaultTags"])["tags"][EXPIRY_TAG] == LABEL
    urns = tuple(p.urn for p in providers)
    checked = 0
    for r in rec.resources:
        if not (r.custom and r.type.startswith("aws:")):
            continue
        assert r.provider.startswith(urns), f"{r.name} is built without the cluster's provider"
        # ... except the types they miss: those count only with the expiry among their own tags.
        if r.type in DEFAULT_TAGS_MISS:
            own = _own_aws_tags(r)
            assert own.get(EXPIRY_TAG) == LABEL and own.get("gpukit:cluster") == NAME, r.name
            checked += 1
        # Nor do they reach instances from launch templates.
        for spec in r.inputs.get("tagSpecifications") or []:
            assert spec["tags"][EXPIRY_TAG] == LABEL, (r.name, spec.get("resourceType"))
            checked += 1
    # The autoscaling group EKS makes for a managed node group is not Pulumi's: tagged by a Tag resource
    # beside the node group.
    for group in rec.of_type(NODE_GROUP):
        tags = [t.inputs["tag"] for t in rec.of_type(ASG_TAG) if t.parent == group.parent]
        assert {"key": EXPIRY_TAG, "value": LABEL, "propagateAtLaunch": False} in tags, group.name
        checked += 1
    # Instances Karpenter launches are tagged from its EC2NodeClass, not by Pulumi.
    for r in rec.of_type("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"):
        assert r.inputs["spec"]["tags"][EXPIRY_TAG] == LABEL
        checked += 1
    # Volumes the EBS CSI driver makes for claims are tagged from the StorageClass.
    for sc in rec.of_type("kubernetes:storage.k8s.io/v1:StorageClass"):
        if sc.inputs["provisioner"] == "ebs.csi.aws.com":
            assert sc.inputs["parameters"]["tagSpecification_1"] == f"{EXPIRY_TAG}={LABEL}", sc.name
            checked += 1
    assert checked, "no group, launch template or EC2NodeClass carries tags: the test checks nothing there"


@pytest.mark.parametrize("stack", ["gke-dev", "gke-train", "k3s-gcp"])
def test_every_google_cloud_resource_is_labelled_with_the_expiry(stack: str) -> None:
    rec = _run(stack)
    providers = rec.of_type("pulumi:providers:gcp")
    assert providers
    for p in providers:
        assert json.loads(p.inputs["defaultLabels"])[EXPIRY_TAG] == LABEL
    urns = tuple(p.urn for p in providers)
    vm_labels = 0
    for r in rec.resources:
        if not (r.custom and r.type.startswith("gcp:")):
            continue
        assert r.provider.startswith(urns), f"{r.name} is built without the cluster's provider"
        # The provider's default labels merge into each resource's own `labels`; they do not reach a GKE
        # pool's node VMs (`resourceLabels`) nor the disks of a k3s instance template.
        # (The cluster's own nodeConfig is its default pool's, removed as soon as the cluster exists.)
        node_config = r.inputs.get("nodeConfig")
        if node_config is not None and r.type == "gcp:container/nodePool:NodePool":
            assert node_config["resourceLabels"][EXPIRY_TAG] == LABEL, r.name
            vm_labels += 1
        for disk in r.inputs.get("disks") or []:
            assert disk["labels"][EXPIRY_TAG] == LABEL, r.name
            vm_labels += 1
    # Disks the PD CSI driver makes for claims are labelled from the StorageClass.
    for sc in rec.of_type("kubernetes:storage.k8s.io/v1:StorageClass"):
        if sc.inputs["provisioner"] == "pd.csi.storage.gke.io":
            assert sc.inputs["parameters"]["labels"] == f"{EXPIRY_TAG}={LABEL}", sc.name
            vm_labels += 1
    assert vm_labels, "no node VM or disk carries labels: the test checks nothing there"


@pytest.mark.parametrize("stack", ["eks-dev", "gke-dev", "k3s-aws"])
def test_a_stack_that_is_not_ephemeral_carries_no_expiry(stack: str) -> None:
    config = example_config(stack)
    rec = record(lambda: build(config), region=config.get("aws:region") or config["gcp:region"])
    assert EXPIRY_TAG not in json.dumps([r.inputs for r in rec.resources])


def test_k3s_over_ssh_has_nothing_to_tag_and_refuses_the_key() -> None:
    config = example_config("k3s-ssh")
    config["gpukit:sshPrivateKey"] = "-----BEGIN OPENSSH PRIVATE KEY-----"  # decrypted, as under Pulumi
    secret = ["gpukit:sshPrivateKey"]
    rec = record(lambda: build(config, secret), config=config, secret_keys=secret)
    assert rec.resources
    assert not [r.type for r in rec.resources if r.type.startswith(("aws:", "gcp:", "pulumi:providers:a"))]
    config["gpukit:ephemeral"] = {"expiresAt": EXPIRES_AT}
    with pytest.raises(ConfigError) as err:
        resolve_config(config, secret)
    assert [p.key for p in err.value.problems] == ["gpukit:ephemeral"]


@pytest.mark.parametrize(
    "bad", ["2026-12-01 15:30:00Z", "2026-12-01T15:30:00+01:00", "2026-02-30T00:00:00Z", "4h"]
)
def test_an_expiry_that_is_not_rfc3339_utc_is_refused_naming_the_key(bad: str) -> None:
    config = example_config("eks-dev")
    config["gpukit:ephemeral"] = {"expiresAt": bad}
    with pytest.raises(ConfigError) as err:
        resolve_config(config)
    (problem,) = err.value.problems
    assert problem.key == "gpukit:ephemeral.expiresAt" and repr(bad) in problem.message


def test_users_cannot_set_the_expiry_tag_themselves() -> None:
    for stack in ("eks-dev", "gke-dev"):
        config = example_config(stack)
        config["gpukit:cluster"]["tags"] = {EXPIRY_TAG: "never"}
        with pytest.raises(ConfigError) as err:
            resolve_config(config)
        assert [p.key for p in err.value.problems] == [f"gpukit:cluster.tags.{EXPIRY_TAG}"]

"""Cluster Autoscaler Helm values: version pinned to the cluster's minor, only keys the chart has."""

import re
from typing import Any

import pytest

from gpukit.components.addons.verification.findings import SCALE_DOWN_MINUTES
from gpukit.components.autoscaler.provisioning import with_provisioning_requests
from gpukit.providers.aws.eks.autoscaler_values import SERVICE_ACCOUNT, asg_pattern, cluster_autoscaler_values

# Key paths of the chart's values, from kubernetes/autoscaler charts/cluster-autoscaler/values.yaml,
# chart 9.5x. extraArgs is a free-form map of autoscaler flags: any key under it is allowed.
CHART_KEYS = {
    "cloudProvider",
    "awsRegion",
    "autoDiscovery.clusterName",
    "autoDiscovery.tags",
    "rbac.serviceAccount.create",
    "rbac.serviceAccount.name",
    "rbac.serviceAccount.annotations",
    "rbac.additionalRules",  # chart 9.59.0 values.yaml: "Additional rules for role/clusterrole"
    "image.repository",
    "image.tag",
    "image.pullPolicy",
    "extraArgs",
    "tolerations",
    "nodeSelector",
    "priorityClassName",
    "podAnnotations",
    "fullnameOverride",
}
FREE_FORM = {"extraArgs"}

VERSIONS = ["1.34", "1.35", "1.36"]


def _leaf_paths(values: dict[str, Any], prefix: str = "") -> list[str]:
    paths = []
    for key, value in values.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and path not in FREE_FORM:
            paths.extend(_leaf_paths(value, f"{path}."))
        else:
            paths.append(path)
    return paths


@pytest.mark.parametrize("version", VERSIONS)
def test_image_minor_matches_the_cluster(version):
    tag = cluster_autoscaler_values("c1", "us-west-2", version)["image"]["tag"]
    assert tag.startswith(f"v{version}.")
    assert tag.count(".") == 2


def test_image_tag_for_1_35():
    tag = cluster_autoscaler_values("c1", "us-west-2", "1.35")["image"]["tag"]
    assert tag.startswith("v1.35.")


@pytest.mark.parametrize("version", VERSIONS)
def test_region_cluster_and_service_account(version):
    values = cluster_autoscaler_values("gpu-prod", "eu-west-1", version)
    assert values["cloudProvider"] == "aws"
    assert values["awsRegion"] == "eu-west-1"
    assert values["autoDiscovery"]["clusterName"] == "gpu-prod"
    assert values["rbac"]["serviceAccount"]["name"] == SERVICE_ACCOUNT
    assert values["rbac"]["serviceAccount"]["create"] is True


def test_service_account_name_is_what_pod_identity_binds():
    assert SERVICE_ACCOUNT == "cluster-autoscaler"


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("queued", [False, True])
def test_every_key_gpukit_sets_exists_in_the_chart(version, queued):
    values = cluster_autoscaler_values("c1", "us-west-2", version)
    if queued:  # a queued pool's ProvisioningRequest flags and RBAC rule
        values = with_provisioning_requests(values)
    paths = _leaf_paths(values)
    unknown = [p for p in paths if p not in CHART_KEYS]
    assert unknown == []


def test_leaf_path_walker_finds_nested_keys():
    # Keeps the allowlist check above from passing on a walker that sees only top-level keys.
    paths = _leaf_paths({"a": {"b": {"c": 1}}, "extraArgs": {"x": 1}, "d": 2})
    assert sorted(paths) == ["a.b.c", "d", "extraArgs"]


def test_scale_to_zero_flags():
    extra = cluster_autoscaler_values("c1", "us-west-2", "1.35")["extraArgs"]
    assert extra["skip-nodes-with-system-pods"] is False
    assert extra["expander"] == "least-waste"
    assert extra["balance-similar-node-groups"] is True


def test_unready_gpu_nodes_go_as_soon_as_idle_ones():
    """A mixed-MIG node advertises no nvidia.com/gpu, so the autoscaler counts it unready and removes it
    only after scale-down-unready-time (20 min upstream); gpukit sets it to the 10 min the verification's
    cost finding states (issue 29, point 6)."""
    extra = cluster_autoscaler_values("c1", "us-west-2", "1.35")["extraArgs"]
    assert extra["scale-down-unready-time"] == extra["scale-down-unneeded-time"] == "10m"
    assert f"{SCALE_DOWN_MINUTES}m" == "10m"


def test_unsupported_minor_is_rejected():
    with pytest.raises(KeyError):
        cluster_autoscaler_values("c1", "us-west-2", "1.33")


def test_spot_gpu_groups_come_first_when_an_on_demand_gpu_group_can_take_over():
    """A spot GPU pool falls back to an on-demand one: the priority expander ranks the spot groups
    above every other group, least waste breaking ties."""
    values = cluster_autoscaler_values("c1", "us-west-2", "1.35", [asg_pattern("eks-l4-a-1234")], 1)
    assert values["extraArgs"]["expander"] == "priority,least-waste"
    assert values["expanderPriorities"] == {"20": [r"^eks\-l4\-a\-1234$"], "10": [".*"]}


@pytest.mark.parametrize(("spot", "others"), [([], 1), ([asg_pattern("eks-l4-a-1234")], 0)])
def test_no_ranking_without_both_kinds_of_gpu_group(spot, others):
    values = cluster_autoscaler_values("c1", "us-west-2", "1.35", spot, others)
    assert values["extraArgs"]["expander"] == "least-waste"
    assert "expanderPriorities" not in values


def test_an_asg_pattern_matches_its_group_only_where_the_expander_searches():
    """The expander searches a pattern anywhere in the group's name (priority.go FindStringIndex)."""
    pattern = asg_pattern("eks-l4-a-1234")
    assert re.search(pattern, "eks-l4-a-1234")
    assert not re.search(pattern, "eks-l4-a-1234-x") and not re.search(pattern, "eks-big-eks-l4-a-1234")

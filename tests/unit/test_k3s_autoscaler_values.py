"""The Cluster Autoscaler on k3s: chart values, the GCE groups' split and template hints, IAM names.
Pure functions, no Pulumi."""

import re
from typing import Any

import pytest
import yaml
from unit.test_autoscaler_values import CHART_KEYS, _leaf_paths
from unit.test_k3s_gcp import facts

from gpukit.components.autoscaler.k3s_values import ScalingGroup, exact, expander_priorities
from gpukit.components.spec import Capacity
from gpukit.providers.aws.eks.autoscaler_values import cluster_autoscaler_values
from gpukit.providers.aws.k3s.autoscaler import ec2_autoscaler_values
from gpukit.providers.gcp.k3s.autoscaler import (
    ZoneGroup,
    gce_autoscaler_values,
    kube_env,
    split_evenly,
    zone_groups,
)
from gpukit.providers.gcp.k3s.autoscaler_iam import ROLE_ID_MAX, only_these_condition, role_id

# Keys of the chart's values that k3s adds to what EKS sets (charts/cluster-autoscaler/values.yaml and
# templates/deployment.yaml: hostNetwork, dnsPolicy, autoscalingGroups[].name/minSize/maxSize,
# expanderPriorities).
K3S_CHART_KEYS = CHART_KEYS | {"hostNetwork", "dnsPolicy", "autoscalingGroups", "expanderPriorities"}
FREE_FORM_K3S = ("expanderPriorities", "nodeSelector")  # maps of any keys
L4 = facts("g2-standard-8")
GCE_URL = "https://www.googleapis.com/compute/v1/projects/p/zones/{zone}/instanceGroups/{name}"


def _paths(values: dict[str, Any]) -> list[str]:
    flat = {k: v for k, v in values.items() if k not in FREE_FORM_K3S}
    return _leaf_paths(flat) + [k for k in FREE_FORM_K3S if k in values]


def test_eks_values_are_unchanged_by_the_shared_chart_module() -> None:
    # The EKS golden (tests/golden/cluster-autoscaler-values-eks.yaml) pins every value; this pins
    # that the chart constants are the ones EKS used.
    values = cluster_autoscaler_values("eks-dev", "us-west-2", "1.35")
    # Issue 29, point 19: the 1.35 image by digest, not by a tag that can be moved.
    assert values["image"] == {
        "tag": "v1.35.0@sha256:2fc9433dd3b47baef0e68d6b1110b770a3c93db10c7bead4c5bc6cb21c72b875"
    }
    assert set(values) == {"cloudProvider", "awsRegion", "autoDiscovery", "rbac", "image", "extraArgs"}


@pytest.mark.parametrize("version", ["1.34", "1.35", "1.36"])
def test_every_key_the_k3s_values_set_exists_in_the_chart(version: str) -> None:
    aws = ec2_autoscaler_values("c", "us-east-1", version, [L4])
    gce = gce_autoscaler_values(version, [(ZoneGroup("us-central1-a", "c-l4-a", 0, 2), True, "u1")])
    for values in (aws, gce):
        assert [p for p in _paths(values) if p not in K3S_CHART_KEYS] == []
        assert values["image"]["tag"].startswith(f"v{version}.")


def test_priorities_rank_spot_above_the_rest_only_when_both_exist() -> None:
    spot, other = ScalingGroup("a", True), ScalingGroup("b", False)
    assert expander_priorities([spot, other]) == {"20": ["a"], "10": [".*"]}
    assert expander_priorities([spot]) == {}  # nothing to fall back to
    assert expander_priorities([other]) == {}  # nothing to prefer


def test_split_keeps_the_pools_bounds() -> None:
    assert split_evenly(4, 3) == [2, 1, 1]
    assert split_evenly(0, 3) == [0, 0, 0]
    groups = zone_groups("k3s-gcp", L4, ["us-central1-a", "us-central1-b", "us-central1-c"])
    assert [(g.name, g.min_size, g.max_size) for g in groups] == [
        ("k3s-gcp-p-a", 0, 1),
        ("k3s-gcp-p-b", 0, 1),
    ]  # maxNodes 2: no group in the third zone
    assert sum(g.max_size for g in groups) == L4.max_nodes


def test_gce_groups_become_nodes_flags_with_their_own_bounds() -> None:
    a = ZoneGroup("us-central1-a", "c-p-a", 1, 2)
    values = gce_autoscaler_values("1.36", [(a, False, GCE_URL.format(zone=a.zone, name=a.name))])
    assert values["autoscalingGroups"] == [
        {
            "name": "https://www.googleapis.com/compute/v1/projects/p/zones/us-central1-a/instanceGroups/c-p-a",
            "minSize": 1,
            "maxSize": 2,
        }
    ]
    assert values["cloudProvider"] == "gce"


def _vars(text: str) -> dict[str, str]:
    loaded = yaml.safe_load(text)
    assert set(loaded) == {"AUTOSCALER_ENV_VARS"}
    return dict(item.split("=", 1) for item in loaded["AUTOSCALER_ENV_VARS"].split(";"))


def test_kube_env_of_a_gpu_pool() -> None:
    found = _vars(kube_env(L4))
    assert found["extended_resources"] == "nvidia.com/gpu=1"
    assert found["node_taints"] == "nvidia.com/gpu=present:NoSchedule"
    assert "cloud.google.com/gke-accelerator=nvidia-l4" in found["node_labels"].split(",")


def test_kube_env_of_a_mixed_mig_pool_offers_no_whole_gpu() -> None:
    mig = facts("a2-highgpu-1g", sharing={"mode": "mig", "mig": {"profile": "1g.5gb", "strategy": "mixed"}})
    resources = dict(pair.split("=") for pair in _vars(kube_env(mig))["extended_resources"].split(","))
    assert resources["nvidia.com/gpu"] == "0"  # or the guest accelerators' count would stand
    assert resources["nvidia.com/mig-1g.5gb"] == "7"


def test_kube_env_of_a_cpu_pool_has_no_gpu() -> None:
    found = _vars(kube_env(facts("e2-standard-4")))
    assert "extended_resources" not in found and "node_taints" not in found


def test_spot_pools_are_spot_groups() -> None:
    spot = facts("g2-standard-8", capacity=Capacity.SPOT)
    values = ec2_autoscaler_values("c", "us-east-1", "1.36", [spot, facts("g2-standard-8")])
    assert values["expanderPriorities"]["20"] == [r"^c\-p\-[0-9]{26}$"]


def test_custom_role_ids_fit_iam() -> None:
    long = role_id("a-very-long-cluster-name-" * 4, "resize")
    assert len(long) <= ROLE_ID_MAX and long.endswith("_autoscaler_resize")
    for found in (long, role_id("k3s-gcp", "read")):
        assert all(c.isalnum() or c in "_." for c in found)
    assert role_id("k3s-gcp", "read") == "gpukit_k3s_gcp_autoscaler_read"


def test_condition_names_each_group_exactly() -> None:
    ids = [
        "projects/p/zones/z-b/instanceGroupManagers/c-l4-b",
        "projects/p/zones/z-a/instanceGroupManagers/c-l4-a",
    ]
    assert only_these_condition(ids) == (
        'resource.name == "projects/p/zones/z-a/instanceGroupManagers/c-l4-a" || '
        'resource.name == "projects/p/zones/z-b/instanceGroupManagers/c-l4-b"'
    )


def test_a_priority_pattern_matches_its_own_group_only_where_the_expander_searches_ids() -> None:
    """The priority expander searches each pattern anywhere in a group's id (priority.go,
    groupIDMatchesList: FindStringIndex), as re.search does: pool `l4`'s group must not catch pool
    `l4-b`'s, whose names share a prefix."""
    url = "https://www.googleapis.com/compute/v1/projects/p/zones/us-central1-{}/instanceGroups/{}"
    own, other = url.format("b", "k3s-gcp-l4-b"), url.format("a", "k3s-gcp-l4-b-a")
    assert re.search(exact("k3s-gcp-l4-b"), own)
    assert not re.search(exact("k3s-gcp-l4-b"), other)
    spot, plain = facts("g2-standard-8", capacity=Capacity.SPOT), facts("g2-standard-8")
    pattern = ec2_autoscaler_values("c", "us-east-1", "1.36", [spot, plain])["expanderPriorities"]["20"][0]
    assert re.search(pattern, "c-p-" + "1" * 26)
    assert not re.search(pattern, "c-p-" + "1" * 26 + "-x") and not re.search(pattern, "x-c-p-" + "1" * 26)

"""Spot that drains on k3s: aws-node-termination-handler's values on EC2 (checked against the chart's
own values.yaml), and the kubelet's shutdown window on Compute Engine spot machines."""

from pathlib import Path
from typing import Any

import yaml

from gpukit.components.k3s.cloud_init import CloudNode
from gpukit.components.k3s.host_scripts import k3s_download
from gpukit.components.k3s.shutdown import DEFAULT_SHUTDOWN
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import DriverMode, NodePoolSpec, NodeRole
from gpukit.providers.aws.k3s.spot_drain_values import (
    CHART,
    CHART_VERSION,
    IMAGE_TAG,
    spot_drain_findings,
    spot_pools,
    termination_handler_values,
)
from gpukit.providers.gcp.k3s.preemption import (
    SPOT_SHUTDOWN,
    SPOT_SOFT_OFF_SECONDS,
    preemption_findings,
    preemption_ready,
)
from harness import substrate

CHART_VALUES = Path(__file__).parents[1] / "reference/aws-node-termination-handler-0.27.6/values.yaml"


def facts(provider: str, name: str, instance_type: str, **extra: Any) -> PoolFacts:
    spec: dict[str, Any] = {"name": name, "instance_type": instance_type, "min_nodes": 0, "max_nodes": 2}
    spec.update(extra)
    pool: NodePoolSpec = spec  # type: ignore[assignment]
    return substrate(provider).pool_facts(pool)


AWS_POOLS = [
    facts("k3s-aws", "control", "m7i.large", role=NodeRole.SERVER),
    facts("k3s-aws", "l4", "g6.xlarge", capacity="spot"),
    facts("k3s-aws", "cpu", "m7i.large"),
    facts("k3s-aws", "l40s", "g6e.xlarge", capacity="spot"),
]


def test_the_handler_watches_the_spot_pools_and_only_them() -> None:
    assert spot_pools(AWS_POOLS) == ["l4", "l40s"]
    values = termination_handler_values(spot_pools(AWS_POOLS))
    terms = values["daemonsetAffinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert terms == {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": "gpukit.dev/pool", "operator": "In", "values": ["l4", "l40s"]}]}
        ]
    }
    # GPU pools are tainted: the DaemonSet must run there anyway.
    assert values["daemonsetTolerations"] == [{"operator": "Exists"}]
    assert "nodeSelector" not in values and "linuxNodeSelector" not in values


def test_imds_mode_drains_on_interruption_rebalance_and_maintenance_without_aws_credentials() -> None:
    values = termination_handler_values(["l4"])
    assert values["enableSqsTerminationDraining"] is False
    for key in ("queueURL", "awsRegion", "awsAccessKeyID", "awsSecretAccessKey", "serviceAccount"):
        assert key not in values  # no queue, no AWS API calls, no role annotation
    flags = ("enableSpotInterruptionDraining", "enableRebalanceMonitoring", "enableRebalanceDraining")
    assert all(values[f] is True for f in (*flags, "enableScheduledEventDraining"))
    # kubectl drain --ignore-daemonsets --delete-emptydir-data, done before EC2's two minutes run out.
    assert (values["ignoreDaemonSets"], values["deleteLocalData"]) == (True, True)
    assert values["nodeTerminationGracePeriod"] == 120
    # Host network: pod traffic to IMDS is dropped by gpukit's metadata guard, and the hop limit is 1.
    assert values["useHostNetwork"] is True
    assert values["image"] == {
        "repository": "public.ecr.aws/aws-ec2/aws-node-termination-handler",
        "tag": IMAGE_TAG,
    }
    assert (CHART, CHART_VERSION) == (
        "oci://public.ecr.aws/aws-ec2/helm/aws-node-termination-handler",
        "0.27.6",
    )


def _unknown(values: dict[str, Any], chart: dict[str, Any], prefix: str = "") -> list[str]:
    """Keys gpukit sets that the chart does not have; free-form objects (affinity, tolerations) stop
    the walk where the chart's default is not a mapping with keys of its own."""
    unknown: list[str] = []
    for key, value in values.items():
        if key not in chart:
            unknown.append(prefix + key)
        elif (
            isinstance(value, dict)
            and isinstance(chart[key], dict)
            and chart[key]
            and key != "daemonsetAffinity"
        ):
            unknown += _unknown(value, chart[key], f"{prefix}{key}.")
    return unknown


def test_every_value_is_a_key_of_the_pinned_chart() -> None:
    chart = yaml.safe_load(CHART_VALUES.read_text())
    values = termination_handler_values(["l4"])
    assert _unknown(values, chart) == []
    # The chart's own defaults agree with what gpukit states (a newer chart changing one shows up here).
    for key in ("enableSpotInterruptionDraining", "enableScheduledEventDraining", "ignoreDaemonSets"):
        assert chart[key] == values[key], key
    assert chart["daemonsetTolerations"] == values["daemonsetTolerations"]
    assert chart["nodeTerminationGracePeriod"] == values["nodeTerminationGracePeriod"]
    assert _unknown({"nope": 1, "rbac": {"nope": 1}}, chart) == ["nope", "rbac.nope"]  # the check bites


def test_values_golden(golden) -> None:  # type: ignore[no-untyped-def]
    golden("nth-values-k3s-aws.yaml", yaml.safe_dump(termination_handler_values(["l4"]), sort_keys=False))


def test_the_plan_names_what_drains_each_spot_pool() -> None:
    findings = [str(f) for f in spot_drain_findings(AWS_POOLS)]
    assert [f.split(": ")[1] for f in findings] == [
        "gpukit:nodePools[1].capacity",
        "gpukit:nodePools[3].capacity",
    ]
    assert "spot pool 'l4' drains: aws-node-termination-handler v1.25.6 (IMDS mode" in findings[0]
    # The node-local backstop: power-off the kubelet's 60 s + 10 s before EC2's deadline.
    assert "gpukit-spot-notice.service on the node powers it off 70 s before EC2's deadline" in findings[0]
    assert spot_drain_findings([AWS_POOLS[0], AWS_POOLS[2]]) == []


# --- Compute Engine


NODE = CloudNode(NodeRole.AGENT, k3s_download("v1.36.4+k3s1"), DriverMode.PREINSTALLED)


def test_a_spot_machine_stops_its_pods_within_the_preemption_window() -> None:
    spot = facts("k3s-gcp", "l4", "g2-standard-8", capacity="spot")
    on_demand = facts("k3s-gcp", "l4", "g2-standard-8")
    assert preemption_ready(NODE, spot).shutdown == SPOT_SHUTDOWN
    assert preemption_ready(NODE, on_demand).shutdown == DEFAULT_SHUTDOWN
    # The whole kubelet period fits between the soft off and the power-off; GKE's split of it.
    assert SPOT_SHUTDOWN.grace_period_s <= SPOT_SOFT_OFF_SECONDS
    assert (SPOT_SHUTDOWN.regular_pods_s, SPOT_SHUTDOWN.critical_pods_s) == (15, 15)
    # The default would outlast the window: the power-off would cut the critical pods short.
    assert DEFAULT_SHUTDOWN.grace_period_s > SPOT_SOFT_OFF_SECONDS
    assert yaml.safe_load(SPOT_SHUTDOWN.kubelet_config()) == {
        "apiVersion": "kubelet.config.k8s.io/v1beta1",
        "kind": "KubeletConfiguration",
        "shutdownGracePeriod": "30s",
        "shutdownGracePeriodCriticalPods": "15s",
    }


def test_the_gce_plan_names_the_window_for_spot_pools_only() -> None:
    pools = [
        facts("k3s-gcp", "cpu", "e2-standard-4"),
        facts("k3s-gcp", "l4", "g2-standard-8", capacity="spot"),
    ]
    findings = [str(f) for f in preemption_findings(pools)]
    assert len(findings) == 1
    assert findings[0].startswith("info: gpukit:nodePools[1].capacity: spot pool 'l4' drains")
    assert "within 30 s (regular pods 15 s, then critical pods 15 s)" in findings[0]

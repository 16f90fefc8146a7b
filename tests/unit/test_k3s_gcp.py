"""k3s on Compute Engine, the pure parts: API exposure, images, machine settings, firewall, names."""

from typing import Any

import pytest

from gpukit.components.api_access import needs_public_endpoint
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import (
    Capacity,
    ClusterSpec,
    DriverMode,
    NodePoolSpec,
    NodeRole,
    Platform,
    Provider,
)
from gpukit.providers.gcp.catalog import region_zones
from gpukit.providers.gcp.k3s.agent_pool import update_policy
from gpukit.providers.gcp.k3s.firewall import firewall_rules
from gpukit.providers.gcp.k3s.iam import account_id, secret_id
from gpukit.providers.gcp.k3s.images import boot_image
from gpukit.providers.gcp.k3s.machine import (
    gce_label_value,
    gce_labels,
    guest_accelerators,
    machine_type,
    scheduling,
    shielded_instance_config,
)
from gpukit.providers.gcp.k3s.servers import server_zones
from harness import substrate

UBUNTU = "projects/ubuntu-os-cloud/global/images/family/ubuntu-2404-lts-amd64"
DLVM = "projects/deeplearning-platform-release/global/images/family/common-cu129-ubuntu-2404-nvidia-580"


def facts(instance_type: str, **extra: Any) -> PoolFacts:
    spec: dict[str, Any] = {"name": "p", "instance_type": instance_type, "min_nodes": 0, "max_nodes": 2}
    spec.update(extra)
    pool: NodePoolSpec = spec  # type: ignore[assignment]
    return substrate("k3s-gcp").pool_facts(pool)


def cluster(**extra: Any) -> ClusterSpec:
    spec: dict[str, Any] = {
        "name": "c",
        "platform": Platform.K3S,
        "provider": Provider.GCP,
        "region": "us-central1",
        "kubernetes_version": "1.36",
    }
    spec.update(extra)
    return spec  # type: ignore[return-value]


L4 = facts("g2-standard-8")
T4 = facts("n1-standard-8", gpu={"model": "T4", "count": 2})
CPU = facts("e2-standard-4")
SPOT_L4 = facts("g2-standard-8", capacity=Capacity.SPOT)


@pytest.mark.parametrize(
    ("cidrs", "external"),
    [
        ([], False),
        (["10.0.0.0/8"], False),
        (["172.16.0.0/12", "192.168.1.0/24"], False),
        (["100.64.0.0/10"], False),  # carrier NAT / VPN overlay space
        (["203.0.113.0/24"], True),  # a documentation range stands in for a public one
        (["10.0.0.0/8", "198.51.100.7/32"], True),
        (["0.0.0.0/0"], True),
        (["2001:db8::/32"], True),
    ],
)
def test_servers_get_external_addresses_only_for_public_client_ranges(
    cidrs: list[str], external: bool
) -> None:
    assert needs_public_endpoint(cidrs) is external


def test_images_per_pool_kind_and_driver_mode() -> None:
    assert boot_image(L4, DriverMode.PREINSTALLED) == DLVM
    assert boot_image(L4, DriverMode.OPERATOR) == UBUNTU
    assert boot_image(CPU, DriverMode.PREINSTALLED) == UBUNTU
    assert boot_image(CPU, DriverMode.OPERATOR) == UBUNTU


def test_only_n1_gets_attached_gpus() -> None:
    assert guest_accelerators(L4) == []  # G2 comes with its L4
    assert guest_accelerators(CPU) == []
    assert machine_type(T4) == "n1-standard-8"
    assert guest_accelerators(T4) == [{"type": "nvidia-tesla-t4", "count": 2}]


def test_gpu_machines_stop_for_maintenance_and_spot_machines_are_deleted_when_preempted() -> None:
    assert scheduling(CPU) == {
        "provisioning_model": "STANDARD",
        "automatic_restart": True,
        "on_host_maintenance": "MIGRATE",
    }
    assert scheduling(L4)["on_host_maintenance"] == "TERMINATE"
    assert scheduling(L4)["automatic_restart"] is True
    assert scheduling(SPOT_L4) == {
        "provisioning_model": "SPOT",
        "preemptible": True,
        "automatic_restart": False,
        "on_host_maintenance": "TERMINATE",
        "instance_termination_action": "DELETE",
    }


def test_secure_boot_only_without_gpus() -> None:
    assert shielded_instance_config(CPU) == {
        "enable_secure_boot": True,
        "enable_vtpm": True,
        "enable_integrity_monitoring": True,
    }
    assert shielded_instance_config(L4)["enable_secure_boot"] is False
    assert shielded_instance_config(L4)["enable_vtpm"] is True


def test_gce_labels_follow_the_label_rules() -> None:
    assert gce_label_value("GPU.Pool/1") == "gpu-pool-1"
    assert len(gce_label_value("x" * 80)) == 63
    assert gce_labels(facts("e2-standard-4", role=NodeRole.SERVER)) == {
        "gpukit-pool": "p",
        "gpukit-role": "server",
    }


def test_firewall_opens_only_k3s_ports_between_the_clusters_service_accounts() -> None:
    """By service account, never by network tag: anyone who may tag any VM of the network could give
    it the cluster's tags and reach etcd and the kubelets."""
    rules = {r.name: r for r in firewall_rules(["203.0.113.0/24"])}
    assert sorted(rules) == ["k3s-api-clients", "k3s-api-nodes", "k3s-etcd", "k3s-flannel", "k3s-kubelet"]
    server, nodes = (NodeRole.SERVER,), (NodeRole.SERVER, NodeRole.AGENT)
    expected = {
        "k3s-api-clients": ("tcp", ("6443",), server, (), ("203.0.113.0/24",)),
        "k3s-api-nodes": ("tcp", ("6443",), server, nodes, ()),
        "k3s-flannel": ("udp", ("8472",), nodes, nodes, ()),
        "k3s-kubelet": ("tcp", ("10250",), nodes, nodes, ()),
        "k3s-etcd": ("tcp", ("2379-2380",), server, server, ()),  # between servers only
    }
    for name, rule in rules.items():
        assert (rule.protocol, rule.ports, rule.targets, rule.sources, rule.source_ranges) == expected[name]


def test_no_client_ranges_no_client_rule_and_nothing_from_anywhere_unless_configured() -> None:
    rules = firewall_rules([])
    assert "k3s-api-clients" not in {r.name for r in rules}
    assert all(not r.source_ranges for r in rules)
    open_rules = firewall_rules(["0.0.0.0/0"])
    assert [r.name for r in open_rules if "0.0.0.0/0" in r.source_ranges] == ["k3s-api-clients"]


def test_account_and_secret_ids_fit_google_limits() -> None:
    long_name = "a" * 32
    for role in (NodeRole.SERVER, NodeRole.AGENT):
        assert 6 <= len(account_id("c", role)) <= 30
        assert len(account_id(long_name, role)) == 30
    assert account_id("ml-dev", NodeRole.SERVER) == "ml-dev-k3s-server"
    assert account_id("ml-dev", NodeRole.AGENT) == "ml-dev-k3s-agent"
    assert secret_id("ml-dev", NodeRole.AGENT) == "ml-dev-k3s-agent-join"


def test_servers_spread_over_known_zones_unless_pinned() -> None:
    assert region_zones("us-central1") == ["us-central1-a", "us-central1-b", "us-central1-c", "us-central1-f"]
    assert server_zones(cluster(), CPU) == region_zones("us-central1")
    pinned = facts("e2-standard-4", zones=["us-central1-b"])
    assert server_zones(cluster(), pinned) == ["us-central1-b"]
    with pytest.raises(ValueError, match="set the server pool's `zones`"):
        server_zones(cluster(region="mars-north1"), CPU)


def test_groups_never_replace_running_machines() -> None:
    # Zonal groups (the autoscaler's GCE provider scales no regional one) never move machines.
    assert update_policy() == {"type": "OPPORTUNISTIC", "minimal_action": "REPLACE"}

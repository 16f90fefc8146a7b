"""Hourly cost estimates: cluster charges, per-pool idle and max, and pools without a price."""

from dataclasses import replace

import pytest

from gpukit.components.costs import PoolCost, estimate
from gpukit.components.pricing import pool_quote
from gpukit.components.resolve.config import resolve_config
from gpukit.providers.aws.catalog import AWS_CATALOG
from harness import eks_config, example_config

EKS = 0.10
NAT = 0.045
M7I_LARGE = 0.1008
G6_XLARGE = 0.8048

SYSTEM_POOL = {"name": "system", "instanceType": "m7i.large", "minNodes": 1, "maxNodes": 3}
REUSED_VPC = {
    "vpcId": "vpc-0123456789abcdef0",
    "subnetIds": ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"],
}


def fixed_total(cost):
    """EKS charges do not grow with nodes: idle and max are the same."""
    assert all(c.idle == c.at_max for c in cost.charges)
    return sum(c.idle for c in cost.charges)


def _estimate(**overrides):
    return estimate(resolve_config(eks_config(**overrides)))


def _with_network(network: dict) -> dict:
    cluster = eks_config()["gpukit:cluster"]
    cluster["network"] = network
    return {"gpukit:cluster": cluster}


def test_default_config_fixed_charges_are_eks_and_one_nat():
    cost = _estimate()
    assert fixed_total(cost) == pytest.approx(EKS + NAT)
    assert [c.what for c in cost.charges] == ["EKS control plane (standard support)", "NAT gateway x1"]


def test_default_config_idle_total():
    # Idle: the system pool at minNodes 1, the L4 pool scaled to zero.
    assert _estimate().idle_total == pytest.approx(EKS + NAT + 1 * M7I_LARGE)


def test_default_config_max_total():
    assert _estimate().max_total == pytest.approx(EKS + NAT + 3 * M7I_LARGE + 8 * G6_XLARGE)


def test_default_config_per_pool_costs():
    pools = {p.pool.name: p for p in _estimate().pools}
    assert pools["system"].per_node == pytest.approx(M7I_LARGE)
    assert pools["system"].idle == pytest.approx(M7I_LARGE)
    assert pools["system"].at_max == pytest.approx(3 * M7I_LARGE)
    assert pools["l4"].idle == 0
    assert pools["l4"].at_max == pytest.approx(8 * G6_XLARGE)
    assert pools["l4"].spot_upper_bound is True
    assert pools["system"].spot_upper_bound is False


def test_per_zone_nat_gateways_charge_one_per_zone():
    cost = _estimate(**_with_network({"cidr": "10.40.0.0/16", "zoneCount": 3, "natGateways": "per-zone"}))
    assert ("NAT gateway x3", pytest.approx(3 * NAT)) in [(c.what, c.idle) for c in cost.charges]
    assert fixed_total(cost) == pytest.approx(EKS + 3 * NAT)


def test_per_zone_nat_gateways_follow_zone_count():
    cost = _estimate(**_with_network({"cidr": "10.40.0.0/16", "zoneCount": 2, "natGateways": "per-zone"}))
    assert fixed_total(cost) == pytest.approx(EKS + 2 * NAT)


def test_single_nat_gateway_ignores_zone_count():
    cost = _estimate(**_with_network({"cidr": "10.40.0.0/16", "zoneCount": 5, "natGateways": "single"}))
    assert fixed_total(cost) == pytest.approx(EKS + NAT)


def test_reused_vpc_has_no_nat_charge():
    cost = _estimate(**_with_network(REUSED_VPC))
    assert [(c.what, c.idle) for c in cost.charges] == [
        ("EKS control plane (standard support)", pytest.approx(EKS))
    ]
    assert not any("NAT" in c.what for c in cost.charges)


def test_unpriced_pool_is_listed_and_adds_nothing():
    base = _estimate(**{"gpukit:nodePools": [SYSTEM_POOL]})
    h200 = {
        "name": "h200",
        "instanceType": "p5e.48xlarge",
        "minNodes": 1,
        "maxNodes": 4,
        "zones": ["usw2-az1"],
    }
    cost = _estimate(**{"gpukit:nodePools": [SYSTEM_POOL, h200]})
    assert [p.pool.name for p in cost.unpriced] == ["h200"]
    assert cost.idle_total == pytest.approx(base.idle_total)
    assert cost.max_total == pytest.approx(base.max_total)
    pool = next(p for p in cost.pools if p.pool.name == "h200")
    assert pool.idle is None
    assert pool.at_max is None


def test_extended_support_is_charged_at_its_price():
    config = eks_config()
    config["gpukit:cluster"]["supportType"] = "extended"
    cost = estimate(resolve_config(config))
    assert [(c.what, c.idle) for c in cost.charges if c.what.startswith("EKS")] == [
        ("EKS control plane (extended support)", pytest.approx(0.60))
    ]
    assert fixed_total(cost) == pytest.approx(0.60 + NAT)


def test_priced_config_has_nothing_unpriced():
    assert _estimate().unpriced == []


def test_k3s_on_ec2_pays_for_its_servers_the_api_load_balancer_secrets_and_nat() -> None:
    cost = estimate(resolve_config(example_config("k3s-aws")))
    assert [c.what for c in cost.charges] == [
        "Network Load Balancer (k3s API)",
        "Secrets Manager x2 (join secrets)",
        "KMS key (servers' join secret)",  # $1 a month
        "NAT gateway x1",
        # The example's shared volume: the NFS VM gpukit makes (an m7i.large) and its 500 GiB gp3 disk.
        "shared volume checkpoints (nfs, 500 GiB)",
    ]
    assert fixed_total(cost) == pytest.approx(
        0.0225 + 0.80 / 730 + 1.00 / 730 + NAT + M7I_LARGE + 500 * 0.08 / 730
    )
    # No control-plane fee: the server pool (one m7i.large) is the control plane, priced as a pool.
    control = next(p for p in cost.pools if p.pool.name == "control")
    assert (control.idle, control.at_max) == (pytest.approx(M7I_LARGE), pytest.approx(M7I_LARGE))


def test_k3s_on_gce_pays_cloud_nat_per_vm_and_one_external_ip_per_server() -> None:
    cost = estimate(resolve_config(example_config("k3s-gcp")))
    by_item = {c.what: c for c in cost.charges}
    assert sorted(by_item) == [
        "Cloud NAT (per VM)",
        "external IPv4 x3 (k3s API)",
        # The example's shared volume: the NFS VM gpukit makes (an e2-standard-2) and its 500 GiB
        # pd-balanced disk at us-central1's $0.10/GiB-month (providers/gcp/k3s/nfs_vm_facts.py).
        "shared volume checkpoints (nfs, 500 GiB)",
    ]
    volume = by_item["shared volume checkpoints (nfs, 500 GiB)"]
    assert (volume.idle, volume.at_max) == (pytest.approx(0.06701 + 500 * 0.10 / 730),) * 2
    assert by_item["external IPv4 x3 (k3s API)"].idle == pytest.approx(3 * 0.005)
    # 3 servers and no L4 node at idle (the pool scales from zero), 3 + 4 at max.
    assert by_item["Cloud NAT (per VM)"].idle == pytest.approx(3 * 0.0014)
    assert by_item["Cloud NAT (per VM)"].at_max == pytest.approx(7 * 0.0014)


def test_k3s_on_gce_with_a_private_api_has_no_external_ips() -> None:
    config = example_config("k3s-gcp")
    config["gpukit:cluster"]["apiAccessCidrs"] = ["10.0.0.0/8"]
    # In a reused network the deployer routes into (in a new one, a private API is refused); no
    # Cloud NAT is made there.
    config["gpukit:cluster"]["network"] = {
        "networkId": "projects/acme-ml-dev/global/networks/shared",
        "subnetworkId": "projects/acme-ml-dev/regions/us-central1/subnetworks/gpu",
    }
    cost = estimate(resolve_config(config))
    assert [c.what for c in cost.charges] == ["shared volume checkpoints (nfs, 500 GiB)"]


G6_16XLARGE = 3.3968


def _k3s_aws_with_alternatives(alternatives: list[str]) -> dict:
    config = example_config("k3s-aws")
    (gpu_pool,) = [p for p in config["gpukit:nodePools"] if p["name"] == "l4"]
    gpu_pool["alternativeInstanceTypes"] = alternatives
    return config


def test_a_pool_is_priced_at_its_dearest_instance_type() -> None:
    # The spot group launches whichever type has capacity: a g6.xlarge pool with a g6.16xlarge
    # alternative (same single L4) can run 4 nodes at $3.40/h, not $0.80/h.
    cost = estimate(resolve_config(_k3s_aws_with_alternatives(["g6.16xlarge"])))
    l4 = next(p for p in cost.pools if p.pool.name == "l4")
    assert l4.per_node == pytest.approx(G6_16XLARGE)
    assert l4.at_max == pytest.approx(4 * G6_16XLARGE)


def test_a_pool_with_an_alternative_gpukit_cannot_price_is_unpriced() -> None:
    # Pure check of pool_quote: no vendored table prices a primary type but not its alternative, so the
    # alternative here is one with no list price anywhere (p5e.48xlarge: Capacity Blocks only).
    cluster = resolve_config(_k3s_aws_with_alternatives(["g6.2xlarge"]))
    l4 = next(p for p in cluster.pools if p.name == "l4")
    unpriced = replace(l4, alternative_instances=(AWS_CATALOG.machine("p5e.48xlarge"),))
    quote = pool_quote(AWS_CATALOG, unpriced, "us-east-1")
    assert quote.per_node is None
    assert quote.note.startswith("alternative p5e.48xlarge: ")
    assert pool_quote(AWS_CATALOG, l4, "us-east-1").per_node == pytest.approx(0.9776)  # g6.2xlarge


def test_an_unpriced_pool_at_zero_idle_nodes_idles_at_zero():
    """No node costs nothing whatever its price: the idle cell and total stay exact."""
    l4 = next(p for p in _estimate().pools if p.pool.name == "l4").pool
    assert l4.min_nodes == 0
    assert PoolCost(l4, None).idle == 0.0
    assert PoolCost(l4, None).at_max is None
    assert PoolCost(replace(l4, min_nodes=1), None).idle is None

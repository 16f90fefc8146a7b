"""Bad configs around `nodePools[].interconnect`: each is refused with exit 2, names the exact key to
edit, and builds nothing (checked like test_bad_configs.py: through `gpukit plan --config` and through
`gpukit.program.build` under the mock engine)."""

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from gpukit.cli import main
from harness import eks_config, example_config
from tests.program.test_bad_configs import (
    POOLS,
    Config,
    Mutation,
    add_pool,
    assert_refused,
    broken,
    network,
    pool_set,
    steps,
)

H100 = {"name": "h100", "instanceType": "p5.48xlarge", "minNodes": 0, "maxNodes": 2, "zones": ["usw2-az3"]}
MEGA = {
    "name": "mega",
    "instanceType": "a3-megagpu-8g",
    "minNodes": 0,
    "maxNodes": 2,
    "zones": ["us-central1-a"],
}
ULTRA = {
    "name": "ultra",
    "instanceType": "a3-ultragpu-8g",
    "minNodes": 0,
    "maxNodes": 2,
    "zones": ["us-central1-b"],
}

CASES: list[tuple[str, Callable[[], Config], Mutation, str, str]] = [
    (
        "auto-on-a-machine-without-a-fabric",
        eks_config,
        pool_set(1, interconnect="auto"),
        f"{POOLS}[1].interconnect",
        "`auto` asks for the machine's fast fabric, and none results here: g6.xlarge has no fast fabric",
    ),
    (
        "auto-on-a-cpu-pool",
        eks_config,
        pool_set(0, interconnect="auto"),
        f"{POOLS}[0].interconnect",
        "none results here: the pool has no GPUs",
    ),
    (
        "auto-on-a-one-efa-machine",
        eks_config,
        pool_set(1, instanceType="p5.4xlarge", capacity="on-demand", interconnect="auto"),
        f"{POOLS}[1].interconnect",
        "p5.4xlarge has no fast fabric gpukit sets up (EKS sets up EFA on types with 4 or more",
    ),
    (
        "explicit-auto-over-two-zones",
        eks_config,
        add_pool(**{**H100, "zones": ["usw2-az1", "usw2-az3"]}, interconnect="auto"),
        f"{POOLS}[2].zones",
        "the pool is spread over 2 zones (usw2-az1, usw2-az3), and its EFA nodes sit in one placement",
    ),
    (
        "explicit-auto-with-an-alternative-of-another-efa-count",
        eks_config,
        add_pool(
            name="h200",
            instanceType="p5en.48xlarge",
            alternativeInstanceTypes=["p5e.48xlarge"],
            capacity="spot",
            minNodes=0,
            maxNodes=2,
            zones=["usw2-az3"],
            interconnect="auto",
        ),
        f"{POOLS}[2].alternativeInstanceTypes[0]",
        "alternative p5e.48xlarge has EFA x32, 3,200 Gbps, and the pool's nodes launch with one interface "
        "layout, p5en.48xlarge's (EFA x16, 3,200 Gbps)",
    ),
    (
        "nccl-check-with-no-pool-to-run-it-on",
        lambda: eks_config(**{"gpukit:verification": {"nccl": True}}),
        add_pool(**{**H100, "maxNodes": 1}),
        "gpukit:verification.nccl",
        "`true` asks for an NCCL check of a fabric, and no pool here can have one: it needs a pool gpukit "
        "sets a fabric up for and checks (EFA on EKS), with whole GPUs (no `sharing`) and maxNodes 2 or more",
    ),
    (
        "unknown-value",
        eks_config,
        add_pool(**H100, interconnect="fast"),
        f"{POOLS}[2].interconnect",
        "fast",
    ),
    (
        "on-k3s-gcp",
        lambda: example_config("k3s-gcp"),
        pool_set(1, interconnect="none"),
        f"{POOLS}[1].interconnect",
        "only for platform eks and platform gke; this cluster is k3s on gcp",
    ),
    (
        "gke-auto-on-a-machine-without-a-fabric",
        lambda: example_config("gke-dev"),
        pool_set(1, interconnect="auto"),
        f"{POOLS}[1].interconnect",
        "none results here: g2-standard-8 has no fast fabric gpukit sets up",
    ),
    (
        "gke-explicit-auto-over-two-zones",
        lambda: example_config("gke-dev"),
        add_pool(**{**MEGA, "zones": ["us-central1-a", "us-central1-c"]}, interconnect="auto"),
        f"{POOLS}[2].zones",
        "the pool is spread over 2 zones (us-central1-a, us-central1-c), and its GPUDirect-TCPXO nodes "
        "sit in one placement",
    ),
    (
        "gke-gpu-block-overlaps-the-cluster-subnet",
        lambda: example_config("gke-dev"),
        steps(add_pool(**MEGA), network(cidr="10.60.0.0/16", gpuNetworksCidr="10.60.0.0/16")),
        "gpukit:cluster.network.gpuNetworksCidr",
        "10.60.0.0/16 overlaps the cluster subnet's node range 10.60.0.0/18",
    ),
    (
        "gke-gpu-block-too-small",
        lambda: example_config("gke-dev"),
        steps(add_pool(**MEGA), network(cidr="10.60.0.0/16", gpuNetworksCidr="192.168.0.0/24")),
        "gpukit:cluster.network.gpuNetworksCidr",
        "must be a /8 to /19 (32 subnets, one per GPU NIC network); got '192.168.0.0/24'",
    ),
    (
        "gke-gpu-block-not-a-cidr",
        lambda: example_config("gke-dev"),
        network(cidr="10.60.0.0/16", gpuNetworksCidr="192.168.0.0"),
        "gpukit:cluster.network.gpuNetworksCidr",
        "must be a /8 to /19",
    ),
    (
        "gke-gpu-block-too-small-for-the-pools",
        lambda: example_config("gke-dev"),
        steps(
            add_pool(**{**MEGA, "maxNodes": 300}),
            network(cidr="10.60.0.0/16", gpuNetworksCidr="192.168.0.0/19"),
        ),
        "gpukit:cluster.network.gpuNetworksCidr",
        "each GPU subnet of 192.168.0.0/19 holds 252 nodes, and the GPUDirect-TCPX / TCPXO pools' maxNodes "
        "add up to 300",
    ),
    (
        "gke-nccl-check-on-gpudirect-only",
        lambda: {**example_config("gke-dev"), "gpukit:verification": {"nccl": True}},
        add_pool(**MEGA),
        "gpukit:verification.nccl",
        "no pool here can have one: it needs a pool gpukit sets a fabric up for and checks (EFA on EKS)",
    ),
    (
        "on-k3s-aws",
        lambda: example_config("k3s-aws"),
        pool_set(1, interconnect="none"),
        f"{POOLS}[1].interconnect",
        "only for platform eks",
    ),
]


@pytest.mark.parametrize("case", [pytest.param(case[1:], id=case[0]) for case in CASES])
def test_bad_interconnect_config_is_refused(
    case: tuple[Callable[[], Config], Mutation, str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, mutation, key, fragment = case
    assert_refused(broken(base, mutation)(), key, fragment, tmp_path, capsys)


def test_an_efa_pool_in_one_zone_and_a_p5_pool_without_efa_over_two_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the refusals point to is accepted: one zone, or `interconnect: none` to spread a pool."""
    config = eks_config()
    spread = {**H100, "name": "spread", "zones": ["usw2-az1", "usw2-az3"], "interconnect": "none"}
    config[POOLS] += [H100, spread]
    path = tmp_path / "Pulumi.ok.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    assert main(["plan", "--config", str(path)]) == 0, capsys.readouterr().err


def test_a_left_out_interconnect_never_refuses_what_planned_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Left out, `interconnect` is `auto` only where the pool can have the fabric: a p5 pool over two
    zones, or with an alternative of another EFA count, plans on the ordinary network, and the plan says
    why and what to change; so does one that pins no zone (it keeps its zones and nodes). Only the
    one-zone pool's nodes carry the fabric label."""
    config = eks_config()
    spread = {**H100, "name": "spread", "zones": ["usw2-az1", "usw2-az3"]}
    mixed = {
        "name": "mixed",
        "instanceType": "p5en.48xlarge",
        "alternativeInstanceTypes": ["p5e.48xlarge"],
        "capacity": "spot",
        "minNodes": 0,
        "maxNodes": 2,
        "zones": ["usw2-az3"],
    }
    unpinned = {**H100, "name": "unpinned"}
    del unpinned["zones"]
    config[POOLS] += [H100, spread, mixed, unpinned]
    path = tmp_path / "Pulumi.ok.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    assert main(["plan", "--config", str(path)]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert (
        "  spread: the ordinary network (auto: the pool is spread over 2 zones (usw2-az1, usw2-az3), and its "
        "EFA nodes sit in one placement, in one zone; to get it: pin one zone, with alternatives of the "
        "same fabric)\n"
    ) in out
    assert (
        "  mixed: the ordinary network (auto: alternative p5e.48xlarge has EFA x32, 3,200 Gbps, and the "
        "pool's nodes launch with one interface layout, p5en.48xlarge's (EFA x16, 3,200 Gbps); to get it: "
        "pin one zone, with alternatives of the same fabric)\n"
    ) in out
    assert (
        "  unpinned: the ordinary network (auto: its zones are not pinned, and EFA nodes sit in one zone; to "
        "get it: pin one zone, or set `interconnect: auto` (gpukit then picks one zone that offers the "
        "machine, and the plan says how))\n"
    ) in out
    fabric_tags = sorted(line.split()[-1] for line in out.splitlines() if line.endswith("-gpukit-dev-fabric"))
    assert fabric_tags == ["unit-h100-usw2-az3-asg-tag-label-gpukit-dev-fabric"]

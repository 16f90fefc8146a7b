"""Bad k3s-on-cloud stack configs (provider aws and gcp): refused with exit 2, the exact key named,
nothing built.

Every case starts from the `config` of stacks/Pulumi.k3s-aws.yaml or stacks/Pulumi.k3s-gcp.yaml (a
fresh copy per case), breaks one thing, and is checked like the other suites: through
`gpukit plan --config` (exit status, the message a user reads, no traceback) and through
`gpukit.program.build` under the mock engine (ConfigError raised, zero resources registered).
"""

from collections.abc import Callable
from pathlib import Path

import pytest

from harness import example_config
from tests.program.test_bad_configs import (
    CLUSTER,
    POOLS,
    VPC_ID,
    Config,
    Mutation,
    assert_refused,
    broken,
    cluster_drop,
    cluster_set,
    network,
    pool_set,
    top_drop,
    top_set,
)
from tests.program.test_bad_configs_k3s import pool_drop


def aws_config() -> Config:
    return example_config("k3s-aws")


def gcp_config() -> Config:
    return example_config("k3s-gcp")


def network_set(**values: object) -> Mutation:
    def mutate(config: Config) -> None:
        config[CLUSTER]["network"].update(values)

    return mutate


SUBNET = "subnet-0123456789abcdef0"

# (case id, base config, mutation, exact key, fragment of its message)
CASES: list[tuple[str, Callable[[], Config], Mutation, str, str]] = [
    # pools: GPUs, zones, shapes
    (
        "gpu-pool-on-a-machine-without-gpus",
        aws_config,
        pool_set(1, instanceType="m7i.large", gpu={"model": "L4", "count": 1}, alternativeInstanceTypes=[]),
        f"{POOLS}[1].gpu",
        "m7i.large has no GPUs and takes none attached; remove the key",
    ),
    (
        "accelerator-not-in-zone",
        gcp_config,
        pool_set(1, zones=["us-central1-f"]),
        f"{POOLS}[1].zones[0]",
        "us-central1-f does not offer nvidia-l4; zones that do: us-central1-a, us-central1-b, us-central1-c",
    ),
    (
        "accelerator-in-a-region-gpukit-has-no-zones-for",
        gcp_config,
        top_set("gcp:region", "southamerica-east1"),
        f"{POOLS}[1].zones",
        "gpukit has no zone list for nvidia-l4 in southamerica-east1; name the zones that offer it",
    ),
    (
        "region-gpukit-has-no-zones-for",  # refused on the region key alone, with did-you-mean
        gcp_config,
        top_set("gcp:region", "southamerica-east9"),
        "gcp:region",
        "'southamerica-east9' is not a region gpukit knows",
    ),
    (
        "alternative-with-other-gpus",
        aws_config,
        pool_set(1, alternativeInstanceTypes=["g6e.xlarge"]),
        f"{POOLS}[1].alternativeInstanceTypes[0]",
        "g6e.xlarge has 1x L40S (x86_64), but g6.xlarge has 1x L4 (x86_64)",
    ),
    (
        "alternative-unknown",
        aws_config,
        pool_set(1, alternativeInstanceTypes=["g6.2xlarg"]),
        f"{POOLS}[1].alternativeInstanceTypes[0]",
        "unknown aws instance type 'g6.2xlarg'; did you mean g6.2xlarge",
    ),
    (
        "alternative-on-on-demand-pool",
        aws_config,
        pool_drop(1, "capacity"),
        f"{POOLS}[1].alternativeInstanceTypes",
        "only for capacity: spot pools",
    ),
    (
        "alternative-on-gcp",
        gcp_config,
        pool_set(1, alternativeInstanceTypes=["g2-standard-12"]),
        f"{POOLS}[1].alternativeInstanceTypes",
        "only for platform eks and k3s on aws; this cluster is k3s on gcp",
    ),
    # servers
    (
        "ha-with-two-servers",
        gcp_config,
        pool_set(0, minNodes=2, maxNodes=2),
        f"{POOLS}[0].minNodes",
        "2 servers: embedded etcd needs 1, or 3 for HA",
    ),
    (
        "autoscaled-servers",
        aws_config,
        pool_set(0, maxNodes=3),
        f"{POOLS}[0].maxNodes",
        "servers are fixed instances, not an autoscaling group: set minNodes = maxNodes; got 1 and 3",
    ),
    (
        "no-server-pool",
        gcp_config,
        pool_drop(0, "role"),
        POOLS,
        "no server pool: give one pool role: server",
    ),
    (
        "two-server-pools",
        aws_config,
        pool_set(1, role="server", minNodes=1, maxNodes=1, capacity="on-demand", alternativeInstanceTypes=[]),
        POOLS,
        "one pool role: server, got 2 ('control', 'l4')",
    ),
    (
        "servers-with-gpus",
        gcp_config,
        pool_set(0, instanceType="g2-standard-8"),
        f"{POOLS}[0].instanceType",
        "servers run the control plane: use a machine type without GPUs; got 'g2-standard-8'",
    ),
    (
        "servers-on-spot",
        aws_config,
        pool_set(0, capacity="spot"),
        f"{POOLS}[0].capacity",
        "servers must be on-demand",
    ),
    # network
    (
        "vpc-overlaps-k3s-pod-network",
        aws_config,
        network_set(cidr="10.42.0.0/16"),
        f"{CLUSTER}.network.cidr",
        "10.42.0.0/16 overlaps k3s's pod network 10.42.0.0/16",
    ),
    (
        "subnet-overlaps-k3s-service-network",
        gcp_config,
        network_set(cidr="10.43.16.0/20"),
        f"{CLUSTER}.network.cidr",
        "10.43.16.0/20 overlaps k3s's service network 10.43.0.0/16",
    ),
    (
        "vpc-too-small-for-public-subnets",
        aws_config,
        network_set(cidr="10.50.0.0/24"),
        f"{CLUSTER}.network.cidr",
        "prefix must be /16 to /22; got /24",
    ),
    (
        "reused-vpc-public-api-without-public-subnets",
        aws_config,
        network(vpcId=VPC_ID, subnetIds=[SUBNET]),
        f"{CLUSTER}.network.publicSubnetIds",
        "required with vpcId when apiAccessCidrs has public ranges (203.0.113.0/24)",
    ),
    (
        "gcp-network-without-subnetwork",
        gcp_config,
        network(networkId="projects/acme-ml-dev/global/networks/shared"),
        f"{CLUSTER}.network.subnetworkId",
        "required when reusing a network (networkId)",
    ),
    (
        "gke-ranges-on-k3s-gcp",
        gcp_config,
        network_set(podsCidr="10.80.0.0/14"),
        f"{CLUSTER}.network.podsCidr",
        "only for platform gke; this cluster is k3s on gcp",
    ),
    # cluster keys that belong elsewhere, or are missing
    (
        "api-address-on-k3s-aws",
        aws_config,
        cluster_set(apiAddress="k3s.example.com"),
        f"{CLUSTER}.apiAddress",
        "only for k3s on existing hosts (provider ssh); this cluster is k3s on aws",
    ),
    (
        "api-access-cidrs-missing",
        aws_config,
        cluster_drop("apiAccessCidrs"),
        f"{CLUSTER}.apiAccessCidrs",
        "required key is missing",
    ),
    (
        "api-access-cidrs-empty",
        gcp_config,
        cluster_set(apiAccessCidrs=[]),
        f"{CLUSTER}.apiAccessCidrs",
        "k3s on cloud VMs needs at least one range",
    ),
    (
        "api-private-ranges-in-a-new-network-aws",
        aws_config,
        cluster_set(apiAccessCidrs=["10.0.0.0/8"]),
        f"{CLUSTER}.apiAccessCidrs",
        "only private ranges (10.0.0.0/8) keeps the API inside the network this stack creates",
    ),
    (
        "admin-principal-that-is-an-sts-session-aws",
        aws_config,
        cluster_set(adminPrincipalArns=["arn:aws:sts::123456789012:assumed-role/ci/run-7"]),
        f"{CLUSTER}.adminPrincipalArns[0]",
        "is an STS session (assumed-role) ARN",
    ),
    (
        "admin-principals-only-on-aws-k3s-gcp",
        gcp_config,
        cluster_set(adminPrincipalArns=["arn:aws:iam::123456789012:role/ci"]),
        f"{CLUSTER}.adminPrincipalArns",
        "only for platform eks and k3s on aws; this cluster is k3s on gcp",
    ),
    (
        "api-private-ranges-in-a-new-network-gcp",
        gcp_config,
        cluster_set(apiAccessCidrs=["192.168.0.0/16"]),
        f"{CLUSTER}.apiAccessCidrs",
        "`pulumi up` could not reach the API to install the GPU stack",
    ),
    (
        "instance-type-missing",
        gcp_config,
        pool_drop(1, "instanceType"),
        f"{POOLS}[1].instanceType",
        "required key is missing",
    ),
    (
        "aws-region-missing",
        aws_config,
        top_drop("aws:region"),
        "aws:region",
        "required for k3s on aws: the region to build in",
    ),
    (
        "gcp-project-missing",
        gcp_config,
        top_drop("gcp:project"),
        "gcp:project",
        "required for k3s on gcp: the project to build in",
    ),
    (
        "kubernetes-version-without-k3s-pin",
        aws_config,
        cluster_set(kubernetesVersion="1.31"),
        f"{CLUSTER}.kubernetesVersion",
        "for k3s; got '1.31'",
    ),
]


@pytest.mark.parametrize(
    ("make", "key", "fragment"),
    [
        pytest.param(broken(base, mutation), key, fragment, id=case)
        for case, base, mutation, key, fragment in CASES
    ],
)
def test_bad_k3s_cloud_config_is_refused(
    make: Callable[[], Config],
    key: str,
    fragment: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert_refused(make(), key, fragment, tmp_path, capsys)


def test_case_ids_are_unique_and_enough() -> None:
    ids = [case for case, *_ in CASES]
    assert len(ids) == len(set(ids))
    assert len(CASES) >= 20


@pytest.mark.parametrize("make", [aws_config, gcp_config], ids=["k3s-aws", "k3s-gcp"])
def test_the_example_stacks_are_valid(make: Callable[[], Config]) -> None:
    """The base configs of this suite are valid, so each case above fails for its own reason only."""
    from gpukit.components.resolve.config import resolve_config

    resolve_config(make())

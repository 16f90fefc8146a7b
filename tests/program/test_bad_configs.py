"""Bad stack configs: each is refused with exit 2, names the exact key to edit, and builds nothing.

Every case starts from harness.eks_config() (a valid EKS config), breaks one thing, and is checked
twice: through `gpukit plan --config` (exit status and the message a user reads) and through
`gpukit.program.build` under the mock engine (ConfigError raised, zero resources registered).
"""

from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml
from pulumi.runtime import settings as runtime_settings

from gpukit.cli import EXIT_INVALID, main
from gpukit.components.errors import ConfigError
from gpukit.plan.fakes import PlanMocks, RecordingMonitor
from gpukit.program import build
from harness import eks_config, record

Config = dict[str, Any]
Mutation = Callable[[Config], None]

CLUSTER, POOLS = "gpukit:cluster", "gpukit:nodePools"
VPC_ID = "vpc-0123456789abcdef0"
SUBNETS = ["subnet-0123456789abcdef0", "subnet-0fedcba9876543210"]


# --- mutations: each breaks one thing in a fresh eks_config() --------------------------------------


def cluster_set(**values: Any) -> Mutation:
    def mutate(config: Config) -> None:
        config[CLUSTER].update(values)

    return mutate


def cluster_drop(key: str) -> Mutation:
    def mutate(config: Config) -> None:
        del config[CLUSTER][key]

    return mutate


def network(**values: Any) -> Mutation:
    def mutate(config: Config) -> None:
        config[CLUSTER]["network"] = values

    return mutate


def pool_set(index: int, **values: Any) -> Mutation:
    def mutate(config: Config) -> None:
        config[POOLS][index].update(values)

    return mutate


def pool_rename_key(index: int, old: str, new: str) -> Mutation:
    def mutate(config: Config) -> None:
        pool = config[POOLS][index]
        pool[new] = pool.pop(old)

    return mutate


def operator_set(**values: Any) -> Mutation:
    def mutate(config: Config) -> None:
        config["gpukit:gpuOperator"] = {**config.get("gpukit:gpuOperator", {}), **values}

    return mutate


def top_rename(old: str, new: str) -> Mutation:
    def mutate(config: Config) -> None:
        config[new] = config.pop(old)

    return mutate


def top_drop(key: str) -> Mutation:
    def mutate(config: Config) -> None:
        del config[key]

    return mutate


def top_merge(key: str, **values: Any) -> Mutation:
    def mutate(config: Config) -> None:
        config[key] = {**config.get(key, {}), **values}

    return mutate


def top_set(key: str, value: Any) -> Mutation:
    def mutate(config: Config) -> None:
        config[key] = value

    return mutate


def add_pool(**pool: Any) -> Mutation:
    def mutate(config: Config) -> None:
        config[POOLS].append(pool)

    return mutate


def steps(*mutations: Mutation) -> Mutation:
    def mutate(config: Config) -> None:
        for step in mutations:
            step(config)

    return mutate


# (case id, mutation, exact key, fragment of its message)
CASES: list[tuple[str, Mutation, str, str]] = [
    # structure: unknown, missing and mistyped keys
    (
        "unknown-top-level-key-typo",
        top_rename(POOLS, "gpukit:nodePool"),
        "gpukit:nodePool",
        "unknown key; did you mean 'nodePools'?",
    ),
    (
        "unknown-pool-key-typo",
        pool_rename_key(1, "instanceType", "instanceTyp"),
        f"{POOLS}[1].instanceTyp",
        "unknown key; did you mean 'instanceType'?",
    ),
    (
        "unknown-cluster-key",
        cluster_set(endpointPublicAccess=True),
        f"{CLUSTER}.endpointPublicAccess",
        "unknown key; allowed keys: name, platform",
    ),
    (
        "missing-cluster-name",
        cluster_drop("name"),
        f"{CLUSTER}.name",
        "required key is missing (cluster name)",
    ),
    ("missing-node-pools", top_drop(POOLS), POOLS, "required key is missing (the node pools)"),
    ("empty-node-pools", top_set(POOLS, []), POOLS, "needs at least one pool"),
    (
        "min-nodes-not-an-integer",
        pool_set(1, minNodes="zero"),
        f"{POOLS}[1].minNodes",
        "must be an integer, got 'zero'",
    ),
    (
        "kubernetes-version-unquoted-float",
        cluster_set(kubernetesVersion=1.3),
        f"{CLUSTER}.kubernetesVersion",
        "must be a string; YAML read an unquoted number: quote the value as written in the file",
    ),
    (
        "pool-not-a-mapping",
        top_set(POOLS, [{"name": "system", "instanceType": "m7i.large", "minNodes": 1, "maxNodes": 3}, "l4"]),
        f"{POOLS}[1]",
        "must be a mapping, got 'l4'",
    ),
    # node pools: sizes, types, names
    (
        "min-nodes-above-max-nodes",
        pool_set(0, minNodes=5, maxNodes=3),
        f"{POOLS}[0].minNodes",
        "must be <= maxNodes (3); got 5",
    ),
    ("negative-min-nodes", pool_set(1, minNodes=-1), f"{POOLS}[1].minNodes", "must be >= 0; got -1"),
    ("max-nodes-zero", pool_set(1, maxNodes=0), f"{POOLS}[1].maxNodes", "must be >= 1"),
    (
        "unknown-instance-type-close-match",
        pool_set(1, instanceType="g6.xlarg"),
        f"{POOLS}[1].instanceType",
        "unknown aws instance type 'g6.xlarg'; did you mean g6.xlarge",
    ),
    (
        "duplicate-pool-names",
        pool_set(1, name="system"),
        f"{POOLS}[1].name",
        "duplicate pool name 'system'",
    ),
    (
        "pool-name-uppercase",
        pool_set(1, name="L4"),
        f"{POOLS}[1].name",
        "must be lowercase letters, digits and '-'",
    ),
    (
        "pool-name-too-long",
        pool_set(1, name="l4-spot-inference-us-west"),
        f"{POOLS}[1].name",
        "at most 24 characters; got 'l4-spot-inference-us-west'",
    ),
    (
        "all-pools-gpu",
        pool_set(0, instanceType="g6.xlarge"),
        POOLS,
        "no pool can host system pods",
    ),
    (
        "cpu-pool-scales-to-zero",
        pool_set(0, minNodes=0),
        POOLS,
        "no pool can host system pods",
    ),
    # GPU sharing (gpukit:nodePools[i].sharing)
    (
        "sharing-old-shape",
        pool_set(1, sharing={"timeSlicing": {"replicas": 4}}),
        f"{POOLS}[1].sharing.timeSlicing",
        "unknown key; allowed keys: mode, replicas, mig",
    ),
    (
        "sharing-mode-missing",
        pool_set(1, sharing={"replicas": 4}),
        f"{POOLS}[1].sharing.mode",
        "required key",
    ),
    (
        "sharing-mode-unknown",
        pool_set(1, sharing={"mode": "timeslicing", "replicas": 4}),
        f"{POOLS}[1].sharing.mode",
        "must be one of none, time-slicing, mps, mig; got 'timeslicing'",
    ),
    ("sharing-not-a-mapping", pool_set(1, sharing="time-slicing"), f"{POOLS}[1].sharing", "'time-slicing'"),
    (
        "sharing-time-slicing-without-replicas",
        pool_set(1, sharing={"mode": "time-slicing"}),
        f"{POOLS}[1].sharing.replicas",
        "required for mode time-slicing",
    ),
    (
        "sharing-replicas-one",
        pool_set(1, sharing={"mode": "time-slicing", "replicas": 1}),
        f"{POOLS}[1].sharing.replicas",
        "must be 2 to 48 pods per GPU; got 1",
    ),
    (
        "sharing-replicas-over-48",
        pool_set(1, sharing={"mode": "time-slicing", "replicas": 49}),
        f"{POOLS}[1].sharing.replicas",
        "must be 2 to 48 pods per GPU; got 49",
    ),
    (
        "sharing-mps-replicas-zero",
        pool_set(1, sharing={"mode": "mps", "replicas": 0}),
        f"{POOLS}[1].sharing.replicas",
        "must be 2 to 48 pods per GPU; got 0",
    ),
    (
        "sharing-replicas-not-int",
        pool_set(1, sharing={"mode": "mps", "replicas": "4"}),
        f"{POOLS}[1].sharing.replicas",
        "must be an integer",
    ),
    (
        "sharing-none-with-replicas",
        pool_set(1, sharing={"mode": "none", "replicas": 4}),
        f"{POOLS}[1].sharing.replicas",
        "only for modes time-slicing and mps; got mode none",
    ),
    (
        "sharing-time-slicing-with-mig",
        pool_set(1, sharing={"mode": "time-slicing", "replicas": 2, "mig": {"profile": "1g.10gb"}}),
        f"{POOLS}[1].sharing.mig",
        "only for mode mig; got mode time-slicing",
    ),
    (
        "sharing-mps-with-mig",
        pool_set(1, sharing={"mode": "mps", "replicas": 2, "mig": {"profile": "1g.10gb"}}),
        f"{POOLS}[1].sharing.mig",
        "MPS is not supported on GPUs with MIG enabled",
    ),
    (
        "sharing-mig-on-l4",
        pool_set(1, sharing={"mode": "mig", "mig": {"profile": "1g.10gb"}}),
        f"{POOLS}[1].sharing.mode",
        "mig needs a MIG-capable GPU (A100-40GB, A100-80GB, A30, B200, H100, H100-NVL, H200, H200-NVL, "
        "RTX-PRO-6000); this pool has L4",
    ),
    (
        "sharing-on-cpu-pool",
        pool_set(0, sharing={"mode": "time-slicing", "replicas": 2}),
        f"{POOLS}[0].sharing",
        "only GPU pools share GPUs",
    ),
    (
        "sharing-unknown-key",
        pool_set(1, sharing={"mode": "mps", "replicas": 2, "memoryLimit": "6Gi"}),
        f"{POOLS}[1].sharing.memoryLimit",
        "unknown key",
    ),
    (
        "sharing-on-bottlerocket",
        pool_set(1, nodeImage="bottlerocket", sharing={"mode": "time-slicing", "replicas": 4}),
        f"{POOLS}[1].sharing",
        "does not run on Bottlerocket nodes",
    ),
    (
        "sharing-mig-without-mig",
        pool_set(1, instanceType="p5.48xlarge", sharing={"mode": "mig"}),
        f"{POOLS}[1].sharing.mig",
        "required for mode mig: {profile} or {layout}, profiles 1g.10gb, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, "
        "7g.80gb",
    ),
    (
        "sharing-mig-profile-of-another-model",
        pool_set(1, instanceType="p5.48xlarge", sharing={"mode": "mig", "mig": {"profile": "1g.5gb"}}),
        f"{POOLS}[1].sharing.mig.profile",
        "must be a MIG profile of H100: 1g.10gb, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb; got '1g.5gb'",
    ),
    (
        "sharing-mig-profile-missing",
        pool_set(1, instanceType="p5.48xlarge", sharing={"mode": "mig", "mig": {"strategy": "mixed"}}),
        f"{POOLS}[1].sharing.mig",
        "set exactly one of profile (one profile on every GPU) and layout (instances per profile); "
        "got neither",
    ),
    (
        "sharing-mig-strategy-unknown",
        pool_set(
            1,
            instanceType="p5.48xlarge",
            sharing={"mode": "mig", "mig": {"profile": "1g.10gb", "strategy": "none"}},
        ),
        f"{POOLS}[1].sharing.mig.strategy",
        "must be one of single, mixed; got 'none'",
    ),
    (
        "sharing-mig-with-replicas",
        pool_set(
            1,
            instanceType="p5.48xlarge",
            sharing={"mode": "mig", "replicas": 7, "mig": {"profile": "1g.10gb"}},
        ),
        f"{POOLS}[1].sharing.replicas",
        "only for modes time-slicing and mps; got mode mig",
    ),
    (
        "sharing-mig-profile-and-layout",
        pool_set(
            1,
            instanceType="p5.48xlarge",
            sharing={
                "mode": "mig",
                "mig": {"profile": "1g.10gb", "layout": {"3g.40gb": 1}, "strategy": "mixed"},
            },
        ),
        f"{POOLS}[1].sharing.mig",
        "set exactly one of profile",
    ),
    (
        "sharing-mig-layout-does-not-fit",
        pool_set(
            1,
            instanceType="p5.48xlarge",
            sharing={
                "mode": "mig",
                "mig": {"layout": {"4g.40gb": 1, "3g.40gb": 1, "1g.10gb": 1}, "strategy": "mixed"},
            },
        ),
        f"{POOLS}[1].sharing.mig.layout",
        "does not fit one H100's compute and memory slices",
    ),
    (
        "sharing-mig-layout-unknown-profile",
        pool_set(
            1,
            instanceType="p5.48xlarge",
            sharing={"mode": "mig", "mig": {"layout": {"1g.5gb": 2}}},
        ),
        f"{POOLS}[1].sharing.mig.layout.1g.5gb",
        "not a MIG profile of H100",
    ),
    (
        "sharing-mig-layout-zero-instances",
        pool_set(
            1,
            instanceType="p5.48xlarge",
            sharing={"mode": "mig", "mig": {"layout": {"1g.10gb": 0}}},
        ),
        f"{POOLS}[1].sharing.mig.layout.1g.10gb",
        "must be at least 1 instance; got 0",
    ),
    (
        "sharing-mig-layout-not-integers",
        pool_set(
            1,
            instanceType="p5.48xlarge",
            sharing={"mode": "mig", "mig": {"layout": {"1g.10gb": "4"}}},
        ),
        f"{POOLS}[1].sharing.mig.layout",
        "a mapping of strings to integers",
    ),
    (
        "sharing-mig-layout-of-several-profiles-single",
        pool_set(
            1,
            instanceType="p5.48xlarge",
            sharing={"mode": "mig", "mig": {"layout": {"3g.40gb": 1, "1g.10gb": 4}}},
        ),
        f"{POOLS}[1].sharing.mig.strategy",
        "a layout of several profiles needs strategy mixed",
    ),
    (
        "sharing-mig-strategies-disagree",
        steps(
            pool_set(1, instanceType="p5.48xlarge", sharing={"mode": "mig", "mig": {"profile": "1g.10gb"}}),
            add_pool(
                name="h100b",
                instanceType="p5.48xlarge",
                minNodes=0,
                maxNodes=2,
                zones=["usw2-az1"],
                sharing={"mode": "mig", "mig": {"profile": "3g.40gb", "strategy": "mixed"}},
            ),
        ),
        f"{POOLS}[2].sharing.mig.strategy",
        "every MIG pool of a cluster takes the same strategy",
    ),
    (
        "capacity-preemptible",
        pool_set(1, capacity="preemptible"),
        f"{POOLS}[1].capacity",
        "must be one of on-demand, spot; got 'preemptible'",
    ),
    (
        "disk-too-small",
        pool_set(1, diskSizeGb=5),
        f"{POOLS}[1].diskSizeGb",
        "must be 20 to 16384 GiB; got 5",
    ),
    # cluster: platform, version, name, region
    (
        "platform-provider-mismatch",
        cluster_set(provider="gcp"),
        f"{CLUSTER}.provider",
        "platform eks implies provider aws",
    ),
    (
        "k3s-on-ec2-needs-a-server-pool",
        cluster_set(platform="k3s", provider="aws"),
        POOLS,
        "no server pool: give one pool role: server",
    ),
    (
        "platform-unknown",
        cluster_set(platform="aks"),
        f"{CLUSTER}.platform",
        "must be one of eks, gke, k3s; got 'aks'",
    ),
    (
        "kubernetes-version-unsupported",
        cluster_set(kubernetesVersion="1.29"),
        f"{CLUSTER}.kubernetesVersion",
        "must be one of 1.34, 1.35, 1.36 for eks; got '1.29'",
    ),
    (
        "cluster-name-uppercase",
        cluster_set(name="GPU-Dev"),
        f"{CLUSTER}.name",
        "must be lowercase letters, digits and '-', start with a letter",
    ),
    (
        "cluster-name-too-long",
        cluster_set(name="research-gpu-platform-eu-west-prod"),
        f"{CLUSTER}.name",
        "at most 32 characters; got 'research-gpu-platform-eu-west-prod'",
    ),
    (
        "missing-aws-region",
        top_drop("aws:region"),
        "aws:region",
        "required for platform eks",
    ),
    (
        "aws-region-malformed",
        top_set("aws:region", "us-west"),
        "aws:region",
        "must be a region name like us-west-2; got 'us-west'",
    ),
    # cluster: network and API access
    (
        "network-cidr-prefix-33",
        network(cidr="10.40.0.0/33"),
        f"{CLUSTER}.network.cidr",
        "must be an IPv4 CIDR like 10.40.0.0/16; got '10.40.0.0/33'",
    ),
    (
        "network-cidr-not-a-cidr",
        network(cidr="not-a-cidr"),
        f"{CLUSTER}.network.cidr",
        "must be an IPv4 CIDR like 10.40.0.0/16; got 'not-a-cidr'",
    ),
    (
        "network-cidr-too-small",
        network(cidr="10.40.0.0/24"),
        f"{CLUSTER}.network.cidr",
        "prefix must be /16 to /20; got /24",
    ),
    (
        "network-zone-count-one",
        network(cidr="10.40.0.0/16", zoneCount=1),
        f"{CLUSTER}.network.zoneCount",
        "must be 2 to 6; got 1",
    ),
    (
        "api-access-cidr-invalid",
        cluster_set(apiAccessCidrs=["203.0.113.0/24", "office"]),
        f"{CLUSTER}.apiAccessCidrs[1]",
        "must be an IPv4 CIDR like 10.40.0.0/16; got 'office'",
    ),
    (
        "network-cidr-and-vpc-id",
        network(cidr="10.40.0.0/16", vpcId=VPC_ID, subnetIds=SUBNETS),
        f"{CLUSTER}.network",
        "set either cidr (new VPC) or vpcId + subnetIds (reuse), not both",
    ),
    (
        "network-empty",
        network(),
        f"{CLUSTER}.network",
        "needs cidr (new VPC) or vpcId + subnetIds",
    ),
    (
        "vpc-id-without-subnets",
        network(vpcId=VPC_ID),
        f"{CLUSTER}.network.subnetIds",
        "required with vpcId",
    ),
    (
        "vpc-id-one-subnet",
        network(vpcId=VPC_ID, subnetIds=SUBNETS[:1]),
        f"{CLUSTER}.network.subnetIds",
        "EKS needs subnets in 2 zones or more; got 1",
    ),
    (
        "vpc-id-malformed",
        network(vpcId="vpc-main", subnetIds=SUBNETS),
        f"{CLUSTER}.network.vpcId",
        "must look like vpc-0123456789abcdef0; got 'vpc-main'",
    ),
    (
        "nat-gateways-with-vpc-id",
        network(vpcId=VPC_ID, subnetIds=SUBNETS, natGateways="per-zone"),
        f"{CLUSTER}.network.natGateways",
        "cidr",
    ),
    # GPU Operator and workloads
    (
        "driver-operator-on-eks",
        top_merge("gpukit:gpuOperator", driver="operator"),
        "gpukit:gpuOperator.driver",
        "'operator' on eks needs an Ubuntu EKS node image",
    ),
    (
        "chart-version-unsupported",
        top_merge("gpukit:gpuOperator", chartVersion="v25.3.0"),
        "gpukit:gpuOperator.chartVersion",
        "must be one of v26.7.0",
    ),
    (
        "cuda-version-unknown",
        top_merge("gpukit:workloads", cudaVersion="14.0"),
        "gpukit:workloads.cudaVersion",
        "must be a CUDA release gpukit knows",
    ),
    # gpukit:verification (docs/verification.md)
    (
        "verification-timeout-too-short",
        top_set("gpukit:verification", {"enabled": True, "timeoutMinutes": 2}),
        "gpukit:verification.timeoutMinutes",
        "must be 5 to 120 minutes",
    ),
    (
        "verification-timeout-too-long",
        top_set("gpukit:verification", {"enabled": True, "timeoutMinutes": 600}),
        "gpukit:verification.timeoutMinutes",
        "got 600",
    ),
    (
        "verification-enabled-not-bool",
        top_set("gpukit:verification", {"enabled": "yes"}),
        "gpukit:verification.enabled",
        "must be true or false, got 'yes'",
    ),
    (
        "verification-key-typo",
        top_set("gpukit:verification", {"enable": True}),
        "gpukit:verification.enable",
        "unknown key; did you mean 'enabled'?",
    ),
    (
        "verification-not-a-mapping",
        top_set("gpukit:verification", True),
        "gpukit:verification",
        "must be a mapping",
    ),
]


ACCOUNT = "123456789012"
L4_POOL = 1  # eks_config()'s spot L4 pool, pinned to usw2-az1 and usw2-az2


def pool_drop(index: int, key: str) -> Mutation:
    def mutate(config: Config) -> None:
        del config[POOLS][index][key]

    return mutate


def pool_add(**pool: Any) -> Mutation:
    def mutate(config: Config) -> None:
        config[POOLS].append(pool)

    return mutate


# Issue 11, EKS: zones, spot alternatives, support policy, log retention, admin principals.
EKS_CASES: list[tuple[str, Mutation, str, str]] = [
    (
        "eks-zone-name-instead-of-az-id",
        pool_set(L4_POOL, zones=["us-west-2a"]),
        f"{POOLS}[1].zones[0]",
        "must be an AZ ID like usw2-az1",
    ),
    (
        "eks-zone-of-another-region",
        pool_set(L4_POOL, zones=["use1-az1"]),
        f"{POOLS}[1].zones[0]",
        "must be an AZ ID of the cluster's region us-west-2 (usw2-az<N>); got 'use1-az1'",
    ),
    (
        "eks-local-zone",
        pool_set(L4_POOL, zones=["usw2-lax1-az1"]),
        f"{POOLS}[1].zones[0]",
        "must be an AZ ID like usw2-az1",
    ),
    (
        "eks-zone-with-trailing-newline",
        pool_set(L4_POOL, zones=["usw2-az1\n"]),
        f"{POOLS}[1].zones[0]",
        "must be an AZ ID",
    ),
    (
        "eks-private-api-in-a-new-vpc",
        cluster_set(apiAccessCidrs=[]),
        f"{CLUSTER}.apiAccessCidrs",
        "[] keeps the API inside the network this stack creates (10.40.0.0/16), which nothing outside it "
        "routes to",
    ),
    (
        "eks-zone-eks-does-not-support",
        steps(
            lambda config: config.update({"aws:region": "us-east-1"}),
            pool_set(L4_POOL, zones=["use1-az1", "use1-az3"]),
        ),
        f"{POOLS}[1].zones[1]",
        "EKS does not support use1-az3 (its networking requirements list cac1-az3, use1-az3, usw1-az2): "
        "pin another zone of us-east-1; got 'use1-az3'",
    ),
    (
        "eks-zone-listed-twice",
        pool_set(L4_POOL, zones=["usw2-az1", "usw2-az1"]),
        f"{POOLS}[1].zones",
        "'usw2-az1' is listed 2 times",
    ),
    (
        "eks-zones-empty",
        pool_set(L4_POOL, zones=[]),
        f"{POOLS}[1].zones",
        "must name one zone at least",
    ),
    (
        "eks-gpu-max-nodes-below-zone-count",
        pool_set(L4_POOL, maxNodes=1),
        f"{POOLS}[1].maxNodes",
        "2 zones need maxNodes 2 or more; got 1",
    ),
    (
        "eks-more-pinned-zones-than-the-vpc-has",
        steps(
            pool_set(L4_POOL, zones=["usw2-az1", "usw2-az2", "usw2-az3"]),
            pool_set(0, zones=["usw2-az4"]),
        ),
        f"{CLUSTER}.network.zoneCount",
        "the pools pin 4 zones",
    ),
    (
        "eks-alternative-on-demand-pool",
        pool_set(L4_POOL, capacity="on-demand", alternativeInstanceTypes=["g6.2xlarge"]),
        f"{POOLS}[1].alternativeInstanceTypes",
        "only for capacity: spot pools",
    ),
    (
        "eks-alternative-other-gpu",
        pool_set(L4_POOL, alternativeInstanceTypes=["g5.xlarge"]),
        f"{POOLS}[1].alternativeInstanceTypes[0]",
        "g5.xlarge has 1x A10G (x86_64), but g6.xlarge has 1x L4 (x86_64)",
    ),
    (
        "eks-alternative-other-size",
        pool_set(L4_POOL, alternativeInstanceTypes=["g6.2xlarge"]),
        f"{POOLS}[1].alternativeInstanceTypes[0]",
        "g6.2xlarge has 8 vCPUs and 32 GiB, but g6.xlarge has 4 vCPUs and 16 GiB",
    ),
    (
        "eks-alternative-unknown-type",
        pool_set(L4_POOL, alternativeInstanceTypes=["g6.xlarg"]),
        f"{POOLS}[1].alternativeInstanceTypes[0]",
        "unknown aws instance type 'g6.xlarg'",
    ),
    (
        "eks-alternative-same-as-primary",
        pool_set(L4_POOL, alternativeInstanceTypes=["g6.xlarge"]),
        f"{POOLS}[1].alternativeInstanceTypes",
        "'g6.xlarge' is listed twice",
    ),
    (
        "eks-support-type-unknown",
        cluster_set(supportType="premium"),
        f"{CLUSTER}.supportType",
        "premium",
    ),
    (
        "eks-log-retention-not-a-cloudwatch-value",
        cluster_set(logRetentionDays=45),
        f"{CLUSTER}.logRetentionDays",
        "must be a retention CloudWatch Logs takes",
    ),
    (
        "eks-log-retention-zero",
        cluster_set(logRetentionDays=0),
        f"{CLUSTER}.logRetentionDays",
        "got 0",
    ),
    (
        "eks-admin-assumed-role-session",
        cluster_set(adminPrincipalArns=[f"arn:aws:sts::{ACCOUNT}:assumed-role/Admin/jane"]),
        f"{CLUSTER}.adminPrincipalArns[0]",
        f"use the role's IAM ARN, arn:aws:iam::{ACCOUNT}:role/Admin",
    ),
    (
        "eks-admin-iam-group",
        cluster_set(adminPrincipalArns=[f"arn:aws:iam::{ACCOUNT}:group/admins"]),
        f"{CLUSTER}.adminPrincipalArns[0]",
        "is an IAM group, which access entries refuse",
    ),
    (
        "eks-admin-account-root",
        cluster_set(adminPrincipalArns=[f"arn:aws:iam::{ACCOUNT}:root"]),
        f"{CLUSTER}.adminPrincipalArns[0]",
        "is the account root, which access entries refuse",
    ),
    (
        "eks-admin-listed-twice",
        cluster_set(
            adminPrincipalArns=[f"arn:aws:iam::{ACCOUNT}:role/ops", f"arn:aws:iam::{ACCOUNT}:role/ops"]
        ),
        f"{CLUSTER}.adminPrincipalArns",
        "is listed 2 times",
    ),
    (
        "eks-admin-same-role-under-two-paths",
        cluster_set(
            adminPrincipalArns=[f"arn:aws:iam::{ACCOUNT}:role/ops", f"arn:aws:iam::{ACCOUNT}:role/team/ops"]
        ),
        f"{CLUSTER}.adminPrincipalArns",
        "name the same IAM principal",
    ),
    (
        "eks-admin-short-account-id",
        cluster_set(adminPrincipalArns=["arn:aws:iam::12345:role/ops"]),
        f"{CLUSTER}.adminPrincipalArns[0]",
        "must be an IAM role or user ARN",
    ),
    (
        "eks-admin-arn-with-trailing-newline",
        cluster_set(adminPrincipalArns=[f"arn:aws:iam::{ACCOUNT}:role/ops\n"]),
        f"{CLUSTER}.adminPrincipalArns[0]",
        "must be an IAM role or user ARN",
    ),
    (
        "eks-admin-instance-profile",
        cluster_set(adminPrincipalArns=[f"arn:aws:iam::{ACCOUNT}:instance-profile/nodes"]),
        f"{CLUSTER}.adminPrincipalArns[0]",
        "must be an IAM role or user ARN",
    ),
]
CASES += EKS_CASES


def broken(base: Callable[[], Config], mutation: Mutation) -> Callable[[], Config]:
    """A maker of the broken config: a fresh base config with `mutation` applied."""

    def make() -> Config:
        config = base()
        mutation(config)
        return config

    return make


def bad_config(mutation: Mutation) -> Config:
    config = eks_config()
    mutation(config)
    return config


def plan_stderr(config: Config, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """Run `gpukit plan --config` on `config`; asserts exit 2 and no traceback, returns stderr."""
    path = tmp_path / "Pulumi.bad.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    code = main(["plan", "--config", str(path)])
    out, err = capsys.readouterr()
    assert code == EXIT_INVALID, f"exit {code}\nstdout:\n{out}\nstderr:\n{err}"
    assert "Traceback" not in out + err
    return err


def has_problem(stderr: str, key: str, fragment: str) -> bool:
    """Whether a line of stderr reads `<key>: ...<fragment>...` (the key exactly, not a longer one)."""
    return any(
        line.strip().startswith(f"{key}: ") and fragment in line.strip()[len(key) + 2 :]
        for line in stderr.splitlines()
    )


def build_recording(config: Config, secret_keys: Collection[str] = ()) -> RecordingMonitor:
    """Run build(config) under the mocks like harness.record, expecting ConfigError; returns the monitor."""
    mocks = PlanMocks.for_config({"aws:region": "us-west-2"})
    monitor = RecordingMonitor(mocks)
    pulumi.runtime.set_all_config({}, secret_keys=[])
    runtime_settings.ROOT.set(None)
    pulumi.runtime.set_mocks(mocks, project="gpukit", stack="test", preview=False, monitor=monitor)
    try:
        with pytest.raises(ConfigError):
            pulumi.runtime.test(lambda: build(config, secret_keys))()  # type: ignore[no-untyped-call]
    finally:
        pulumi.runtime.set_all_config({}, secret_keys=[])
    return monitor


def assert_refused(
    config: Config,
    key: str,
    fragment: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    *,
    program: tuple[Config, list[str]] | None = None,
) -> None:
    """What every bad-config case checks: `gpukit plan` exits 2 naming `key` with `fragment`, no
    traceback; `build` raises ConfigError naming it; nothing is registered.

    `program` is the config and secret keys as `build` sees them under Pulumi, where they differ from
    the stack file (encrypted values); default: the stack file's config, no secret keys.
    """
    stderr = plan_stderr(config, tmp_path, capsys)  # asserts exit 2 and no traceback
    assert "invalid configuration in" in stderr
    assert has_problem(stderr, key, fragment), f"no line '{key}: ...{fragment}...' in:\n{stderr}"

    program_config, secret_keys = program or (config, [])
    with pytest.raises(ConfigError) as raised:
        record(lambda: build(program_config, secret_keys))
    assert has_problem(str(raised.value), key, fragment), str(raised.value)
    assert key in {problem.key for problem in raised.value.problems}

    assert build_recording(program_config, secret_keys).recorded == []


@pytest.mark.parametrize(
    ("mutation", "key", "fragment"),
    [
        pytest.param(
            mutation,
            key,
            fragment,
            id=case,
        )
        for case, mutation, key, fragment in CASES
    ],
)
def test_bad_config_is_refused(
    mutation: Mutation, key: str, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert_refused(bad_config(mutation), key, fragment, tmp_path, capsys)


def test_case_ids_are_unique_and_enough() -> None:
    ids = [case for case, *_ in CASES]
    assert len(ids) == len(set(ids))
    assert len(ids) >= 24
    assert len(EKS_CASES) >= 20


def test_valid_base_config_is_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The cases fail because of their one change: the config they start from plans and builds."""
    path = tmp_path / "Pulumi.good.yaml"
    path.write_text(yaml.safe_dump({"config": eks_config()}))
    code = main(["plan", "--config", str(path)])
    _, err = capsys.readouterr()
    assert code != EXIT_INVALID, err
    assert record(lambda: build(eks_config())).resources


def test_every_problem_is_reported_in_one_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = bad_config(
        steps(
            pool_set(0, minNodes=5, maxNodes=3),
            pool_set(1, instanceType="g6.xlarg"),
            network(cidr="10.40.0.0/33"),
        )
    )
    expected = [
        (f"{CLUSTER}.network.cidr", "must be an IPv4 CIDR"),
        (f"{POOLS}[0].minNodes", "must be <= maxNodes (3); got 5"),
        (f"{POOLS}[1].instanceType", "did you mean g6.xlarge"),
    ]

    stderr = plan_stderr(config, tmp_path, capsys)
    for key, fragment in expected:
        assert has_problem(stderr, key, fragment), f"no line '{key}: ...{fragment}...' in:\n{stderr}"

    monitor = build_recording(config)
    assert monitor.recorded == []
    with pytest.raises(ConfigError) as raised:
        record(lambda: build(config))
    assert {key for key, _ in expected} <= {problem.key for problem in raised.value.problems}


def test_structure_and_meaning_problems_in_separate_sections_are_reported_together(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A mistyped pool key does not hide a meaning problem in the cluster section, and vice versa."""
    config = bad_config(
        steps(
            pool_set(1, minNodes="zero"),
            cluster_set(kubernetesVersion="1.29"),
            top_merge("gpukit:workloads", cudaVersion="14.0"),
        )
    )
    stderr = plan_stderr(config, tmp_path, capsys)
    assert has_problem(stderr, f"{POOLS}[1].minNodes", "must be an integer")
    assert has_problem(stderr, f"{CLUSTER}.kubernetesVersion", "must be one of 1.34, 1.35, 1.36")
    assert has_problem(stderr, "gpukit:workloads.cudaVersion", "must be a CUDA release gpukit knows")


def test_missing_region_does_not_hide_cluster_problems(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = bad_config(
        steps(
            top_drop("aws:region"),
            cluster_set(name="GPU-Dev"),
            network(cidr="10.40.0.0/33"),
            top_merge("gpukit:gpuOperator", driver="operator"),
        )
    )
    stderr = plan_stderr(config, tmp_path, capsys)
    assert has_problem(stderr, "aws:region", "required for platform eks")
    assert has_problem(stderr, f"{CLUSTER}.name", "must be lowercase letters")
    assert has_problem(stderr, f"{CLUSTER}.network.cidr", "must be an IPv4 CIDR")
    assert has_problem(stderr, "gpukit:gpuOperator.driver", "'operator' on eks")

"""Validation that cannot be slipped past (issue 11, section 3), on EKS and GKE.

Each case starts from a valid config (harness.eks_config(), or stacks/Pulumi.gke-dev.yaml), breaks one
thing the way a user would (a trailing newline from a YAML `>` block, a region typo, a bare address,
one tag too many) and is checked like every bad-config case (test_bad_configs.assert_refused):
`gpukit plan` exits 2 naming the exact key, `build` raises ConfigError naming it, nothing is registered.

Then the key audit: every key the schema does not mark substrate-specific is, on every substrate,
either refused or shown to change the plan; substrate-specific keys are refused wherever their
substrate does not take them.
"""

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpukit.cli import main
from gpukit.components.config.schema import Field, schema_paths
from gpukit.components.errors import ConfigError
from gpukit.components.preflight import preflight
from gpukit.components.resolve.config import resolve_config
from gpukit.components.substrate import registry
from gpukit.program import build
from gpukit.providers.aws.tags import GPUKIT_TAGS_MAX, MAX_USER_TAGS
from harness import eks_config, example_config, record
from tests.program.test_bad_configs import (
    CLUSTER,
    POOLS,
    SUBNETS,
    Config,
    Mutation,
    assert_refused,
    broken,
    cluster_set,
    network,
    plan_stderr,
    pool_set,
    steps,
    top_set,
)
from tests.program.test_bad_configs_k3s import for_program

TAGS = f"{CLUSTER}.tags"
ADMIN_ROLE = "arn:aws:iam::123456789012:role/platform-admins"


def gke_config() -> Config:
    return example_config("gke-dev")


def many_cidrs(count: int) -> list[str]:
    """`count` distinct public /32s."""
    return [f"198.51.{i // 250}.{i % 250 + 1}/32" for i in range(count)]


# (case id, base config, mutation, exact key, fragment of its message)
CASES: list[tuple[str, Callable[[], Config], Mutation, str, str]] = [
    # strings: a YAML folded scalar (`>`) or literal block (`|`) leaves a trailing newline
    (
        "cluster-name-trailing-newline",
        eks_config,
        cluster_set(name="eks-dev\n"),
        f"{CLUSTER}.name",
        "has a trailing newline; remove it (a YAML `>` or `|` block keeps a final newline",
    ),
    (
        "pool-name-trailing-newline",
        eks_config,
        pool_set(0, name="system\n"),
        f"{POOLS}[0].name",
        "has a trailing newline",
    ),
    (
        "vpc-id-trailing-newline",
        eks_config,
        network(vpcId="vpc-0123456789abcdef0\n", subnetIds=SUBNETS),
        f"{CLUSTER}.network.vpcId",
        "has a trailing newline",
    ),
    (
        "admin-arn-trailing-newline",
        eks_config,
        cluster_set(adminPrincipalArns=[f"{ADMIN_ROLE}\n"]),
        f"{CLUSTER}.adminPrincipalArns[0]",
        "has a trailing newline",
    ),
    (
        "instance-type-leading-space",
        eks_config,
        pool_set(1, instanceType=" g6.xlarge"),
        f"{POOLS}[1].instanceType",
        "has whitespace around it",
    ),
    (
        "api-cidr-trailing-newline",
        gke_config,
        cluster_set(apiAccessCidrs=["203.0.113.0/24\n"]),
        f"{CLUSTER}.apiAccessCidrs[0]",
        "has a trailing newline",
    ),
    (
        "gcp-project-trailing-newline",
        gke_config,
        top_set("gcp:project", "acme-ml-dev\n"),
        "gcp:project",
        "must be a project id",
    ),
    (
        "aws-region-trailing-newline",
        eks_config,
        top_set("aws:region", "us-west-2\n"),
        "aws:region",
        "must be a region name like us-west-2",
    ),
    # regions and zones, against sourced lists, with did-you-mean
    (
        "aws-region-typo",
        eks_config,
        top_set("aws:region", "us-wset-2"),
        "aws:region",
        "'us-wset-2' is not a region gpukit knows",
    ),
    (
        "aws-region-number-typo",
        eks_config,
        top_set("aws:region", "us-west-9"),
        "aws:region",
        "did you mean us-west-2, us-west-1, us-east-2?",
    ),
    (
        "aws-region-other-partition",  # gpukit writes arn:aws: ARNs: GovCloud would refuse them
        eks_config,
        top_set("aws:region", "us-gov-west-1"),
        "aws:region",
        "is not a region gpukit knows (botocore endpoints.json",
    ),
    (
        "gcp-region-typo",
        gke_config,
        top_set("gcp:region", "us-centrl1"),
        "gcp:region",
        "did you mean us-central1",
    ),
    (
        "gcp-region-typo-with-pool-zones",  # named on the region key, not on the pool's zones
        gke_config,
        steps(top_set("gcp:region", "us-centrall1"), pool_set(1, zones=["us-central1-a"])),
        "gcp:region",
        "'us-centrall1' is not a region gpukit knows",
    ),
    (
        "gke-zone-not-in-region-list",
        gke_config,
        cluster_set(zone="us-central1-e"),
        f"{CLUSTER}.zone",
        "must be a zone of region us-central1 (us-central1-a ...); got 'us-central1-e'; did you mean",
    ),
    (
        "gke-pool-zone-not-in-region-list",
        gke_config,
        pool_set(1, zones=["us-central1-a", "us-central1-d"]),
        f"{POOLS}[1].zones[1]",
        "must be a zone of the cluster's region us-central1; got 'us-central1-d'",
    ),
    # CIDRs
    (
        "api-cidr-bare-address",
        eks_config,
        cluster_set(apiAccessCidrs=["203.0.113.5"]),
        f"{CLUSTER}.apiAccessCidrs[0]",
        "a bare address: for that one address write 203.0.113.5/32",
    ),
    (
        "gke-api-cidr-bare-address",
        gke_config,
        cluster_set(apiAccessCidrs=["203.0.113.0/24", "198.51.100.7"]),
        f"{CLUSTER}.apiAccessCidrs[1]",
        "write 198.51.100.7/32",
    ),
    (
        "api-cidr-host-bits",
        eks_config,
        cluster_set(apiAccessCidrs=["10.0.0.1/16"]),
        f"{CLUSTER}.apiAccessCidrs[0]",
        "has host bits set: the network it lies in is 10.0.0.0/16",
    ),
    (
        "api-cidr-listed-twice",
        gke_config,
        cluster_set(apiAccessCidrs=["203.0.113.0/24", "198.51.100.0/24", "203.0.113.0/24"]),
        f"{CLUSTER}.apiAccessCidrs[2]",
        "is already listed at gpukit:cluster.apiAccessCidrs[0]",
    ),
    (
        "api-cidr-ipv6",
        eks_config,
        cluster_set(apiAccessCidrs=["2001:db8::/32"]),
        f"{CLUSTER}.apiAccessCidrs[0]",
        "gpukit's clusters are IPv4-only",
    ),
    (
        "network-cidr-host-bits",
        gke_config,
        network(cidr="10.60.1.0/16"),
        f"{CLUSTER}.network.cidr",
        "the network it lies in is 10.60.0.0/16",
    ),
    (
        "api-cidr-netmask",  # Python reads a netmask; the cloud APIs take CIDR notation only
        eks_config,
        cluster_set(apiAccessCidrs=["203.0.113.0/255.255.255.0"]),
        f"{CLUSTER}.apiAccessCidrs[0]",
        "must be written in CIDR notation as 203.0.113.0/24; got '203.0.113.0/255.255.255.0'",
    ),
    (
        "gke-network-cidr-zero-padded-prefix",
        gke_config,
        network(cidr="10.60.0.0/016"),
        f"{CLUSTER}.network.cidr",
        "must be written in CIDR notation as 10.60.0.0/16",
    ),
    (
        "eks-api-cidr-loopback",  # EKS: a public access CIDR cannot include reserved addresses
        eks_config,
        cluster_set(apiAccessCidrs=["203.0.113.0/24", "127.0.0.1/32"]),
        f"{CLUSTER}.apiAccessCidrs[1]",
        "lies in reserved range 127.0.0.0/8, which EKS refuses in public access CIDRs",
    ),
    (
        "eks-api-cidr-multicast",
        eks_config,
        cluster_set(apiAccessCidrs=["224.0.0.0/4"]),
        f"{CLUSTER}.apiAccessCidrs[0]",
        "lies in reserved range 224.0.0.0/4",
    ),
    # reused networks: names and regions the API would refuse mid-deployment
    (
        "gke-reused-network-bad-name",
        gke_config,
        network(networkId="My_Net", subnetworkId="gke", podsRangeName="pods", servicesRangeName="svc"),
        f"{CLUSTER}.network.networkId",
        "must be a network name or projects/P/global/networks/NAME",
    ),
    (
        "gke-reused-subnetwork-other-region",
        gke_config,
        network(
            networkId="shared",
            subnetworkId="projects/acme-ml-dev/regions/us-east1/subnetworks/gke",
            podsRangeName="pods",
            servicesRangeName="svc",
        ),
        f"{CLUSTER}.network.subnetworkId",
        "is in region us-east1, but the cluster is in us-central1 (gcp:region)",
    ),
    (
        "admin-role-name-over-iam-limit",
        eks_config,
        cluster_set(adminPrincipalArns=["arn:aws:iam::123456789012:role/" + "r" * 65]),
        f"{CLUSTER}.adminPrincipalArns[0]",
        "is longer than IAM's 64 characters",
    ),
    # provider limits, named
    (
        "eks-too-many-access-ranges",
        eks_config,
        cluster_set(apiAccessCidrs=many_cidrs(41)),
        f"{CLUSTER}.apiAccessCidrs",
        "holds 41 public ranges: at most 40 public access CIDR ranges",
    ),
    (
        "gke-too-many-authorized-networks",
        gke_config,
        cluster_set(apiAccessCidrs=many_cidrs(51)),
        f"{CLUSTER}.apiAccessCidrs",
        "holds 51 ranges: at most 50 authorized networks",
    ),
    (
        "eks-node-group-over-quota",
        eks_config,
        pool_set(0, maxNodes=451),
        f"{POOLS}[0].maxNodes",
        "must be at most 450: at most 450 nodes per managed node group (a default quota",
    ),
    (
        "eks-gpu-zone-groups-over-quota",  # one node group per pinned zone, each with its share
        eks_config,
        pool_set(1, maxNodes=901, zones=["usw2-az1", "usw2-az2"]),
        f"{POOLS}[1].maxNodes",
        "must be at most 2 zones x 450 = 900",
    ),
    (
        "gke-pool-over-per-zone-limit",
        gke_config,
        pool_set(1, maxNodes=1001, zones=["us-central1-a"]),
        f"{POOLS}[1].maxNodes",
        "must be at most 1000: at most 1000 nodes per node pool in each zone",
    ),
    (
        "gke-pool-over-its-zones",
        gke_config,
        pool_set(0, maxNodes=4001),  # us-central1 has 4 zones
        f"{POOLS}[0].maxNodes",
        "must be at most 4 zones x 1000 = 4000",
    ),
    # AWS tags
    (
        "tag-aws-prefix",
        eks_config,
        cluster_set(tags={"AWS:team": "ml"}),
        f"{TAGS}.AWS:team",
        "the aws: prefix is reserved for AWS",
    ),
    (
        "tag-replaces-gpukit-cluster",
        eks_config,
        cluster_set(tags={"gpukit:cluster": "someone-else"}),
        f"{TAGS}.gpukit:cluster",
        "gpukit sets this tag itself",
    ),
    (
        "tag-autoscaler-discovery",
        eks_config,
        cluster_set(tags={"k8s.io/cluster-autoscaler/enabled": "false"}),
        f"{TAGS}.k8s.io/cluster-autoscaler/enabled",
        "gpukit sets this tag itself",
    ),
    (
        "tag-value-too-long",
        eks_config,
        cluster_set(tags={"team": "x" * 257}),
        f"{TAGS}.team",
        "the value must be 0-256 characters",
    ),
    (
        "tag-key-bad-character",
        eks_config,
        cluster_set(tags={"cost,center": "ml"}),
        f"{TAGS}.cost,center",
        "the key must be 1-128 characters: letters, digits, spaces and + - = . _ : / @",
    ),
    (
        "too-many-tags",
        eks_config,
        cluster_set(tags={f"tag{i}": "x" for i in range(MAX_USER_TAGS + 1)}),
        TAGS,
        f"at most {MAX_USER_TAGS} (AWS takes 50 per resource and gpukit sets up to {GPUKIT_TAGS_MAX}",
    ),
    # keys that would change nothing are refused
    (
        "provider-on-eks",
        eks_config,
        cluster_set(provider="aws"),
        f"{CLUSTER}.provider",
        "platform eks implies provider aws; remove the key",
    ),
    (
        "provider-on-gke",
        gke_config,
        cluster_set(provider="gcp"),
        f"{CLUSTER}.provider",
        "platform gke implies provider gcp; remove the key",
    ),
    (
        "gpu-on-a-machine-that-fixes-its-gpus",
        eks_config,
        pool_set(1, gpu={"model": "L4", "count": 1}),
        f"{POOLS}[1].gpu",
        "g6.xlarge comes with 1x L4 already: the key changes nothing there",
    ),
    (
        "gke-gpu-on-a-machine-that-fixes-its-gpus",
        gke_config,
        pool_set(1, gpu={"model": "L4", "count": 1}),
        f"{POOLS}[1].gpu",
        "g2-standard-8 comes with 1x L4 already",
    ),
]


@pytest.mark.parametrize(
    ("make", "key", "fragment"),
    [
        pytest.param(broken(base, mutation), key, fragment, id=case)
        for case, base, mutation, key, fragment in CASES
    ],
)
def test_bad_config_is_refused(
    make: Callable[[], Config], key: str, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert_refused(make(), key, fragment, tmp_path, capsys)


def test_enough_cases_on_both_platforms() -> None:
    ids = [case for case, *_ in CASES]
    assert len(ids) == len(set(ids))
    assert sum(1 for _, base, *_ in CASES if base is eks_config) >= 10
    assert sum(1 for _, base, *_ in CASES if base is gke_config) >= 10


def test_gpu_zone_groups_within_the_quota_each_plan() -> None:
    """900 nodes over two pinned zones is two groups of 450: within the quota, so accepted."""
    config = eks_config()
    config[POOLS][1].update(maxNodes=900, zones=["usw2-az1", "usw2-az2"])
    resolve_config(config)


def test_eks_counts_only_public_ranges_against_its_public_access_limit() -> None:
    """40 public ranges plus private ones is within EKS's limit: the private ranges never go to the
    public endpoint's list (they become security group rules)."""
    config = eks_config()
    config[CLUSTER]["apiAccessCidrs"] = [*many_cidrs(40), "10.0.0.0/8", "192.168.0.0/16"]
    resolve_config(config)


def test_gke_pools_over_the_cluster_node_limit_are_refused_on_the_pools(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Four pools of 4,000 nodes each fit their zones but not GKE's 15,000 nodes per cluster."""
    config = gke_config()
    base = config[POOLS][0]
    config[POOLS] = [{**base, "name": f"cpu{i}", "maxNodes": 4000} for i in range(4)]
    assert_refused(
        config,
        POOLS,
        "the pools' maxNodes add up to 16000: at most 15000 nodes per cluster",
        tmp_path,
        capsys,
    )


def test_a_region_typo_is_reported_on_the_region_key_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = gke_config()
    config["gcp:region"] = "us-centrall1"
    config[POOLS][1]["zones"] = ["us-central1-a", "us-central1-b"]
    config[CLUSTER]["zone"] = "us-central1-a"
    stderr = plan_stderr(config, tmp_path, capsys)
    keys = [line.strip().split(": ", 1)[0] for line in stderr.splitlines()[1:] if line.strip()]
    assert keys == ["gcp:region"], stderr


def test_a_whole_internet_access_list_plans_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not an error (the stack asked for it) but never silent: `gpukit plan` shows the finding."""
    for config in (eks_config(), gke_config()):
        config[CLUSTER]["apiAccessCidrs"] = ["0.0.0.0/1", "128.0.0.0/1"]
        path = tmp_path / "Pulumi.open.yaml"
        path.write_text(yaml.safe_dump({"config": config}))
        code = main(["plan", "--config", str(path)])
        out, err = capsys.readouterr()
        assert code == 0, err
        assert "gpukit:cluster.apiAccessCidrs" in out + err and "whole internet" in out + err


# --- the tags gpukit sets itself fit the budget the tag checks leave it ------------------------------


@pytest.mark.parametrize("ephemeral", [False, True])
@pytest.mark.parametrize("stack", ["eks-dev", "eks-train", "k3s-aws"])
def test_gpukit_sets_at_most_its_budget_of_tags_beside_the_users(stack: str, ephemeral: bool) -> None:
    """Every AWS resource that gets the user's tags (the provider's default tags, or tag
    specifications gpukit fills from them) holds at most GPUKIT_TAGS_MAX tags of gpukit's own, so
    MAX_USER_TAGS user tags always fit AWS's 50 (also on an ephemeral stack, which adds its expiry)."""
    config = example_config(stack)
    config[CLUSTER]["tags"] = {"team": "ml"}
    own = {"gpukit:cluster", "managed-by"}  # the provider's default tags besides the user's
    if ephemeral:
        config["gpukit:ephemeral"] = {"expiresAt": "2026-12-01T15:30:00Z"}
        own.add("gpukit-expires-at")
    counts: dict[str, int] = {}
    for resource in record(lambda: build(config), region=config["aws:region"]).resources:
        if not resource.type.startswith("aws:"):
            continue
        tags = resource.inputs.get("tags")
        if isinstance(tags, dict):
            counts[resource.name] = len((set(tags) | own) - {"team"})
        for spec in resource.inputs.get("tagSpecifications") or []:
            spec_tags = spec.get("tags") or {}
            if "team" in spec_tags:
                counts[f"{resource.name} {spec.get('resourceType')}"] = len(set(spec_tags) - {"team"})
    assert counts, "no tagged AWS resource recorded"
    assert max(counts.values()) <= GPUKIT_TAGS_MAX, sorted(counts.items(), key=lambda kv: -kv[1])[:3]


# --- the key audit: every key is used or refused, on every substrate ---------------------------------

STACK_OF = {
    "eks": "eks-dev",
    "gke": "gke-dev",
    "k3s-aws": "k3s-aws",
    "k3s-gcp": "k3s-gcp",
    "k3s-ssh": "k3s-ssh",
}
SUBSTRATES = sorted(STACK_OF)


def _plan_signature(config: Config) -> tuple[Any, ...]:
    """What a plan shows: every recorded resource with its inputs, and the preflight findings."""
    program_config, secret_keys = for_program(config)
    region = config.get("aws:region") or config.get("gcp:region") or "us-west-2"
    resources = record(lambda: build(program_config, secret_keys), region=region).resources
    findings = [str(f) for f in preflight(resolve_config(program_config, secret_keys))]
    return tuple(sorted((r.type, r.name, repr(r.inputs)) for r in resources)), tuple(findings)


def _refusal_keys(config: Config) -> set[str]:
    program_config, secret_keys = for_program(config)
    try:
        resolve_config(program_config, secret_keys)
    except ConfigError as err:
        return {p.key for p in err.problems}
    return set()


def _gpu_pool(config: Config) -> int:
    return next(i for i, p in enumerate(config[POOLS]) if p["name"] in ("l4", "l40s"))


def _batch_on_demand(config: Config) -> None:
    config["gpukit:batch"] = {"enabled": True}
    if config[CLUSTER]["platform"] == "gke":
        config[POOLS][_gpu_pool(config)]["capacity"] = "on-demand"


def _other_cuda(config: Config) -> None:
    config["gpukit:workloads"]["cudaVersion"] = "13.1"  # R580 runs it through minor-version compatibility


def _other_driver(config: Config) -> None:
    operator = config["gpukit:gpuOperator"]
    operator["driver"] = "preinstalled" if operator["driver"] == "operator" else "operator"
    operator.pop("gkeDriverVersion", None)


def _other_kubernetes(config: Config) -> None:
    cluster = config[CLUSTER]
    if cluster["platform"] == "k3s":  # another minor needs sums gpukit has not pinned: give any
        cluster.update(kubernetesVersion="1.35", k3sSha256={"amd64": "a" * 64, "arm64": "b" * 64})
    else:
        cluster["kubernetesVersion"] = "1.36"


def _toggle_verification(config: Config) -> None:
    verification = config.setdefault("gpukit:verification", {})
    verification["enabled"] = not verification.get("enabled", False)


def _toggle_inference(config: Config) -> None:
    config["gpukit:inference"] = {"enabled": not config.get("gpukit:inference", {}).get("enabled", False)}


def _inference_set(**values: Any) -> Mutation:
    """Inference on, with `values` (each part's keys) laid over it."""

    def mutate(config: Config) -> None:
        inference = config["gpukit:inference"] = {"enabled": True}
        for part, keys in values.items():
            inference[part] = dict(keys)

    return mutate


def _inference_update(part: str, **keys: Any) -> Mutation:
    return lambda c: c["gpukit:inference"].setdefault(part, {}).update(keys)


def _attached_gpus(count: int) -> Mutation:
    """A GPU pool as N1 machines with attached T4s (GCP), or the hosts' GPUs (own hosts)."""

    def mutate(config: Config) -> None:
        pool = config[POOLS][_gpu_pool(config)]
        if "hosts" in pool:
            pool["gpu"] = {"model": "L40S", "count": count}
        else:
            pool.update(instanceType="n1-standard-8", gpu={"model": "T4", "count": count})

    return mutate


def _efa_pool_on_eks(config: Config) -> None:
    config.setdefault("gpukit:verification", {})
    if config[CLUSTER]["platform"] == "eks":
        config[POOLS].append(
            {
                "name": "efa",
                "instanceType": "p5.48xlarge",
                "minNodes": 0,
                "maxNodes": 2,
                "zones": ["usw2-az3"],
            }
        )


# Keys every substrate takes (not substrate-specific in the schema), and how each substrate treats
# them: "used" (the mutation changes the plan), "refused" (setting it names the key), or
# "default-only" (the only value accepted is the default; any other is refused).
# `cluster.platform` is left out: it chooses the substrate itself.
COMMON_KEYS: dict[str, tuple[Mutation, Mutation | None, dict[str, str]]] = {
    # path: (change to apply to the example stack, preparation both plans share, substrate -> outcome)
    "cluster.name": (cluster_set(name="renamed"), None, dict.fromkeys(SUBSTRATES, "used")),
    "cluster.provider": (
        lambda c: c[CLUSTER].update(provider={"eks": "aws", "gke": "gcp"}[c[CLUSTER]["platform"]]),
        None,
        {"eks": "refused", "gke": "refused"},
    ),
    "cluster.kubernetesVersion": (_other_kubernetes, None, dict.fromkeys(SUBSTRATES, "used")),
    "nodePools.name": (pool_set(0, name="renamed"), None, dict.fromkeys(SUBSTRATES, "used")),
    "nodePools.gpu": (
        _attached_gpus(2),
        _attached_gpus(1),
        {"gke": "used", "k3s-gcp": "used", "k3s-ssh": "used"},
    ),
    "nodePools.gpu(fixed)": (
        lambda c: c[POOLS][_gpu_pool(c)].update(gpu={"model": "L4", "count": 1}),
        None,
        {"eks": "refused", "k3s-aws": "refused"},
    ),
    "gpuOperator.chartVersion": (
        lambda c: c["gpukit:gpuOperator"].update(chartVersion="v25.3.0"),
        None,
        dict.fromkeys(SUBSTRATES, "default-only"),
    ),
    "gpuOperator.driver": (
        _other_driver,
        None,
        {"eks": "default-only", "gke": "used", "k3s-aws": "used", "k3s-gcp": "used", "k3s-ssh": "used"},
    ),
    "workloads.cudaVersion": (_other_cuda, None, dict.fromkeys(SUBSTRATES, "used")),
    # Audited whole, as gpu is: a volume of the substrate's own backend once one is built there (each
    # backend's helper turns its substrate's outcome to "used").
    "storage.shared": (
        lambda c: c.update(
            {
                "gpukit:storage": {
                    "shared": [{"name": "ckpt", "kind": "auto", "role": "checkpoints", "sizeGb": 1200}]
                }
            }
        ),
        None,
        {
            **dict.fromkeys(SUBSTRATES, "refused"),
            "eks": "used",
            "gke": "used",
            "k3s-aws": "used",
            "k3s-gcp": "used",
        },
    ),
    "verification.enabled": (_toggle_verification, None, dict.fromkeys(SUBSTRATES, "used")),
    "inference.enabled": (_toggle_inference, None, dict.fromkeys(SUBSTRATES, "used")),
    "inference.metrics.enabled": (
        _inference_update("metrics", enabled=False),
        _inference_set(autoscaling={"enabled": False}),
        dict.fromkeys(SUBSTRATES, "used"),
    ),
    # GKE's managed store keeps 24 months, whatever is asked.
    "inference.metrics.retentionDays": (
        _inference_update("metrics", retentionDays=30),
        _inference_set(),
        {**dict.fromkeys(SUBSTRATES, "used"), "gke": "refused"},
    ),
    "inference.autoscaling.enabled": (
        _inference_update("autoscaling", enabled=False),
        _inference_set(),
        dict.fromkeys(SUBSTRATES, "used"),
    ),
    "inference.gateway.enabled": (
        _inference_update("gateway", enabled=True),
        lambda c: c.update({"gpukit:inference": {"metrics": {"enabled": True}}}),
        dict.fromkeys(SUBSTRATES, "used"),
    ),
    # One class each substrate builds on (GKE's external ones are refused).
    "inference.gateway.className": (
        _inference_update("gateway", className="other-class"),
        _inference_set(),
        dict.fromkeys(SUBSTRATES, "default-only"),
    ),
    # A public range: GKE's internal class admits its VPC only, and k3s on a cloud answers on private
    # addresses only.
    "inference.gateway.allowedCidrs": (
        _inference_update("gateway", allowedCidrs=["198.51.100.0/24"]),
        _inference_set(),
        {**dict.fromkeys(SUBSTRATES, "refused"), "eks": "used", "k3s-ssh": "used"},
    ),
    "batch": (
        lambda c: c.update(
            {
                "gpukit:batch": {
                    "enabled": True,
                    "priorityClasses": [{"name": "high", "value": 10}],
                    "queues": [
                        {"name": "team", "namespaces": ["team"], "cohort": "all", "priorityClass": "high"}
                    ],
                    "gangScheduling": {"timeoutMinutes": 45, "blockAdmission": False},
                    "trainingOperator": {"enabled": False},
                }
            }
        ),
        None,
        dict.fromkeys(SUBSTRATES, "used"),
    ),
    # Queued where some autoscaler takes ProvisioningRequests (batch on in both plans; GKE's queued pools
    # are on-demand); Karpenter (eks-dev) and own hosts have none.
    "nodePools.provisioning": (
        lambda c: c[POOLS][_gpu_pool(c)].update(provisioning="queued"),
        _batch_on_demand,
        {"eks": "refused", "gke": "used", "k3s-aws": "used", "k3s-gcp": "used", "k3s-ssh": "refused"},
    ),
    # Built where a pool has a fabric gpukit sets up (EKS, given a p5 pool); refused where none can.
    "verification.nccl": (
        lambda c: c["gpukit:verification"].update(nccl=True),
        _efa_pool_on_eks,
        {**dict.fromkeys(SUBSTRATES, "refused"), "eks": "used"},
    ),
    "verification.timeoutMinutes": (
        lambda c: c["gpukit:verification"].update(timeoutMinutes=45),
        lambda c: c.update({"gpukit:verification": {"enabled": True}}),
        dict.fromkeys(SUBSTRATES, "used"),
    ),
}
AUDIT = [
    pytest.param(path, substrate, id=f"{path}-{substrate}")
    for path, (_, _, outcomes) in COMMON_KEYS.items()
    for substrate in outcomes
]


def test_every_common_key_is_audited_on_every_substrate() -> None:
    """The table covers every non-specific leaf of the schema on every substrate (nothing forgotten)."""
    leaves = {
        path
        for path, field in schema_paths()
        if not field.specific
        and field.planned is None
        and not field.fields
        and not _under_specific(path)
        and path != "cluster.platform"
    }
    leaves = {p.removesuffix(".model").removesuffix(".count") for p in leaves}  # gpu is audited whole
    leaves = {"storage.shared" if p.startswith("storage.shared.") else p for p in leaves}  # whole, too
    leaves = {"batch" if p.startswith("batch.") else p for p in leaves}  # whole (test_batch.py: per key)
    audited = {p.removesuffix("(fixed)") for p in COMMON_KEYS}
    assert leaves == audited
    for path in audited:
        covered = set().union(
            *(o for p, (_, _, o) in COMMON_KEYS.items() if p.removesuffix("(fixed)") == path)
        )
        expected = set(SUBSTRATES) - (
            {"k3s-aws", "k3s-gcp", "k3s-ssh"} if path == "cluster.provider" else set()
        )
        assert covered == expected, path  # k3s needs provider: it picks the substrate there


def _under_specific(path: str) -> bool:
    fields = dict(schema_paths())
    parts = path.split(".")
    return any(fields[".".join(parts[:n])].specific for n in range(1, len(parts)))


@pytest.mark.parametrize(("path", "substrate"), AUDIT)
def test_a_common_key_changes_the_plan_or_is_refused(path: str, substrate: str) -> None:
    change, prepare, outcomes = COMMON_KEYS[path]
    base = example_config(STACK_OF[substrate])
    if prepare is not None:
        prepare(base)
    changed = copy.deepcopy(base)
    change(changed)
    key_prefix = "gpukit:" + path.removesuffix("(fixed)").split(".")[0]
    if outcomes[substrate] in ("refused", "default-only"):
        refused = _refusal_keys(changed)
        assert any(k.startswith(key_prefix) for k in refused), (path, substrate, refused)
        return
    assert _refusal_keys(base) == set() and _refusal_keys(changed) == set()
    assert _plan_signature(base) != _plan_signature(changed), f"{path} changes nothing on {substrate}"


def _sample(field: Field) -> Any:
    """A value of the field's type (the check is that the key is refused, whatever its value)."""
    if field.choices is not None:
        return next(iter(field.choices)).value
    return {
        "str": "x",
        "secret": "x",
        "int": 1,
        "number": 1.5,
        "bool": True,
        "list[str]": ["x"],
        "map[str]": {"x": "y"},
        "object": {},
        "list[object]": [],
    }[field.kind]


SPECIFIC = [
    (path, field)
    for path, field in schema_paths()
    if field.specific and field.planned is None and not _under_specific(path)
]


@pytest.mark.parametrize("substrate", SUBSTRATES)
def test_every_specific_key_is_refused_where_its_substrate_does_not_take_it(substrate: str) -> None:
    accepts = registry().named(substrate).accepts
    missing = []
    for path, field in SPECIFIC:
        if path in accepts:
            continue
        config = example_config(STACK_OF[substrate])
        section, *rest = path.split(".")
        target = config[f"gpukit:{section}"] if rest else config
        if section == "nodePools":
            target = target[0]
        if len(rest) == 2:  # cluster.network.<key>
            target = target.setdefault(rest[0], {})
        target[rest[-1] if rest else f"gpukit:{section}"] = _sample(field)
        key = {"nodePools": f"{POOLS}[0]", "cluster": CLUSTER}.get(section, f"gpukit:{section}")
        key = f"{key}.{'.'.join(rest)}" if rest else key
        if key not in _refusal_keys(config):
            missing.append(key)
    assert missing == []


def test_an_aws_tag_with_a_trailing_newline_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = eks_config()
    config[CLUSTER]["tags"] = {"team": "ml\n"}
    assert_refused(config, f"{TAGS}.team", "the value must be 0-256 characters", tmp_path, capsys)


def test_a_reused_subnetwork_in_the_clusters_region_plans() -> None:
    """The region check reads the self link: a subnetwork of the cluster's region, in another
    (Shared VPC host) project, is accepted."""
    config = gke_config()
    config[CLUSTER]["network"] = {
        "networkId": "https://www.googleapis.com/compute/v1/projects/host-project/global/networks/shared",
        "subnetworkId": "projects/host-project/regions/us-central1/subnetworks/gke",
        "podsRangeName": "pods",
        "servicesRangeName": "svc",
    }
    assert _refusal_keys(config) == set()


# --- the stack file read as the Pulumi CLI reads it ---------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "fragment"),
    [
        pytest.param(
            "    name: eks-dev\n",
            "    name: eks-dev\n    name: eks-prod\n",
            "mapping key 'name' already defined at line",
            id="key-written-twice",  # yaml.v3 refuses it; PyYAML would keep the last silently
        ),
        pytest.param(
            "  aws:region: us-west-2\n",
            "  aws:region: us-west-2\n  aws:region: us-east-1\n",
            "mapping key 'aws:region' already defined at line",
            id="top-level-key-written-twice",
        ),
        pytest.param(
            "    name: eks-dev\n",
            "    name: !!timestamp 2026-01-01\n",
            "gpukit:cluster.name: a YAML date",
            id="explicit-timestamp",
        ),
        pytest.param(
            "    name: eks-dev\n",
            "    name: eks-dev\n    tags: !!set {team, ml}\n",
            "gpukit:cluster.tags: a YAML set",
            id="explicit-set",
        ),
    ],
)
def test_a_stack_file_pulumi_would_not_read_is_refused(
    old: str, new: str, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (Path(__file__).parents[2] / "stacks" / "Pulumi.eks-dev.yaml").read_text()
    assert old in text
    path = tmp_path / "Pulumi.bad.yaml"
    path.write_text(text.replace(old, new, 1))
    code = main(["plan", "--config", str(path)])
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert "Traceback" not in out + err
    assert fragment in err, err


def test_a_binary_value_reads_as_the_text_it_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """yaml.v3 decodes `!!binary` into a string; the plan does the same (it crashed before)."""
    text = (Path(__file__).parents[2] / "stacks" / "Pulumi.eks-dev.yaml").read_text()
    path = tmp_path / "Pulumi.binary.yaml"
    path.write_text(text.replace("    name: eks-dev\n", "    name: !!binary ZWtzLWRldg==\n", 1))  # "eks-dev"
    code = main(["plan", "--config", str(path)])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "stack binary (eks, us-west-2" in out and "eks-dev-eks" in out, out


# --- EKS zones the plan can only judge through its fakes ----------------------------------------------


def test_eks_gpu_pools_plan_in_a_region_without_a_sourced_az_id_prefix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """il-central-1 is one of gpukit's regions with no AZ ID prefix row (offerings.py): its pinned
    zones are judged at `pulumi up` by EC2, so the plan must not refuse them (it did: the fake account
    had made-up zones there)."""
    config = eks_config()
    config["aws:region"] = "il-central-1"
    config[POOLS][1]["zones"] = ["ilc1-az1", "ilc1-az2"]
    path = tmp_path / "Pulumi.il.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    code = main(["plan", "--config", str(path)])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "unit-l4-ilc1-az1" in out and "unit-l4-ilc1-az2" in out, out


def test_a_pinned_zone_the_run_refuses_exits_2_naming_the_key_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """usw2-az9 has the shape of an AZ ID of us-west-2, so only the run can refuse it (the EC2
    offerings check, before anything is created); `gpukit plan` reports that as bad input."""
    config = eks_config()
    config[POOLS][1]["zones"] = ["usw2-az1", "usw2-az9"]
    err = plan_stderr(config, tmp_path, capsys)
    assert "`pulumi up` would stop on" in err, err
    assert f"{POOLS}[1].zones: usw2-az9 does not offer g6.xlarge" in err, err

"""Bad GKE stack configs: each is refused with exit 2, names the exact key to edit, and builds nothing.

Every case starts from the `config` of stacks/Pulumi.gke-dev.yaml (a valid GKE config; a fresh deep
copy per case), breaks one thing, and is checked like the EKS suite in test_bad_configs.py: through
`gpukit plan --config` (exit status, the message a user reads, no traceback) and through
`gpukit.program.build` under the mock engine (ConfigError raised, zero resources registered).
A few cases start from harness.eks_config() to check that GKE-only keys are refused on EKS.
"""

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from gpukit.cli import EXIT_OK, main
from harness import eks_config, example_config
from tests.program.test_bad_configs import (
    CLUSTER,
    POOLS,
    Config,
    Mutation,
    assert_refused,
    broken,
    cluster_set,
    network,
    operator_set,
    plan_stderr,
    pool_set,
    steps,
    top_drop,
    top_set,
)

OPERATOR = "gpukit:gpuOperator"
NETWORK_ID = "projects/acme-ml-dev/global/networks/shared"
SUBNETWORK_ID = "projects/acme-ml-dev/regions/us-central1/subnetworks/gke"


def gke_config() -> Config:
    return example_config("gke-dev")


# --- mutations: each breaks one thing in a fresh config --------------------------------------------


# (case id, base config, mutation, exact key, fragment of its message)
# A complete reuse of an existing network, which is valid on its own.
REUSE: dict[str, str] = {
    "networkId": NETWORK_ID,
    "subnetworkId": SUBNETWORK_ID,
    "podsRangeName": "gke-pods",
    "servicesRangeName": "gke-services",
}

CASES: list[tuple[str, Callable[[], Config], Mutation, str, str]] = [
    # GPU sharing: GKE's own (driver: preinstalled) and the Operator's (driver: operator)
    (
        "gke-time-sharing-over-48-clients",
        gke_config,
        pool_set(1, sharing={"mode": "time-slicing", "replicas": 64}),
        f"{POOLS}[1].sharing.replicas",
        "must be 2 to 48 pods per GPU; got 64",
    ),
    (
        "gke-mig-mixed-strategy",
        gke_config,
        pool_set(
            1,
            instanceType="a3-highgpu-8g",
            sharing={"mode": "mig", "mig": {"profile": "1g.10gb", "strategy": "mixed"}},
        ),
        f"{POOLS}[1].sharing.mig.strategy",
        "GKE advertises MIG partitions as nvidia.com/gpu",
    ),
    (
        "gke-mig-on-a-model-gke-does-not-partition",
        gke_config,
        pool_set(
            1,
            instanceType="g4-standard-48",
            zones=["us-central1-b"],
            sharing={"mode": "mig", "mig": {"profile": "1g.24gb"}},
        ),
        f"{POOLS}[1].sharing.mode",
        "GKE partitions A100-40GB, A100-80GB, H100, H200, B200 GPUs with its own driver; "
        "this pool has RTX-PRO-6000",
    ),
    (
        "gke-mig-layout",
        gke_config,
        pool_set(
            1,
            instanceType="a3-highgpu-8g",
            sharing={"mode": "mig", "mig": {"layout": {"3g.40gb": 2}}},
        ),
        f"{POOLS}[1].sharing.mig.layout",
        "GKE cuts a node pool's GPUs into one partition size",
    ),
    (
        "gke-mig-on-l4",
        gke_config,
        pool_set(1, sharing={"mode": "mig", "mig": {"profile": "1g.10gb"}}),
        f"{POOLS}[1].sharing.mode",
        "mig needs a MIG-capable GPU",
    ),
    # project and region
    (
        "missing-gcp-project",
        gke_config,
        top_drop("gcp:project"),
        "gcp:project",
        "required for platform gke: the project to build in",
    ),
    (
        "gcp-project-malformed",
        gke_config,
        top_set("gcp:project", "Acme_ML"),
        "gcp:project",
        "must be a project id (6-30 lowercase letters, digits, '-'); got 'Acme_ML'",
    ),
    (
        "missing-gcp-region",
        gke_config,
        top_drop("gcp:region"),
        "gcp:region",
        "required for platform gke: the region to build in, e.g. us-central1",
    ),
    (
        "gcp-region-in-aws-form",
        gke_config,
        top_set("gcp:region", "us-west-2"),
        "gcp:region",
        "must be a region name like us-central1; got 'us-west-2'",
    ),
    # GPU placement: regions and zones
    (
        "accelerator-not-offered-in-region",
        gke_config,
        steps(top_set("gcp:region", "asia-southeast1"), pool_set(1, instanceType="a3-ultragpu-8g")),
        f"{POOLS}[1].instanceType",
        "a3-ultragpu-8g (nvidia-h200-141gb) is not offered in asia-southeast1",
    ),
    (
        "pool-zone-outside-region",
        gke_config,
        pool_set(1, zones=["us-east1-b"]),
        f"{POOLS}[1].zones[0]",
        "must be a zone of the cluster's region us-central1; got 'us-east1-b'",
    ),
    (
        "pool-zone-without-the-gpu",
        gke_config,
        pool_set(1, zones=["us-central1-a", "us-central1-f"]),
        f"{POOLS}[1].zones[1]",
        "us-central1-f does not offer nvidia-l4",
    ),
    (
        "g4-pool-without-zones",
        gke_config,
        pool_set(1, instanceType="g4-standard-48"),
        f"{POOLS}[1].zones",
        "no zone list for nvidia-rtx-pro-6000 in us-central1",
    ),
    (
        "zonal-cluster-zone-outside-region",
        gke_config,
        cluster_set(zone="us-east1-b"),
        f"{CLUSTER}.zone",
        "must be a zone of region us-central1 (us-central1-a ...); got 'us-east1-b'",
    ),
    # GPUs of a pool
    (
        "gpu-count-does-not-match-machine",
        gke_config,
        pool_set(1, gpu={"model": "L4", "count": 2}),
        f"{POOLS}[1].gpu",
        "g2-standard-8 comes with 1x L4; got 2x L4",
    ),
    (
        "n1-attached-gpu-unsupported-model",
        gke_config,
        pool_set(1, instanceType="n1-standard-8", gpu={"model": "L4", "count": 1}),
        f"{POOLS}[1].gpu.model",
        "n1-standard-8 takes attached T4 GPUs; got 'L4'",
    ),
    (
        "n1-attached-gpu-count-three",
        gke_config,
        pool_set(1, instanceType="n1-standard-8", gpu={"model": "T4", "count": 3}),
        f"{POOLS}[1].gpu.count",
        "T4 attaches in counts of 1, 2, 4; got 3",
    ),
    (
        "gpu-on-cpu-machine",
        gke_config,
        pool_set(1, instanceType="e2-standard-4", gpu={"model": "T4", "count": 1}),
        f"{POOLS}[1].gpu",
        "e2-standard-4 has no GPUs and takes none attached; remove the key",
    ),
    # release channel
    (
        "kubernetes-version-above-regular-channel",
        gke_config,
        cluster_set(kubernetesVersion="1.37", releaseChannel="regular"),
        f"{CLUSTER}.kubernetesVersion",
        "must be one of 1.34, 1.35, 1.36 in GKE's regular channel; got '1.37'",
    ),
    (
        "kubernetes-version-above-stable-channel",
        gke_config,
        cluster_set(kubernetesVersion="1.36", releaseChannel="stable"),
        f"{CLUSTER}.kubernetesVersion",
        "must be one of 1.34, 1.35 in GKE's stable channel; got '1.36'",
    ),
    # keys of the other platform
    (
        "eks-only-node-image-on-gke",
        gke_config,
        pool_set(1, nodeImage="al2023"),
        f"{POOLS}[1].nodeImage",
        "only for platform eks; this cluster is gke",
    ),
    (
        "eks-only-admin-principals-on-gke",
        gke_config,
        cluster_set(adminPrincipalArns=["arn:aws:iam::123456789012:role/admin"]),
        f"{CLUSTER}.adminPrincipalArns",
        "only for platform eks and k3s on aws; this cluster is gke",
    ),
    (
        "gke-only-release-channel-on-eks",
        eks_config,
        cluster_set(releaseChannel="regular"),
        f"{CLUSTER}.releaseChannel",
        "only for platform gke; this cluster is eks",
    ),
    (
        # EKS takes zones too, as AZ IDs: a GKE-style zone name is refused with the form it needs.
        "gke-style-pool-zones-on-eks",
        eks_config,
        pool_set(1, zones=["us-west-2a"]),
        f"{POOLS}[1].zones[0]",
        "must be an AZ ID like usw2-az1",
    ),
    # GPU Operator
    (
        "gke-driver-version-with-operator-driver",
        gke_config,
        operator_set(driver="operator", gkeDriverVersion="latest"),
        f"{OPERATOR}.gkeDriverVersion",
        "only with driver: preinstalled",
    ),
    (
        "operator-driver-on-gvnic-only-a3",
        lambda: example_config("gke-train"),
        top_set(OPERATOR, {"chartVersion": "v26.7.0", "driver": "operator"}),
        f"{OPERATOR}.driver",
        "but a3-highgpu-8g (pool 'h100', gpukit:nodePools[2]) networks through gVNIC only, which GKE "
        "supports on Container-Optimized OS nodes only; use 'preinstalled'",
    ),
    # network
    (
        "network-id-without-subnetwork",
        gke_config,
        network(networkId=NETWORK_ID),
        f"{CLUSTER}.network.subnetworkId",
        "required when reusing a network (networkId)",
    ),
    (
        "network-id-without-range-names",
        gke_config,
        network(networkId=NETWORK_ID, subnetworkId=SUBNETWORK_ID),
        f"{CLUSTER}.network.podsRangeName",
        "required when reusing a network (networkId)",
    ),
    (
        "network-cidr-and-network-id",
        gke_config,
        network(
            cidr="10.60.0.0/16",
            networkId=NETWORK_ID,
            subnetworkId=SUBNETWORK_ID,
            podsRangeName="pods",
            servicesRangeName="services",
        ),
        f"{CLUSTER}.network",
        "set either cidr (new network) or networkId + subnetworkId (reuse), not both",
    ),
    (
        "pod-range-too-small-for-max-nodes",
        gke_config,
        steps(network(cidr="10.60.0.0/20"), pool_set(0, maxNodes=3), pool_set(1, maxNodes=6)),
        f"{CLUSTER}.network.cidr",
        "the pod range 10.60.8.0/21 holds 8 nodes (a /24 each) but the pools' maxNodes add up to 9",
    ),
    (
        "pods-cidr-overlaps-nodes-range",
        gke_config,
        network(cidr="10.60.0.0/16", podsCidr="10.60.0.0/17"),
        f"{CLUSTER}.network",
        "the nodes range 10.60.0.0/18 and the pods range 10.60.0.0/17 overlap",
    ),
    (
        "pods-cidr-with-network-id",
        gke_config,
        network(**REUSE, podsCidr="10.100.0.0/16"),
        f"{CLUSTER}.network.podsCidr",
        "only for a new network (cidr)",
    ),
    (
        "malformed-services-cidr-with-network-id",
        gke_config,
        network(**REUSE, servicesCidr="nonsense"),
        f"{CLUSTER}.network.servicesCidr",
        "only for a new network (cidr)",
    ),
]

# --- issue 11: tags as Google Cloud labels, compact placement --------------------------------------

LABEL_KEY_SHAPE = "must be a Google Cloud label key: 1-63 characters, a lowercase letter first"
LABEL_VALUE_SHAPE = "must be a Google Cloud label value: at most 63 lowercase letters, digits, '_' or '-'"
TAGS = f"{CLUSTER}.tags"
NOT_COMPACT = "machines compactly; {} is none of them: remove the key"
ONE_ZONE = "compact placement keeps a pool in one zone: pin it with zones: [<one zone>]"


def k3s_gcp_config() -> Config:
    return example_config("k3s-gcp")


CASES += [
    # tags become labels on GKE: what Google refuses as a label is refused here, naming the tag
    ("tag-key-uppercase", gke_config, cluster_set(tags={"Team": "ml"}), f"{TAGS}.Team", LABEL_KEY_SHAPE),
    (
        "tag-key-starts-with-digit",
        gke_config,
        cluster_set(tags={"1team": "ml"}),
        f"{TAGS}.1team",
        LABEL_KEY_SHAPE,
    ),
    (
        "tag-key-with-dot",
        gke_config,
        cluster_set(tags={"team.name": "ml"}),
        f"{TAGS}.team.name",
        LABEL_KEY_SHAPE,
    ),
    (
        "tag-key-aws-style-colon",
        gke_config,
        cluster_set(tags={"cost:center": "x"}),
        f"{TAGS}.cost:center",
        LABEL_KEY_SHAPE,
    ),
    (
        "tag-key-64-characters",
        gke_config,
        cluster_set(tags={"k" * 64: "v"}),
        f"{TAGS}.{'k' * 64}",
        LABEL_KEY_SHAPE,
    ),
    ("tag-value-uppercase", gke_config, cluster_set(tags={"team": "ML"}), f"{TAGS}.team", LABEL_VALUE_SHAPE),
    (
        "tag-value-with-space",
        gke_config,
        cluster_set(tags={"owner": "jane doe"}),
        f"{TAGS}.owner",
        LABEL_VALUE_SHAPE,
    ),
    (
        # A folded YAML scalar (`team: >` ...) ends in a newline.
        "tag-value-trailing-newline",
        gke_config,
        cluster_set(tags={"team": "ml\n"}),
        f"{TAGS}.team",
        LABEL_VALUE_SHAPE,
    ),
    (
        "tag-value-email",
        gke_config,
        cluster_set(tags={"owner": "jane@acme.com"}),
        f"{TAGS}.owner",
        LABEL_VALUE_SHAPE,
    ),
    (
        "tag-value-64-characters",
        gke_config,
        cluster_set(tags={"team": "v" * 64}),
        f"{TAGS}.team",
        LABEL_VALUE_SHAPE,
    ),
    (
        "tag-replaces-gpukit-cluster-label",
        gke_config,
        cluster_set(tags={"gpukit-cluster": "other"}),
        f"{TAGS}.gpukit-cluster",
        "'gpukit-cluster' is a label gpukit sets itself; use another key",
    ),
    (
        "tag-replaces-managed-by-label",
        gke_config,
        cluster_set(tags={"managed-by": "terraform"}),
        f"{TAGS}.managed-by",
        "'managed-by' is a label gpukit sets itself",
    ),
    (
        "too-many-tags",
        gke_config,
        cluster_set(tags={f"t{i}": "x" for i in range(61)}),
        TAGS,
        "at most 59 tags on Google Cloud",
    ),
    (
        "tags-not-a-map",
        gke_config,
        cluster_set(tags="team=ml"),
        TAGS,
        "must be a mapping of strings to strings",
    ),
    (
        "tag-key-uppercase-on-k3s-gcp",
        k3s_gcp_config,
        cluster_set(tags={"Team": "ml"}),
        f"{TAGS}.Team",
        LABEL_KEY_SHAPE,
    ),
    # queued provisioning (flex-start): on-demand, from zero, placed by GKE
    (
        "queued-spot-pool",
        gke_config,
        steps(top_set("gpukit:batch", {"enabled": True}), pool_set(1, provisioning="queued")),
        f"{POOLS}[1].capacity",
        "a pool with `provisioning: queued` gets flex-start VMs, which cannot be spot",
    ),
    (
        "queued-pool-with-min-nodes",
        gke_config,
        steps(
            top_set("gpukit:batch", {"enabled": True}),
            pool_set(1, provisioning="queued", capacity="on-demand", minNodes=1),
        ),
        f"{POOLS}[1].minNodes",
        "must be 0 with `provisioning: queued`",
    ),
    (
        "queued-compact-pool",
        gke_config,
        steps(
            top_set("gpukit:batch", {"enabled": True}),
            pool_set(
                1, provisioning="queued", capacity="on-demand", compactPlacement=True, zones=["us-central1-a"]
            ),
        ),
        f"{POOLS}[1].compactPlacement",
        "compact placement cannot be combined with `provisioning: queued`",
    ),
    # compact placement: supported machines only, one zone only, GKE only
    (
        "compact-placement-on-e2-system-pool",
        gke_config,
        pool_set(0, compactPlacement=True, zones=["us-central1-a"]),
        f"{POOLS}[0].compactPlacement",
        NOT_COMPACT.format("e2-standard-4"),
    ),
    (
        "compact-placement-on-h200",
        gke_config,
        pool_set(1, instanceType="a3-ultragpu-8g", zones=["us-central1-b"], compactPlacement=True),
        f"{POOLS}[1].compactPlacement",
        NOT_COMPACT.format("a3-ultragpu-8g"),
    ),
    (
        "compact-placement-on-b200",
        gke_config,
        pool_set(1, instanceType="a4-highgpu-8g", zones=["us-central1-b"], compactPlacement=True),
        f"{POOLS}[1].compactPlacement",
        NOT_COMPACT.format("a4-highgpu-8g"),
    ),
    (
        "compact-placement-on-n1-with-t4",
        gke_config,
        pool_set(
            1,
            instanceType="n1-standard-8",
            gpu={"model": "T4", "count": 1},
            zones=["us-central1-a"],
            compactPlacement=True,
        ),
        f"{POOLS}[1].compactPlacement",
        NOT_COMPACT.format("n1-standard-8"),
    ),
    (
        "compact-placement-on-g4",
        gke_config,
        pool_set(1, instanceType="g4-standard-48", zones=["us-central1-a"], compactPlacement=True),
        f"{POOLS}[1].compactPlacement",
        NOT_COMPACT.format("g4-standard-48"),
    ),
    (
        "compact-placement-over-every-l4-zone",
        gke_config,
        pool_set(1, compactPlacement=True),
        f"{POOLS}[1].compactPlacement",
        f"{ONE_ZONE} (it would use us-central1-a, us-central1-b, us-central1-c)",
    ),
    (
        "compact-placement-over-two-zones",
        gke_config,
        pool_set(1, compactPlacement=True, zones=["us-central1-a", "us-central1-b"]),
        f"{POOLS}[1].compactPlacement",
        f"{ONE_ZONE} (it would use us-central1-a, us-central1-b)",
    ),
    (
        "compact-placement-cpu-pool-of-a-regional-cluster",
        gke_config,
        steps(pool_set(0, instanceType="n2-standard-4", compactPlacement=True)),
        f"{POOLS}[0].compactPlacement",
        f"{ONE_ZONE} (it would use every zone of the regional cluster in us-central1)",
    ),
    (
        "compact-placement-not-a-bool",
        gke_config,
        pool_set(1, compactPlacement="yes"),
        f"{POOLS}[1].compactPlacement",
        "must be true or false, got 'yes'",
    ),
    (
        "compact-placement-on-k3s-gcp",
        k3s_gcp_config,
        pool_set(1, compactPlacement=True),
        f"{POOLS}[1].compactPlacement",
        "only for platform gke; this cluster is k3s on gcp",
    ),
    (
        "compact-placement-on-eks",
        eks_config,
        pool_set(1, compactPlacement=True),
        f"{POOLS}[1].compactPlacement",
        "only for platform gke; this cluster is eks",
    ),
]


REUSE = {
    "networkId": NETWORK_ID,
    "subnetworkId": SUBNETWORK_ID,
    "podsRangeName": "pods",
    "servicesRangeName": "services",
}


@pytest.mark.parametrize(
    ("make", "key", "fragment"),
    [
        pytest.param(broken(base, mutation), key, fragment, id=case)
        for case, base, mutation, key, fragment in CASES
    ],
)
def test_bad_gke_config_is_refused(
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
    assert len(CASES) >= 14 + 20  # issue 11 added tags-as-labels and compact-placement cases


@pytest.mark.parametrize(
    "mutation",
    [
        pytest.param(top_drop("gcp:region"), id="missing"),
        pytest.param(top_set("gcp:region", "us-west-2"), id="aws-form"),
        pytest.param(top_set("gcp:region", "us-central1-a"), id="zone-form"),
    ],
)
def test_bad_region_is_the_only_problem_reported(
    mutation: Mutation, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The GKE base config is fine apart from its region: only gcp:region is named."""
    config = gke_config()
    mutation(config)
    stderr = plan_stderr(config, tmp_path, capsys)
    named = [line.strip() for line in stderr.splitlines()[1:] if line.strip()]
    assert named and all(line.startswith("gcp:region: ") for line in named), stderr


@pytest.mark.parametrize("stack", ["gke-dev", "gke-train"])
def test_base_configs_plan(stack: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The cases fail because of their one change: the stack configs they start from plan cleanly."""
    path = tmp_path / "Pulumi.good.yaml"
    path.write_text(yaml.safe_dump({"config": example_config(stack)}))
    code = main(["plan", "--config", str(path)])
    _, err = capsys.readouterr()
    assert code == EXIT_OK, err


def test_n1_pool_with_two_attached_t4s_plans(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = example_config("gke-train")
    config[POOLS].append(
        {
            "name": "t4",
            "instanceType": "n1-standard-8",
            "minNodes": 0,
            "maxNodes": 2,
            "gpu": {"model": "T4", "count": 2},
        }
    )
    path = tmp_path / "Pulumi.t4.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    out = tmp_path / "out"

    code = main(["plan", "--config", str(path), "--out", str(out)])
    _, err = capsys.readouterr()
    assert code == EXIT_OK, err
    assert "Traceback" not in err

    doc = json.loads((out / "plan.json").read_text())
    node_pools = {
        r["inputs"]["name"]: r["inputs"]
        for r in doc["resources"]
        if r["type"] == "gcp:container/nodePool:NodePool"
    }
    (accelerator,) = node_pools["t4"]["nodeConfig"]["guestAccelerators"]
    assert accelerator["type"] == "nvidia-tesla-t4"
    assert accelerator["count"] == 2
    assert node_pools["t4"]["nodeConfig"]["machineType"] == "n1-standard-8"

    (t4,) = [p for p in doc["pools"] if p["name"] == "t4"]
    assert t4["pricePerNodeHour"] == pytest.approx(0.38 + 2 * 0.35)
    assert t4["gpusPerNode"] == 2


def _problems(config: Config) -> list[str]:
    from gpukit.components.errors import ConfigError
    from gpukit.components.resolve.config import resolve_config

    with pytest.raises(ConfigError) as raised:
        resolve_config(config)
    return [str(p) for p in raised.value.problems]


def test_a_missing_project_is_one_problem() -> None:
    config = gke_config()
    del config["gcp:project"]
    assert _problems(config) == [
        "gcp:project: required for platform gke: the project to build in, e.g. my-project "
        "(pulumi config set gcp:project my-project)"
    ]


def test_a_wrong_provider_still_reads_the_platforms_own_keys() -> None:
    """platform gke implies gcp: a stray provider is one problem, and gcp's keys are still checked."""
    config = gke_config()
    config[CLUSTER]["provider"] = "aws"
    del config["gcp:region"]
    assert _problems(config) == [
        "gcp:region: required for platform gke: the region to build in, e.g. us-central1 "
        "(pulumi config set gcp:region us-central1)",
        "gpukit:cluster.provider: platform gke implies provider gcp; remove the key (it is for platform "
        "k3s), got 'aws'",
    ]


def test_tags_and_compact_placement_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The valid forms of the keys the cases above break: labels from tags, a compact one-zone pool."""
    config = example_config("gke-train")
    config[CLUSTER]["tags"] = {"team": "ml-infra", "cost_center": "cc-42"}
    config[POOLS][2].update(zones=["us-central1-a"], compactPlacement=True, provisioning="standard")
    path = tmp_path / "Pulumi.compact.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    out = tmp_path / "out"

    code = main(["plan", "--config", str(path), "--out", str(out)])
    _, err = capsys.readouterr()
    assert code == EXIT_OK, err

    doc = json.loads((out / "plan.json").read_text())
    by_type = {r["type"]: r for r in doc["resources"]}
    labels = json.loads(by_type["pulumi:providers:gcp"]["inputs"]["defaultLabels"])
    assert labels == {
        "team": "ml-infra",
        "cost_center": "cc-42",
        "gpukit-cluster": "gke-train",
        "managed-by": "gpukit",
    }
    pools = {
        r["inputs"]["name"]: r["inputs"]
        for r in doc["resources"]
        if r["type"] == "gcp:container/nodePool:NodePool"
    }
    assert pools["h100"]["placementPolicy"] == {"type": "COMPACT"}
    assert pools["h100"]["nodeLocations"] == ["us-central1-a"]
    assert pools["h100"]["nodeConfig"]["resourceLabels"] == labels
    assert "placementPolicy" not in pools["l4"]

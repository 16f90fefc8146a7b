"""gpukit as a library in someone's infra repo: the public names, plain-string enums, and bad input
reported with exactly the lines a stack file with the same mistake gets."""

import copy
import json
from typing import Any

import pytest

import gpukit.components as public
import gpukit.plan
import gpukit.providers
from gpukit.components import ConfigError, GpuCluster
from gpukit.components.resolve.config import resolve_config
from harness import eks_config, example_config, record

# The valid EKS stack of harness.eks_config, as a library user writes it: snake_case, plain strings.
LIBRARY_ARGS: dict[str, Any] = {
    "cluster": {
        "name": "unit",
        "platform": "eks",
        "region": "us-west-2",
        "kubernetes_version": "1.35",
        "network": {"cidr": "10.40.0.0/16"},
        "api_access_cidrs": ["203.0.113.0/24"],
        "tags": {"cost_center": "ml-42"},
        "autoscaler": "cluster-autoscaler",
    },
    "node_pools": [
        {"name": "system", "instance_type": "m7i.large", "min_nodes": 1, "max_nodes": 3},
        {
            "name": "l4",
            "instance_type": "g6.xlarge",
            "min_nodes": 0,
            "max_nodes": 8,
            "capacity": "spot",
            "zones": ["usw2-az1", "usw2-az2"],
        },
    ],
    "gpu_operator": {"chart_version": "v26.7.0", "driver": "preinstalled"},
    "workloads": {"cuda_version": "12.8"},
}


def library_args(**changes: Any) -> dict[str, Any]:
    args = copy.deepcopy(LIBRARY_ARGS)
    args.update(changes)
    return args


def library_problems(args: Any) -> list[str]:
    with pytest.raises(ConfigError) as raised:
        record(lambda: GpuCluster("lib", args))
    return [str(p) for p in raised.value.problems]


def stack_problems(config: dict[str, Any]) -> list[str]:
    with pytest.raises(ConfigError) as raised:
        resolve_config(config)
    return [str(p) for p in raised.value.problems]


@pytest.mark.parametrize("package", [public, gpukit.providers, gpukit.plan], ids=lambda m: m.__name__)
def test_every_public_name_is_exported(package: Any) -> None:
    for name in package.__all__:
        assert getattr(package, name) is not None, f"{package.__name__}.{name}"


def test_plain_string_enums_build_the_cluster() -> None:
    rec = record(lambda: GpuCluster("lib", LIBRARY_ARGS))  # type: ignore[arg-type]
    groups = {r.inputs["nodeGroupNamePrefix"]: r.inputs for r in rec.of_type("aws:eks/nodeGroup:NodeGroup")}
    assert groups["l4-usw2-az1-"]["capacityType"] == "SPOT"
    assert rec.one("pulumi:providers:aws").inputs["region"] == "us-west-2"
    # The user's own tag keys stay as written (they are not config keys to camel-case); provider
    # inputs reach the engine JSON-encoded.
    default_tags = json.loads(rec.one("pulumi:providers:aws").inputs["defaultTags"])
    assert default_tags["tags"]["cost_center"] == "ml-42"


def test_args_and_enum_members_mean_the_same() -> None:
    from gpukit.components import Capacity, Platform

    as_enums = library_args()
    as_enums["cluster"]["platform"] = Platform.EKS
    as_enums["node_pools"][1]["capacity"] = Capacity.SPOT
    plain = record(lambda: GpuCluster("lib", LIBRARY_ARGS))  # type: ignore[arg-type]
    typed = record(lambda: GpuCluster("lib", as_enums))  # type: ignore[arg-type]

    def by_urn(rec: Any) -> list[tuple[str, dict[str, Any]]]:
        return sorted((r.urn, r.inputs) for r in rec.resources)

    assert by_urn(plain) == by_urn(typed)


def _stack_with(mutate: Any) -> dict[str, Any]:
    config = eks_config()
    mutate(config)
    return config


@pytest.mark.parametrize(
    ("library", "stack"),
    [
        (  # a mistyped pool key
            lambda a: a["node_pools"][1].update(min_node=0),
            lambda c: c["gpukit:nodePools"][1].update(minNode=0),
        ),
        (  # a value outside a closed set
            lambda a: a["node_pools"][1].update(capacity="spott"),
            lambda c: c["gpukit:nodePools"][1].update(capacity="spott"),
        ),
        (  # a wrong type deep down
            lambda a: a["cluster"]["network"].update(zone_count="three"),
            lambda c: c["gpukit:cluster"]["network"].update(zoneCount="three"),
        ),
        (  # a pool that is not a mapping
            lambda a: a["node_pools"].append("gpu-pool"),
            lambda c: c["gpukit:nodePools"].append("gpu-pool"),
        ),
        (  # a key of another platform, and a missing required one
            lambda a: (a["cluster"].update(release_channel="rapid"), a["cluster"].pop("network")),
            lambda c: (
                c["gpukit:cluster"].update(releaseChannel="rapid"),
                c["gpukit:cluster"].pop("network"),
            ),
        ),
        (  # a bad region
            lambda a: a["cluster"].update(region="mars-1"),
            lambda c: c.update({"aws:region": "mars-1"}),
        ),
        (  # an unknown platform
            lambda a: a["cluster"].update(platform="aks"),
            lambda c: c["gpukit:cluster"].update(platform="aks"),
        ),
    ],
    ids=[
        "mistyped-key",
        "closed-set",
        "wrong-type",
        "pool-not-mapping",
        "platform-keys",
        "region",
        "platform",
    ],
)
def test_a_wrong_key_or_value_gives_the_stack_file_lines(library: Any, stack: Any) -> None:
    args = library_args()
    library(args)
    expected = stack_problems(_stack_with(stack))
    assert expected, "the stack-file form of the mistake is refused"
    assert library_problems(args) == expected


def test_a_key_in_two_spellings_is_refused_not_resolved() -> None:
    args = library_args()
    args["node_pools"][1]["minNodes"] = 2  # beside min_nodes: 0
    assert library_problems(args) == [
        "gpukit:nodePools[1].minNodes: given twice, as 'min_nodes' and 'minNodes': keep one"
    ]


def test_args_that_are_not_a_mapping_are_a_config_error() -> None:
    assert library_problems(["not", "a", "mapping"]) == [
        "gpukit: GpuCluster args must be a mapping; got list"
    ]


def test_gpu_operator_defaults_like_the_stack_file() -> None:
    args = library_args()
    del args["gpu_operator"]
    rec = record(lambda: GpuCluster("lib", args))  # type: ignore[arg-type]
    assert rec.one("kubernetes:helm.sh/v3:Release", "lib-gpu-operator-release").inputs["version"] == "v26.7.0"


def _own_bucket_args(bucket: Any, **volume: Any) -> dict[str, Any]:
    shared = {"name": "weights", "kind": "s3", "role": "model-cache", "size_gb": 100, "bucket": bucket}
    return library_args(storage={"shared": [shared | volume]})


def test_an_eks_bucket_from_the_users_own_program_is_mounted_and_granted() -> None:
    """storage.shared[].bucket takes the user's own bucket resource's name as an Output: the driver's
    policy and the PersistentVolume name the bucket once it exists (issue 29, point 23)."""
    import pulumi_aws as aws

    def program() -> None:
        own = aws.s3.Bucket("own-weights", bucket="team-weights")
        GpuCluster("lib", _own_bucket_args(own.bucket))  # type: ignore[arg-type]

    rec = record(program)
    policy = json.loads(rec.one("aws:iam/rolePolicy:RolePolicy", "lib-shared-s3-csi-policy").inputs["policy"])
    resources = sorted(r for s in policy["Statement"] for r in s["Resource"])
    assert resources == ["arn:aws:s3:::team-weights", "arn:aws:s3:::team-weights/*"]
    pv = rec.one("kubernetes:core/v1:PersistentVolume", "lib-shared-weights-pv").inputs["spec"]
    assert pv["csi"]["volumeAttributes"] == {"bucketName": "team-weights"}


def test_a_read_only_bucket_output_is_granted_read_only() -> None:
    import pulumi_aws as aws

    def program() -> None:
        own = aws.s3.Bucket("own-data", bucket="team-data")
        GpuCluster("lib", _own_bucket_args(own.bucket, role="datasets"))  # type: ignore[arg-type]

    rec = record(program)
    policy = json.loads(rec.one("aws:iam/rolePolicy:RolePolicy", "lib-shared-s3-csi-policy").inputs["policy"])
    actions = {r: s["Action"] for s in policy["Statement"] for r in s["Resource"]}
    assert actions == {
        "arn:aws:s3:::team-data": "s3:ListBucket",
        "arn:aws:s3:::team-data/*": ["s3:GetObject"],
    }


def test_a_gcs_bucket_from_the_users_own_program_is_mounted_and_granted() -> None:
    import pulumi_gcp as gcp

    config = example_config("gke-dev")
    args: dict[str, Any] = {
        key.removeprefix("gpukit:"): value for key, value in config.items() if "gpukit:" in key
    }
    args["cluster"] |= {"region": config["gcp:region"], "project": config["gcp:project"]}

    def program() -> None:
        own = gcp.storage.Bucket("own-weights", name="team-weights", location="US")
        shared = {
            "name": "weights",
            "kind": "gcs-fuse",
            "role": "model-cache",
            "sizeGb": 100,
            "bucket": own.name,
        }
        GpuCluster("lib", args | {"storage": {"shared": [shared]}})  # type: ignore[arg-type]

    rec = record(program, region=config["gcp:region"], project=config["gcp:project"])
    grant = rec.one("gcp:storage/bucketIAMMember:BucketIAMMember").inputs
    assert (grant["bucket"], grant["role"]) == ("team-weights", "roles/storage.objectUser")
    pv = rec.one("kubernetes:core/v1:PersistentVolume").inputs["spec"]
    assert pv["csi"]["volumeHandle"] == "team-weights"


def test_only_the_keys_that_say_so_take_an_output() -> None:
    """A key whose value gpukit checks or names resources by stays plain: an Output there is the type
    problem a wrong type gets, naming the key."""
    import pulumi

    problems = library_problems(
        library_args(cluster=LIBRARY_ARGS["cluster"] | {"name": pulumi.Output.from_input("x")})
    )
    assert problems == [
        "gpukit:cluster.name: must be a string, got a pulumi.Output: gpukit checks this value, or names "
        "resources by it, before anything is created, so it must be plain (the keys that take an Output: "
        "docs/own-program.md)"
    ]
    problems = library_problems(_own_bucket_args(["team"]))
    assert problems == [
        "gpukit:storage.shared[0].bucket: must be a string (from Python: a string or a pulumi.Output), "
        "got ['team']"
    ]

"""The EKS shared-storage pieces that need no Pulumi: policies, Kubernetes objects, name rules."""

import json

import pytest

from gpukit.components.addons.storage.naming import VOLUME_NAME_MAX
from gpukit.components.name_rules import ResourceNameError
from gpukit.components.preflight import preflight
from gpukit.components.resolve.config import resolve_config
from gpukit.components.resolve.validation import CLUSTER_NAME_MAX
from gpukit.providers.aws.eks.shared_storage.facts import EFS_CREATION_TOKEN_MAX, EFS_CSI, FSX_CSI, S3_CSI
from gpukit.providers.aws.eks.shared_storage.manifests import (
    NO_PROVISIONER,
    efs_storage_class,
    example_claim,
    lustre_volume,
    s3_volume,
    static_storage_class,
)
from gpukit.providers.aws.eks.shared_storage.policies import (
    lustre_static_controller_policy,
    mountpoint_bucket_policy,
)
from gpukit.providers.aws.eks.shared_storage.validation import bucket_name_problem, validate_eks_storage
from gpukit.providers.aws.fakes import AwsFakes
from harness import eks_config


def test_mountpoint_policy_is_scoped_to_the_named_buckets() -> None:
    policy = json.loads(mountpoint_bucket_policy(["datasets-b", "datasets-a", "datasets-a"]))
    listing, objects = policy["Statement"]
    assert listing["Action"] == "s3:ListBucket"
    assert listing["Resource"] == ["arn:aws:s3:::datasets-a", "arn:aws:s3:::datasets-b"]
    assert objects["Resource"] == ["arn:aws:s3:::datasets-a/*", "arn:aws:s3:::datasets-b/*"]
    assert sorted(objects["Action"]) == [
        "s3:AbortMultipartUpload",
        "s3:DeleteObject",
        "s3:GetObject",
        "s3:PutObject",
    ]
    assert not any(r == "*" for s in policy["Statement"] for r in s["Resource"])


def test_read_only_buckets_get_no_write_or_delete() -> None:
    policy = json.loads(mountpoint_bucket_policy(["models"], read_only=["datasets", "models"]))
    listing, writes, reads = policy["Statement"]
    assert listing["Resource"] == ["arn:aws:s3:::datasets", "arn:aws:s3:::models"]
    assert writes["Resource"] == ["arn:aws:s3:::models/*"]  # also read-only elsewhere: one writer is enough
    assert reads == {
        "Sid": "MountpointReadObjects",
        "Effect": "Allow",
        "Action": ["s3:GetObject"],
        "Resource": ["arn:aws:s3:::datasets/*"],
    }
    (_, only) = json.loads(mountpoint_bucket_policy([], read_only=["d"]))["Statement"]
    assert only["Action"] == ["s3:GetObject"]


def test_lustre_controller_may_only_describe() -> None:
    (statement,) = json.loads(lustre_static_controller_policy())["Statement"]
    assert statement["Action"] == "fsx:DescribeFileSystems"


def test_efs_storage_class_hands_out_owner_only_access_points() -> None:
    sc = efs_storage_class("datasets", "fs-0123")
    assert sc["metadata"]["name"] == "shared-datasets"
    assert sc["provisioner"] == EFS_CSI.driver == "efs.csi.aws.com"
    assert sc["parameters"] == {
        "provisioningMode": "efs-ap",
        "fileSystemId": "fs-0123",
        "directoryPerms": "700",
    }
    # TLS is the driver's default; only an explicit "false" would turn it off.
    assert "encryptInTransit" not in sc["parameters"]
    assert sc["reclaim_policy"] == "Retain"


def test_static_volumes_bind_only_their_own_claim() -> None:
    sc = static_storage_class("checkpoints")
    assert sc["provisioner"] == NO_PROVISIONER
    pv = lustre_volume("checkpoints", 2400, "fs-0abc", "fs-0abc.fsx.us-west-2.amazonaws.com", "abcd1234")
    spec = pv["spec"]
    assert spec["storage_class_name"] == "shared-checkpoints"
    assert spec["claim_ref"] == {"namespace": "default", "name": "shared-checkpoints"}
    assert spec["csi"] == {
        "driver": FSX_CSI.driver,
        "volume_handle": "fs-0abc",
        "volume_attributes": {"dnsname": "fs-0abc.fsx.us-west-2.amazonaws.com", "mountname": "abcd1234"},
    }
    assert spec["access_modes"] == ["ReadWriteMany"]
    assert spec["capacity"] == {"storage": "2400Gi"}
    claim = example_claim("checkpoints", 2400)
    assert claim["spec"]["volume_name"] == pv["metadata"]["name"]
    assert claim["metadata"]["namespace"] == spec["claim_ref"]["namespace"]


def test_s3_volume_names_bucket_and_region() -> None:
    spec = s3_volume("datasets", 100, "my-datasets", "us-east-1")["spec"]
    assert spec["csi"]["driver"] == S3_CSI.driver == "s3.csi.aws.com"
    assert spec["csi"]["volume_attributes"] == {"bucketName": "my-datasets"}
    assert spec["mount_options"] == ["region us-east-1"]
    assert spec["access_modes"] == ["ReadWriteMany"]


def test_read_only_s3_volume_and_its_claim_are_read_only_many() -> None:
    spec = s3_volume("datasets", 100, "my-datasets", "us-east-1", read_only=True)["spec"]
    assert spec["mount_options"] == ["region us-east-1", "read-only"]
    assert spec["access_modes"] == ["ReadOnlyMany"]
    assert example_claim("datasets", 100, read_only=True)["spec"]["access_modes"] == ["ReadOnlyMany"]


@pytest.mark.parametrize(
    "name",
    [
        "ab",
        "a" * 64,
        "My-Bucket",
        "-bucket",
        "bucket-",
        "a..b",
        "192.168.5.4",
        "xn--abc",
        "sthree-x",
        "amzn-s3-demo-x",
        "data-s3alias",
        "data--ol-s3",
        "data.mrap",
        "data--x-s3",
        "under_score",
    ],
)
def test_bucket_names_s3_refuses(name: str) -> None:
    assert bucket_name_problem(name) is not None


@pytest.mark.parametrize("name", ["abc", "a" * 63, "my.datasets-2026", "1bucket"])
def test_bucket_names_s3_accepts(name: str) -> None:
    assert bucket_name_problem(name) is None


def test_eks_storage_problems_name_their_keys() -> None:
    problems = validate_eks_storage(
        "c", {"shared": [{"name": "ok", "kind": "s3", "bucket": "Bad_Bucket"}, {"name": "x", "kind": "efs"}]}
    )
    assert [p.key for p in problems] == ["gpukit:storage.shared[0].bucket"]
    assert "'Bad_Bucket'" in problems[0].message


def test_the_longest_efs_creation_token_fits() -> None:
    assert CLUSTER_NAME_MAX + 1 + VOLUME_NAME_MAX <= EFS_CREATION_TOKEN_MAX


def test_fakes_give_file_system_ids_and_names() -> None:
    fakes = AwsFakes({"aws:region": "us-west-2"})
    rid, out = fakes.resource("aws:fsx/lustreFileSystem:LustreFileSystem", "c-fs", {})
    assert rid.startswith("fs-") and len(rid) == 20
    assert out["dnsName"] == f"{rid}.fsx.us-west-2.amazonaws.com"
    assert len(out["mountName"]) == 8
    rid, out = fakes.resource("aws:efs/fileSystem:FileSystem", "c-efs", {"creationToken": "gpu-dev-datasets"})
    assert out["dnsName"] == f"{rid}.efs.us-west-2.amazonaws.com"
    mt, _ = fakes.resource("aws:efs/mountTarget:MountTarget", "c-mt", {"fileSystemId": rid})
    assert mt.startswith("fsmt-")


def test_fakes_refuse_an_efs_creation_token_over_64() -> None:
    with pytest.raises(ResourceNameError, match="64"):
        AwsFakes({}).resource("aws:efs/fileSystem:FileSystem", "c-efs", {"creationToken": "t" * 65})


def _lustre_stack(**volume: object) -> dict[str, object]:
    ckpt = {"name": "ckpt", "kind": "fsx-lustre", "role": "checkpoints", "sizeGb": 2400, **volume}
    config = eks_config(**{"gpukit:storage": {"shared": [ckpt]}})
    config["gpukit:nodePools"].append(  # type: ignore[attr-defined]
        {"name": "h100", "instanceType": "p5.48xlarge", "minNodes": 0, "maxNodes": 2, "zones": ["usw2-az3"]}
    )
    return config


def _storage_findings(config: dict[str, object]) -> list[tuple[str, str, str, str]]:
    return [
        (f.severity.value, f.key, f.message, f.fix)
        for f in preflight(resolve_config(config))
        if f.key.startswith("gpukit:storage") or "Lustre" in f.message
    ]


def test_an_unpinned_lustre_zone_is_a_warning_naming_the_key_that_pins_it() -> None:
    (warning, note) = _storage_findings(_lustre_stack())
    severity, key, message, fix = warning
    assert (severity, key) == ("warning", "gpukit:storage.shared[0].zone")
    assert "usw2-az3" in message and "replaces the file system" in message
    assert fix == "set `gpukit:storage.shared[0].zone: usw2-az3`"
    # The L4 pool runs in usw2-az1 and az2: its pods read the file system across zones.
    assert note[:2] == ("info", "gpukit:nodePools[1].zones")
    assert "across zones" in note[2] and "data transfer between Availability Zones" in note[2]


def test_a_pinned_lustre_zone_leaves_only_the_cross_zone_note() -> None:
    findings = _storage_findings(_lustre_stack(zone="usw2-az3"))
    assert [(f[0], f[1]) for f in findings] == [("info", "gpukit:nodePools[1].zones")]
    both = _lustre_stack(zone="usw2-az3")
    both["gpukit:nodePools"][1]["zones"].append("usw2-az3")  # type: ignore[index]
    assert _storage_findings(both) == []


def test_a_lustre_zone_must_be_one_the_pools_pin() -> None:
    storage = {"shared": [{"name": "ckpt", "kind": "fsx-lustre", "zone": "usw2-az4"}]}
    pools = [{"name": "h100", "zones": ["usw2-az3"]}, {"name": "l4", "zones": ["usw2-az1", "usw2-az3"]}]
    (problem,) = validate_eks_storage("unit", storage, pools)
    assert problem.key == "gpukit:storage.shared[0].zone"
    assert "usw2-az3, usw2-az1" in str(problem) and "'usw2-az4'" in str(problem)
    assert (
        validate_eks_storage("unit", {"shared": [{**storage["shared"][0], "zone": "usw2-az1"}]}, pools) == []
    )

"""GKE's shared volumes under the mocks: what the engine records for Filestore, Cloud Storage FUSE and
Managed Lustre (the Filestore instance and its static volume, StorageClass parameters, network rules,
bucket hardening, IAM scope)."""

import re
from typing import Any

import kubernetes_validate
import pytest

from gpukit.providers.gcp.gke.shared_storage.volumes import GkeSharedStorage, GkeSharedVolume
from harness import Recording, record

NETWORK_POLICY = "kubernetes:networking.k8s.io/v1:NetworkPolicy"

NETWORK = "projects/gpukit-test/global/networks/train-vpc"
NODES = "train-nodes@gpukit-test.iam.gserviceaccount.com"


def run(*volumes: GkeSharedVolume) -> Recording:
    def program() -> None:
        GkeSharedStorage(
            "train-shared",
            {
                "cluster_name": "train",
                "project": "gpukit-test",
                "region": "us-central1",
                "network_id": NETWORK,
                "node_service_account": NODES,
                "volumes": list(volumes),
                "after": [],
            },
        )

    return record(program, region="us-central1", project="gpukit-test")


def classes(rec: Recording) -> dict[str, dict[str, Any]]:
    return {
        r.inputs["metadata"]["name"]: r.inputs
        for r in rec.of_type("kubernetes:storage.k8s.io/v1:StorageClass")
    }


def zonal(name: str = "checkpoints", tier: str = "zonal", size_gb: int = 2048) -> GkeSharedVolume:
    return GkeSharedVolume(name, "filestore", "checkpoints", size_gb, tier, location="us-central1-b")


def test_filestore_instance_is_pulumis_own_in_the_cluster_vpc_through_private_access() -> None:
    rec = run(zonal())
    instance = rec.one("gcp:filestore/instance:Instance")
    assert instance.inputs["name"] == "train-checkpoints"
    assert (instance.inputs["tier"], instance.inputs["location"]) == ("ZONAL", "us-central1-b")
    assert instance.inputs["fileShares"] == {"name": "shared", "capacityGb": 2048}
    assert instance.inputs["networks"] == [
        {
            "network": NETWORK,
            "modes": ["MODE_IPV4"],
            "connectMode": "PRIVATE_SERVICE_ACCESS",
            "reservedIpRange": "train-storage-psa",
        }
    ]
    # The instance needs the peering: it waits for the servicenetworking connection.
    connection = rec.one("gcp:servicenetworking/connection:Connection")
    assert connection.urn in instance.dependencies
    # No StorageClass the CSI driver would provision from: nothing outlives `pulumi destroy`.
    (sc,) = classes(rec).values()
    assert sc["provisioner"] == "kubernetes.io/no-provisioner"
    assert (sc["reclaimPolicy"], sc["volumeBindingMode"]) == ("Retain", "Immediate")
    assert sc["metadata"]["annotations"] == {"storageclass.kubernetes.io/is-default-class": "false"}


def test_filestore_volume_points_at_the_instance_share_and_binds_the_example_claim() -> None:
    rec = run(zonal())
    pv = rec.one("kubernetes:core/v1:PersistentVolume").inputs
    ip = pv["spec"]["csi"]["volumeAttributes"]["ip"]
    assert pv["metadata"]["name"] == "shared-checkpoints"
    assert pv["spec"]["csi"] == {
        "driver": "filestore.csi.storage.gke.io",
        "volumeHandle": "modeInstance/us-central1-b/train-checkpoints/shared",
        "volumeAttributes": {"ip": ip, "volume": "shared"},
    }
    # The instance's address (plan fakes: one from the private range), resolved from its outputs.
    assert re.fullmatch(r"10\.210\.\d+\.2", ip)
    assert pv["spec"]["accessModes"] == ["ReadWriteMany"]
    assert pv["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
    assert pv["spec"]["capacity"] == {"storage": "2048Gi"}
    assert pv["spec"]["storageClassName"] == "shared-checkpoints"
    assert pv["spec"]["claimRef"] == {"namespace": "default", "name": "shared-checkpoints"}
    claim = rec.one("kubernetes:core/v1:PersistentVolumeClaim").inputs
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"]
    assert claim["spec"]["storageClassName"] == "shared-checkpoints"
    assert claim["spec"]["volumeName"] == "shared-checkpoints"
    assert claim["spec"]["resources"]["requests"]["storage"] == "2048Gi"
    assert claim["metadata"]["namespace"] == "default"


def test_regional_and_enterprise_instances_live_in_the_region() -> None:
    rec = run(
        GkeSharedVolume("ckpt", "filestore", "checkpoints", 1024, "enterprise", location="us-central1"),
        GkeSharedVolume("big", "filestore", "checkpoints", 10240, "regional-large", location="us-central1"),
    )
    instances = {r.inputs["name"]: r.inputs for r in rec.of_type("gcp:filestore/instance:Instance")}
    assert {n: (i["tier"], i["location"]) for n, i in instances.items()} == {
        "train-ckpt": ("ENTERPRISE", "us-central1"),
        "train-big": ("REGIONAL", "us-central1"),
    }
    handles = {
        r.inputs["metadata"]["name"]: r.inputs["spec"]["csi"]["volumeHandle"]
        for r in rec.of_type("kubernetes:core/v1:PersistentVolume")
    }
    assert handles == {
        "shared-ckpt": "modeInstance/us-central1/train-ckpt/shared",
        "shared-big": "modeInstance/us-central1/train-big/shared",
    }


def test_storage_servers_reach_only_the_nodes_from_the_private_range() -> None:
    rec = run(zonal(size_gb=1024))
    peering = rec.one("gcp:compute/globalAddress:GlobalAddress").inputs
    assert (peering["purpose"], peering["prefixLength"], peering["network"]) == ("VPC_PEERING", 20, NETWORK)
    connection = rec.one("gcp:servicenetworking/connection:Connection").inputs
    assert connection["service"] == "servicenetworking.googleapis.com"
    assert connection["reservedPeeringRanges"] == ["train-storage-psa"]
    rule = rec.one("gcp:compute/firewall:Firewall").inputs
    assert rule["direction"] == "INGRESS"
    assert rule["targetServiceAccounts"] == [NODES]
    (source,) = rule["sourceRanges"]
    assert source.endswith("/20") and source != "0.0.0.0/0"
    assert rule["name"] == "train-filestore-to-nodes"
    # NFSv3 lock callbacks: no sourced port list for them, so every TCP and UDP port (tables.py says why).
    assert rule["allows"] == [{"protocol": "tcp"}, {"protocol": "udp"}]


def test_lustre_class_names_the_tier_and_opens_tcp_only() -> None:
    rec = run(GkeSharedVolume("train-data", "managed-lustre", "datasets", 18000, "500"))
    (sc,) = classes(rec).values()
    assert sc["provisioner"] == "lustre.csi.storage.gke.io"
    assert sc["parameters"] == {"network": NETWORK, "perUnitStorageThroughput": "500"}
    rule = rec.one("gcp:compute/firewall:Firewall").inputs
    assert rule["name"] == "train-managed-lustre-to-nodes"
    assert rule["allows"] == [{"protocol": "tcp", "ports": ["988"]}]


def test_each_backend_gets_its_own_rule_with_its_own_ports() -> None:
    rec = run(
        zonal(size_gb=1024),
        GkeSharedVolume("train-data", "managed-lustre", "datasets", 18000, "500"),
    )
    rules = {r.inputs["name"]: r.inputs for r in rec.of_type("gcp:compute/firewall:Firewall")}
    assert {n: r["allows"] for n, r in rules.items()} == {
        "train-filestore-to-nodes": [{"protocol": "tcp"}, {"protocol": "udp"}],
        "train-managed-lustre-to-nodes": [{"protocol": "tcp", "ports": ["988"]}],
    }
    assert all(r["targetServiceAccounts"] == [NODES] for r in rules.values())
    assert len(rec.of_type("gcp:servicenetworking/connection:Connection")) == 1


def test_gcs_fuse_datasets_reader_is_granted_on_its_bucket_only() -> None:
    rec = run(GkeSharedVolume("datasets", "gcs-fuse", "datasets", 500, "standard", bucket="team-datasets"))
    grant = rec.one("gcp:storage/bucketIAMMember:BucketIAMMember").inputs
    assert (grant["bucket"], grant["role"]) == ("team-datasets", "roles/storage.objectViewer")
    assert grant["member"] == (
        "principal://iam.googleapis.com/projects/123456789012/locations/global/workloadIdentityPools/"
        "gpukit-test.svc.id.goog/subject/ns/default/sa/shared-datasets"
    )
    assert not rec.of_type("gcp:projects/iAMMember:IAMMember")
    assert rec.one("kubernetes:core/v1:ServiceAccount").inputs["metadata"]["name"] == "shared-datasets"
    pv = rec.one("kubernetes:core/v1:PersistentVolume").inputs["spec"]
    assert pv["csi"] == {
        "driver": "gcsfuse.csi.storage.gke.io",
        "volumeHandle": "team-datasets",
        "readOnly": True,
    }
    assert pv["accessModes"] == ["ReadOnlyMany"]
    assert not rec.of_type("gcp:compute/globalAddress:GlobalAddress")  # no NFS server, no peering


def test_gcs_fuse_on_an_existing_bucket_creates_none_and_model_cache_may_write() -> None:
    rec = run(GkeSharedVolume("models", "gcs-fuse", "model-cache", 200, "standard", bucket="team-models"))
    assert not rec.of_type("gcp:storage/bucket:Bucket")
    grant = rec.one("gcp:storage/bucketIAMMember:BucketIAMMember").inputs
    assert (grant["bucket"], grant["role"]) == ("team-models", "roles/storage.objectUser")
    pv = rec.one("kubernetes:core/v1:PersistentVolume").inputs["spec"]
    assert pv["csi"]["readOnly"] is False and pv["accessModes"] == ["ReadWriteMany"]


def test_no_private_access_without_filestore_or_lustre() -> None:
    rec = run(GkeSharedVolume("models", "gcs-fuse", "model-cache", 200, "standard", bucket="team-models"))
    assert not rec.of_type("gcp:compute/firewall:Firewall")
    assert not rec.of_type("gcp:servicenetworking/connection:Connection")


@pytest.mark.parametrize(
    "token",
    [
        "kubernetes:storage.k8s.io/v1:StorageClass",
        "kubernetes:core/v1:PersistentVolume",
        "kubernetes:core/v1:PersistentVolumeClaim",
    ],
)
def test_filestore_manifests_are_valid_kubernetes_objects(token: str) -> None:
    """What the engine records for the static volume, as the API server would get it, strictly valid
    (no unknown or misspelled field)."""
    rec = run(zonal())
    manifest = rec.one(token).inputs
    kubernetes_validate.validate(manifest, "1.35.0", strict=True)


def test_workload_pods_are_kept_off_filestore_in_every_workload_namespace() -> None:
    """Issue 29, point 15: Filestore admits its whole VPC, pods included (VPC-native addresses); GKE's
    Dataplane V2 enforces NetworkPolicy, so `default` and the team namespaces batch creates get a policy
    that excepts the instance's address, each after its namespace exists."""
    from gpukit.program import build
    from harness import example_config

    config = example_config("gke-train")
    config["gpukit:batch"]["queues"] = [{"name": "research", "namespaces": ["research"], "quotas": []}]
    rec = record(lambda: build(config), region=config["gcp:region"], project=config["gcp:project"])
    policies = {p.inputs["metadata"]["namespace"]: p for p in rec.of_type(NETWORK_POLICY)}
    assert sorted(policies) == ["default", "research"]
    (instance,) = rec.of_type("gcp:filestore/instance:Instance")
    (pv,) = [p for p in rec.of_type("kubernetes:core/v1:PersistentVolume") if "checkpoints" in p.name]
    address = pv.inputs["spec"]["csi"]["volumeAttributes"]["ip"]
    for policy in policies.values():
        assert policy.inputs["spec"]["egress"][0] == {
            "to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": [f"{address}/32"]}}]
        }
        # Workload Identity's metadata server stays reachable (GKE's network policy requirements).
        assert {
            "to": [{"ipBlock": {"cidr": "169.254.169.252/32"}}],
            "ports": [{"protocol": "TCP", "port": 988}],
        } in (policy.inputs["spec"]["egress"])
    namespace = rec.one("kubernetes:core/v1:Namespace", "gke-train-batch-ns-research")
    assert namespace.urn in policies["research"].dependencies
    assert instance.name


def test_no_network_policy_for_a_bucket_only_stack() -> None:
    rec = run(GkeSharedVolume("models", "gcs-fuse", "model-cache", 200, "standard", bucket="team-models"))
    assert not rec.of_type(NETWORK_POLICY)

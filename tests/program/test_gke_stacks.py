"""The GKE example stacks through `gpukit plan --out`: what issue #3 says a plan must show."""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import PlannedStack
from gpukit.cli import main
from gpukit.providers.gcp.catalog import GCP_MACHINE_TYPES
from gpukit.providers.gcp.gke.storage import (
    DEFAULT_CLASS_ANNOTATION,
    GKE_SHIPPED_STORAGE_CLASSES,
    default_classes,
)
from harness import example_config


def planned(stack: str, planned_stack: Callable[[str], PlannedStack]) -> tuple[dict[str, Any], Path]:
    """The stack's plan.json and out folder (each stack is planned once per session)."""
    plan = planned_stack(stack)
    assert plan.code == 0
    return json.loads((plan.out / "plan.json").read_text()), plan.out


def of_type(doc: dict[str, Any], token: str) -> list[dict[str, Any]]:
    return [r for r in doc["resources"] if r["type"] == token]


def node_pools(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["inputs"]["name"]: r["inputs"] for r in of_type(doc, "gcp:container/nodePool:NodePool")}


@pytest.mark.parametrize("stack", ["gke-dev", "gke-train"])
def test_gpu_pools_scale_from_zero_with_the_machine_accelerators_and_the_gpu_taint(
    stack: str, planned_stack: Callable[[str], PlannedStack]
) -> None:
    doc, _ = planned(stack, planned_stack)
    pools = node_pools(doc)
    gpu_pools = {p["name"]: p for p in doc["pools"] if p["gpuModel"]}
    assert gpu_pools
    for name, spec in gpu_pools.items():
        pool = pools[name]
        assert pool["autoscaling"]["totalMinNodeCount"] == 0
        assert pool["autoscaling"]["totalMaxNodeCount"] == spec["maxNodes"]
        machine = GCP_MACHINE_TYPES[spec["instanceType"]]
        (accelerator,) = pool["nodeConfig"]["guestAccelerators"]
        assert (accelerator["type"], accelerator["count"]) == (machine.accelerator_type, machine.gpu_count)
        queued = [{"key": "cloud.google.com/gke-queued", "value": "true", "effect": "NO_SCHEDULE"}]
        assert pool["nodeConfig"]["taints"] == [
            {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"},
            *(queued if pool.get("queuedProvisioning", {}).get("enabled") else []),
        ]
        assert pool["nodeConfig"]["machineType"] == spec["instanceType"]
        assert pool["nodeLocations"], "GPU pools are placed in the zones that offer their GPU"
    system = pools["system"]
    assert "guestAccelerators" not in system["nodeConfig"] or system["nodeConfig"]["guestAccelerators"] == []
    assert system["autoscaling"]["totalMinNodeCount"] >= 1


def test_spot_pools_take_capacity_in_any_zone(planned_stack: Callable[[str], PlannedStack]) -> None:
    doc, _ = planned("gke-dev", planned_stack)
    l4 = node_pools(doc)["l4"]
    assert l4["nodeConfig"]["spot"] is True
    assert l4["autoscaling"]["locationPolicy"] == "ANY"
    assert l4["nodeLocations"] == ["us-central1-a", "us-central1-b", "us-central1-c"]


def test_google_managed_driver_stack(planned_stack: Callable[[str], PlannedStack]) -> None:
    doc, out = planned("gke-dev", planned_stack)
    l4 = node_pools(doc)["l4"]["nodeConfig"]
    installation = l4["guestAccelerators"][0]["gpuDriverInstallationConfig"]
    assert installation == {"gpuDriverVersion": "LATEST"}
    assert l4["imageType"] == "COS_CONTAINERD"
    assert "gke-no-default-nvidia-gpu-device-plugin" not in l4["labels"]  # GKE's device plugin stays
    assert l4["shieldedInstanceConfig"]["enableSecureBoot"] is True
    (cluster,) = of_type(doc, "gcp:container/cluster:Cluster")
    assert "DCGM" in cluster["inputs"]["monitoringConfig"]["enableComponents"]
    assert not (out / "manifests" / "helm" / "gpu-operator.yaml").exists()
    assert {g["component"] for g in doc["gpuSoftware"] if g["runs"]} >= {
        "NVIDIA driver",
        "device plugin",
        "DCGM metrics",
    }


def test_operator_managed_driver_stack(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """gke-train with the GPU Operator's driver, less its A3 pool (gVNIC-only machines need COS nodes,
    which `driver: operator` does not run), plus a second G2 pool."""
    config = example_config("gke-train")
    config["gpukit:gpuOperator"] = {"chartVersion": "v26.7.0", "driver": "operator"}
    config["gpukit:nodePools"] = [p for p in config["gpukit:nodePools"] if p["name"] != "h100"]
    config["gpukit:nodePools"].append(
        {"name": "l4x4", "instanceType": "g2-standard-48", "minNodes": 0, "maxNodes": 1}
    )
    path, out = tmp_path / "Pulumi.operator.yaml", tmp_path / "out"
    path.write_text(yaml.safe_dump({"config": config}))
    code = main(["plan", "--config", str(path), "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    doc = json.loads((out / "plan.json").read_text())
    for name in ("l4", "l4x4"):
        config = node_pools(doc)[name]["nodeConfig"]
        installation = config["guestAccelerators"][0]["gpuDriverInstallationConfig"]
        assert installation == {"gpuDriverVersion": "INSTALLATION_DISABLED"}
        assert config["imageType"] == "UBUNTU_CONTAINERD"
        assert config["labels"]["gke-no-default-nvidia-gpu-device-plugin"] == "true"
        # The Operator's driver modules are unsigned: Secure Boot would refuse to load them.
        assert config["shieldedInstanceConfig"]["enableSecureBoot"] is False
    quota = yaml.safe_load(
        (out / "manifests" / "resourcequota-gpu-operator-gpu-operator-quota.yaml").read_text()
    )
    assert quota["spec"]["scopeSelector"]["matchExpressions"][0]["values"] == [
        "system-node-critical",
        "system-cluster-critical",
    ]
    release = yaml.safe_load((out / "manifests" / "helm" / "gpu-operator.yaml").read_text())
    assert release["version"] == "v26.7.0"
    assert release["values"]["driver"]["enabled"] is True
    assert release["values"]["toolkit"]["env"] == [{"name": "RUNTIME_CONFIG_SOURCE", "value": "file"}]


def test_cluster_is_private_vpc_native_with_workload_identity(
    planned_stack: Callable[[str], PlannedStack],
) -> None:
    doc, _ = planned("gke-dev", planned_stack)
    (cluster,) = of_type(doc, "gcp:container/cluster:Cluster")
    inputs = cluster["inputs"]
    assert inputs["removeDefaultNodePool"] is True
    assert inputs["privateClusterConfig"]["enablePrivateNodes"] is True
    assert inputs["masterAuthorizedNetworksConfig"]["cidrBlocks"] == [
        {"cidrBlock": "203.0.113.0/24", "displayName": "gpukit-0"}
    ]
    assert inputs["workloadIdentityConfig"] == {"workloadPool": "acme-ml-dev.svc.id.goog"}
    assert inputs["datapathProvider"] == "ADVANCED_DATAPATH"
    assert inputs["releaseChannel"] == {"channel": "REGULAR"}
    assert inputs["deletionProtection"] is False  # the dev stack says so; the default is true
    assert inputs["ipAllocationPolicy"] == {
        "clusterSecondaryRangeName": "pods",
        "servicesSecondaryRangeName": "services",
    }
    subnets = {s["inputs"].get("purpose", ""): s for s in of_type(doc, "gcp:compute/subnetwork:Subnetwork")}
    # The nodes' subnet, and the inference Gateway's proxy-only one (gke-dev has inference on).
    assert sorted(subnets) == ["", "REGIONAL_MANAGED_PROXY"]
    assert subnets[""]["inputs"]["privateIpGoogleAccess"] is True
    assert len(of_type(doc, "gcp:compute/routerNat:RouterNat")) == 1


def test_nodes_run_as_a_least_privilege_service_account(planned_stack: Callable[[str], PlannedStack]) -> None:
    doc, _ = planned("gke-dev", planned_stack)
    # gke-dev's other account is KEDA's (inference on): it reads metrics and nothing else.
    roles: dict[str, set[str]] = {}
    for member in of_type(doc, "gcp:projects/iAMMember:IAMMember"):
        roles.setdefault("keda" if "-keda-" in member["name"] else "nodes", set()).add(
            member["inputs"]["role"]
        )
    assert roles == {
        "nodes": {"roles/container.defaultNodeServiceAccount", "roles/artifactregistry.reader"},
        "keda": {"roles/monitoring.viewer"},
    }
    (account,) = [
        a for a in of_type(doc, "gcp:serviceaccount/account:Account") if a["name"] == "gke-dev-nodes"
    ]
    email = f"{account['inputs']['accountId']}@acme-ml-dev.iam.gserviceaccount.com"
    for pool in node_pools(doc).values():
        assert pool["nodeConfig"]["serviceAccount"] == email
        assert pool["nodeConfig"]["workloadMetadataConfig"] == {"mode": "GKE_METADATA"}
        assert pool["management"] == {"autoRepair": True, "autoUpgrade": True}


def test_default_storage_class_is_pd_balanced(planned_stack: Callable[[str], PlannedStack]) -> None:
    _, out = planned("gke-dev", planned_stack)
    sc = yaml.safe_load((out / "manifests" / "storageclass-pd-balanced.yaml").read_text())
    assert sc["provisioner"] == "pd.csi.storage.gke.io"
    assert sc["parameters"] == {"type": "pd-balanced"}
    assert sc["volumeBindingMode"] == "WaitForFirstConsumer"
    assert sc["allowVolumeExpansion"] is True
    assert sc["metadata"]["annotations"]["storageclass.kubernetes.io/is-default-class"] == "true"


def test_kubeconfig_uses_the_gke_auth_plugin_and_stays_secret(
    planned_stack: Callable[[str], PlannedStack],
) -> None:
    doc, out = planned("gke-dev", planned_stack)
    (provider,) = of_type(doc, "pulumi:providers:kubernetes")
    assert provider["inputs"]["kubeconfig"] == "[secret]"
    assert "gke-gcloud-auth-plugin" not in (out / "plan.json").read_text()


# --- issue 11: what a GKE plan must show ----------------------------------------------------------


@pytest.mark.parametrize("stack", ["gke-dev", "gke-train"])
def test_secrets_are_encrypted_with_the_stacks_rotating_kms_key(
    stack: str, planned_stack: Callable[[str], PlannedStack]
) -> None:
    doc, _ = planned(stack, planned_stack)
    (cluster,) = of_type(doc, "gcp:container/cluster:Cluster")
    (ring,) = of_type(doc, "gcp:kms/keyRing:KeyRing")
    (key,) = of_type(doc, "gcp:kms/cryptoKey:CryptoKey")
    (grant,) = of_type(doc, "gcp:kms/cryptoKeyIAMMember:CryptoKeyIAMMember")
    encryption = cluster["inputs"]["databaseEncryption"]
    assert encryption["state"] == "ENCRYPTED"
    assert encryption["keyName"].startswith("projects/acme-ml-")
    assert "/locations/us-central1/keyRings/" in encryption["keyName"]
    assert ring["inputs"]["location"] == cluster["inputs"]["location"] == "us-central1"
    assert key["inputs"]["rotationPeriod"] == "7776000s"
    assert grant["inputs"]["cryptoKeyId"] == encryption["keyName"]
    assert grant["inputs"]["member"].endswith("@container-engine-robot.iam.gserviceaccount.com")


@pytest.mark.parametrize("stack", ["gke-dev", "gke-train"])
def test_the_stack_enables_its_apis_and_never_disables_them(
    stack: str, planned_stack: Callable[[str], PlannedStack]
) -> None:
    doc, _ = planned(stack, planned_stack)
    services = of_type(doc, "gcp:projects/service:Service")
    assert {s["inputs"]["service"] for s in services} >= {
        "container.googleapis.com",
        "compute.googleapis.com",
        "cloudkms.googleapis.com",
    }
    assert all(s["inputs"]["disableOnDestroy"] is False for s in services)


@pytest.mark.parametrize("stack", ["gke-dev", "gke-train"])
def test_exactly_one_default_storage_class_among_created_and_shipped(
    stack: str, planned_stack: Callable[[str], PlannedStack]
) -> None:
    doc, out = planned(stack, planned_stack)
    created = {
        sc["metadata"]["name"]: sc["metadata"]["annotations"][DEFAULT_CLASS_ANNOTATION] == "true"
        for sc in (yaml.safe_load(p.read_text()) for p in (out / "manifests").glob("storageclass-*.yaml"))
    }
    patched = [
        p["inputs"]["metadata"]["name"]
        for p in of_type(doc, "kubernetes:storage.k8s.io/v1:StorageClassPatch")
        if p["inputs"]["metadata"]["annotations"][DEFAULT_CLASS_ANNOTATION] == "false"
    ]
    assert default_classes(created, GKE_SHIPPED_STORAGE_CLASSES, patched) == ["pd-balanced"]
    assert "the only default; GKE's standard-rwo set to non-default" in doc["storage"]


def test_a3_nodes_get_gvnic(planned_stack: Callable[[str], PlannedStack]) -> None:
    doc, _ = planned("gke-train", planned_stack)
    pools = node_pools(doc)
    assert pools["h100"]["nodeConfig"]["gvnic"] == {"enabled": True}
    assert "gvnic" not in pools["l4"]["nodeConfig"]


def test_a_bucket_volume_shows_its_sourced_rate_and_leaves_the_totals_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """gke-train (us-central1) plus a datasets bucket: the plan shows Cloud Storage Standard's sourced
    $0.020/GiB-month for it, but the existing bucket bills the bytes it stores, so the totals stay as
    they were and it is not reported unpriced."""
    base = example_config("gke-train")
    config = {**base, "gpukit:storage": {"shared": [*base["gpukit:storage"]["shared"]]}}
    config["gpukit:storage"]["shared"].append(
        {
            "name": "datasets",
            "kind": "gcs-fuse",
            "role": "datasets",
            "sizeGb": 1000,
            "bucket": "acme-datasets",
        }
    )
    docs, reports = [], []
    for name, cfg in (("base", base), ("bucket", config)):
        path, out = tmp_path / f"Pulumi.{name}.yaml", tmp_path / name
        path.write_text(yaml.safe_dump({"config": cfg}))
        assert main(["plan", "--config", str(path), "--out", str(out)]) == 0, capsys.readouterr().err
        docs.append(json.loads((out / "plan.json").read_text()))
        reports.append(capsys.readouterr().out)
    without, with_bucket = docs
    volumes = {v["name"]: v for v in with_bucket["sharedStorage"]}
    assert volumes["datasets"]["pricePerGbMonth"] == pytest.approx(0.020)
    assert volumes["datasets"]["costPerHour"] is None
    assert volumes["checkpoints"]["pricePerGbMonth"] is None  # zonal Filestore: no sourced us-central1 price
    assert with_bucket["costs"]["perHourIdle"] == pytest.approx(without["costs"]["perHourIdle"])
    assert "NO PRICE for shared volume(s) checkpoints:" in reports[1]


def test_a_queued_pool_is_a_flex_start_pool_with_queued_provisioning(
    planned_stack: Callable[[str], PlannedStack],
) -> None:
    """gke-train's h100 pool (`provisioning: queued`): what GKE's queued-provisioning guide asks for
    (flex-start, no reservation, location policy ANY, from zero, no auto-repair), and only there."""
    doc, _ = planned("gke-train", planned_stack)
    pools = node_pools(doc)
    h100 = pools["h100"]
    assert h100["queuedProvisioning"] == {"enabled": True}
    assert h100["nodeConfig"]["flexStart"] is True
    assert h100["nodeConfig"]["reservationAffinity"] == {"consumeReservationType": "NO_RESERVATION"}
    assert h100["autoscaling"]["locationPolicy"] == "ANY"
    assert h100["autoscaling"]["totalMinNodeCount"] == 0
    assert h100["management"] == {"autoRepair": False, "autoUpgrade": True}
    assert "spot" not in h100["nodeConfig"] or h100["nodeConfig"]["spot"] is False
    for name in ("l4", "system"):
        assert "queuedProvisioning" not in pools[name]
        assert "flexStart" not in pools[name]["nodeConfig"]
        assert pools[name]["management"] == {"autoRepair": True, "autoUpgrade": True}

"""The NFS VM gpukit makes for the k3s-gcp example's shared `checkpoints` volume (no export named), under
the mocks: assertions on the recorded inputs after the program ran. What a user relies on: the data sits
on its own disk (replacing the VM keeps it, destroying it leaves a snapshot), only the cluster's nodes
reach NFS, the VM has no external address and no Google identity, it is never Spot, it is a Shielded VM
with OS Login, and the class names its reserved address."""

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpukit.components.addons.storage.nfs.exports import EXPORT_OPTIONS, NFS_PORT
from gpukit.plan.fakes import Recorded
from gpukit.program import build
from gpukit.providers.gcp.fakes import GcpFakes
from harness import Recording, example_config, record
from tools import cloud_init_schema_problems, script_input

CONFIG: dict[str, Any] = example_config("k3s-gcp")
PREFIX = "k3s-gcp-nfs-checkpoints"
FIREWALL = "gcp:compute/firewall:Firewall"
INSTANCE = "gcp:compute/instance:Instance"
DISK = "gcp:compute/disk:Disk"
ADDRESS = "gcp:compute/address:Address"
UBUNTU = "projects/ubuntu-os-cloud/global/images/family/ubuntu-2404-lts-amd64"


def run(config: dict[str, Any]) -> Recording:
    return record(lambda: build(config), region=config["gcp:region"], project=config["gcp:project"])


@pytest.fixture(scope="module")
def rec() -> Recording:
    return run(CONFIG)


def outputs(resource: Recorded) -> dict[str, Any]:
    fakes = GcpFakes({"gcp:region": CONFIG["gcp:region"], "gcp:project": CONFIG["gcp:project"]})
    _, out = fakes.resource(resource.type, resource.name, dict(resource.inputs))
    return out


def user_data(rec: Recording) -> str:
    return str(rec.one(INSTANCE, f"{PREFIX}-vm").inputs["metadata"]["user-data"])


def vm_script(rec: Recording) -> str:
    files = {f["path"]: f["content"] for f in yaml.safe_load(user_data(rec))["write_files"]}
    return str(files["/opt/gpukit/nfs-server.sh"])


def test_data_sits_on_its_own_pd_balanced_disk_in_the_vms_zone(rec: Recording) -> None:
    disk = rec.one(DISK, f"{PREFIX}-data")
    vm = rec.one(INSTANCE, f"{PREFIX}-vm")
    assert (disk.inputs["type"], disk.inputs["size"]) == ("pd-balanced", 500)
    assert disk.inputs["createSnapshotBeforeDestroy"] is True  # destroying the stack leaves a snapshot
    # Encrypted at rest with Google's key: no customer key that could be lost.
    assert "diskEncryptionKey" not in disk.inputs
    assert disk.inputs["zone"] == vm.inputs["zone"]
    # Attached (not created) by the VM, under the fixed device name its boot script looks for.
    assert vm.inputs["attachedDisks"] == [
        {"source": outputs(disk)["selfLink"], "deviceName": "gpukit-data", "mode": "READ_WRITE"}
    ]
    assert script_input(vm_script(rec), "DEVICE") == "/dev/disk/by-id/google-gpukit-data"
    # The VM sits in the servers' first zone.
    first_server = rec.one(INSTANCE, "k3s-gcp-control-0")
    assert vm.inputs["zone"] == first_server.inputs["zone"]


def test_only_the_cluster_nodes_reach_nfs(rec: Recording) -> None:
    """Both ends by service account, never by network tag (anyone who may tag a VM could take the
    nodes' tag)."""
    vm = rec.one(INSTANCE, f"{PREFIX}-vm")
    account = vm.inputs["serviceAccount"]["email"]
    rules = [r for r in rec.of_type(FIREWALL) if account in (r.inputs.get("targetServiceAccounts") or ())]
    nodes = [
        "k3s-gcp-k3s-server@acme-ml-dev.iam.gserviceaccount.com",
        "k3s-gcp-k3s-agent@acme-ml-dev.iam.gserviceaccount.com",
    ]
    assert [
        (
            r.inputs["direction"],
            r.inputs["allows"],
            r.inputs.get("sourceServiceAccounts"),
            r.inputs.get("sourceTags"),
        )
        for r in rules
    ] == [("INGRESS", [{"protocol": "tcp", "ports": [str(NFS_PORT)]}], nodes, None)]
    # Every machine runs as one of those accounts; the NFS VM as its own.
    assert all(i.inputs["serviceAccount"]["email"] in nodes for i in rec.of_type(INSTANCE) if i is not vm)
    assert account not in nodes
    # No rule anywhere opens the NFS VM to an address range.
    assert not any(r.inputs.get("sourceRanges") for r in rules)


def test_exports_go_to_the_cluster_subnet_only(rec: Recording) -> None:
    exports = script_input(vm_script(rec), "EXPORTS").splitlines()[1:]
    cidr = CONFIG["gpukit:cluster"]["network"]["cidr"]
    subnet = rec.one("gcp:compute/subnetwork:Subnetwork")
    assert subnet.inputs["ipCidrRange"] == cidr
    assert exports == [f"/srv/gpukit-nfs/checkpoints {cidr}({EXPORT_OPTIONS})"]


def test_no_external_address_no_identity_never_spot_shielded_os_login(rec: Recording) -> None:
    vm = rec.one(INSTANCE, f"{PREFIX}-vm").inputs
    assert vm["machineType"] == "e2-standard-2"
    (interface,) = vm["networkInterfaces"]
    assert "accessConfigs" not in interface and "ipv6AccessConfigs" not in interface
    # An account of its own with no role, and no scope but identity: its tokens open no API.
    assert vm["serviceAccount"]["scopes"] == ["https://www.googleapis.com/auth/userinfo.email"]
    account = rec.one("gcp:serviceaccount/account:Account", f"{PREFIX}-account")
    assert vm["serviceAccount"]["email"].startswith(account.inputs["accountId"] + "@")
    assert not [
        m
        for m in rec.of_type("gcp:projects/iAMMember:IAMMember")
        if account.inputs["accountId"] in str(m.inputs)
    ]
    assert vm["scheduling"] == {
        "provisioningModel": "STANDARD",
        "automaticRestart": True,
        "onHostMaintenance": "MIGRATE",
    }
    assert vm["shieldedInstanceConfig"] == {
        "enableSecureBoot": True,
        "enableVtpm": True,
        "enableIntegrityMonitoring": True,
    }
    assert vm["metadata"]["enable-oslogin"] == "TRUE"
    assert vm["metadata"]["block-project-ssh-keys"] == "true"
    assert vm["bootDisk"]["initializeParams"]["image"] == UBUNTU


def test_the_class_names_the_vms_reserved_internal_address(rec: Recording) -> None:
    address = rec.one(ADDRESS, f"{PREFIX}-address")
    assert address.inputs["addressType"] == "INTERNAL"
    subnet = rec.one("gcp:compute/subnetwork:Subnetwork")
    assert address.inputs["subnetwork"] == subnet.id
    vm = rec.one(INSTANCE, f"{PREFIX}-vm")
    ip = outputs(address)["address"]
    assert vm.inputs["networkInterfaces"][0]["networkIp"] == ip
    storage_class = rec.one("kubernetes:storage.k8s.io/v1:StorageClass", "k3s-gcp-nfs-checkpoints")
    assert storage_class.inputs["parameters"] == {
        "server": ip,
        "share": "/srv/gpukit-nfs/checkpoints",
        "mountPermissions": "0777",
    }
    assert storage_class.inputs["metadata"]["name"] == "shared-checkpoints"
    assert vm.urn in storage_class.dependencies


def test_the_vm_user_data_is_valid_cloud_config(rec: Recording, tmp_path: Path) -> None:
    path = tmp_path / "user-data"
    path.write_text(user_data(rec))
    assert cloud_init_schema_problems(path) == ""


def test_every_nfs_resource_is_a_child_of_the_vm_component(rec: Recording) -> None:
    component = rec.one("gpukit:index:K3sGceNfsServer", PREFIX)
    children = [r for r in rec.resources if r.parent == component.urn]
    assert sorted(r.name for r in children) == sorted(
        f"{PREFIX}{suffix}" for suffix in ("-account", "-nfs-from-nodes", "-address", "-data", "-vm")
    )
    assert rec.parent_of(component).type == "gpukit:index:K3sGceCluster"  # type: ignore[union-attr]


def test_a_reused_subnetwork_is_exported_by_its_own_range() -> None:
    config = copy.deepcopy(CONFIG)
    config["gpukit:cluster"]["network"] = {
        "networkId": "projects/acme-ml-dev/global/networks/ml",
        "subnetworkId": "projects/acme-ml-dev/regions/us-central1/subnetworks/ml-nodes",
    }
    rec = run(config)
    found = GcpFakes({}).invoke("gcp:compute/getSubnetwork:getSubnetwork", {"name": "ml-nodes"})
    assert found is not None
    exports = script_input(vm_script(rec), "EXPORTS").splitlines()[1:]
    assert exports == [f"/srv/gpukit-nfs/checkpoints {found['ipCidrRange']}({EXPORT_OPTIONS})"]
    firewall = rec.one(FIREWALL, f"{PREFIX}-nfs-from-nodes")
    assert firewall.inputs["network"] == "projects/acme-ml-dev/global/networks/ml"

"""The NFS VM gpukit makes for the k3s-aws example's shared `checkpoints` volume (no export named), under
the mocks: assertions on the recorded inputs after the program ran. What a user relies on: the data
sits on its own encrypted disk (replacing the VM keeps it), only the cluster's nodes reach NFS, the VM
has no public address and no AWS identity, it is never spot, and the class names its stable address."""

import base64
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpukit.components.addons.storage.nfs.exports import EXPORT_OPTIONS, NFS_PORT
from gpukit.plan.fakes import Recorded
from gpukit.program import build
from gpukit.providers.aws.fakes import AwsFakes
from harness import Recording, example_config, record
from tools import cloud_init_schema_problems, script_input

CONFIG: dict[str, Any] = example_config("k3s-aws")
PREFIX = "k3s-aws-nfs-checkpoints"
INGRESS = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
SG = "aws:ec2/securityGroup:SecurityGroup"
SUBNET = "aws:ec2/subnet:Subnet"


@pytest.fixture(scope="module")
def rec() -> Recording:
    return record(lambda: build(CONFIG), config=CONFIG, region=CONFIG["aws:region"])


def outputs(resource: Recorded) -> dict[str, Any]:
    _, out = AwsFakes({"aws:region": CONFIG["aws:region"]}).resource(
        resource.type, resource.name, dict(resource.inputs)
    )
    return out


def private_subnets(rec: Recording) -> list[Recorded]:
    return sorted(
        (s for s in rec.of_type(SUBNET) if "private" in s.name), key=lambda s: s.inputs["cidrBlock"]
    )


def vm_script(rec: Recording) -> str:
    user_data = base64.b64decode(rec.named(f"{PREFIX}-vm").inputs["userDataBase64"]).decode()
    files = {f["path"]: f["content"] for f in yaml.safe_load(user_data)["write_files"]}
    return files["/opt/gpukit/nfs-server.sh"]


def test_data_sits_on_its_own_encrypted_gp3_disk_in_the_vms_zone(rec: Recording) -> None:
    disk = rec.one("aws:ebs/volume:Volume", f"{PREFIX}-data")
    assert disk.inputs["encrypted"] is True
    assert (disk.inputs["type"], disk.inputs["size"]) == ("gp3", 500)
    assert disk.inputs["finalSnapshot"] is True  # deleting the stack keeps the data as a snapshot
    # A resource apart from the instance: the instance maps no data disk of its own.
    instance = rec.named(f"{PREFIX}-vm")
    assert "ebsBlockDevices" not in instance.inputs
    attachment = rec.one("aws:ec2/volumeAttachment:VolumeAttachment", f"{PREFIX}-data-attachment")
    assert attachment.inputs["volumeId"] == disk.id
    assert attachment.inputs["instanceId"] == instance.id
    # The zone of the subnet the VM's interface is in (the first private subnet).
    first = private_subnets(rec)[0]
    eni = rec.named(f"{PREFIX}-eni")
    assert eni.inputs["subnetId"] == first.id
    assert disk.inputs["availabilityZone"] == first.inputs["availabilityZone"]


def test_only_the_cluster_nodes_reach_nfs(rec: Recording) -> None:
    group = rec.one(SG, f"{PREFIX}-sg")
    nodes = rec.one(SG, "k3s-aws-sg-nodes")
    rules = [r for r in rec.of_type(INGRESS) if r.inputs["securityGroupId"] == group.id]
    assert [
        (
            r.inputs["ipProtocol"],
            r.inputs["fromPort"],
            r.inputs["toPort"],
            r.inputs["referencedSecurityGroupId"],
        )
        for r in rules
    ] == [("tcp", NFS_PORT, NFS_PORT, nodes.id)]
    assert not any("cidrIpv4" in r.inputs or "cidrIpv6" in r.inputs for r in rules)
    assert rec.named(f"{PREFIX}-eni").inputs["securityGroups"] == [group.id]


def test_exports_go_to_the_private_subnets_only(rec: Recording) -> None:
    exports = script_input(vm_script(rec), "EXPORTS").splitlines()[1:]
    cidrs = [s.inputs["cidrBlock"] for s in private_subnets(rec)]
    assert len(cidrs) == 2
    assert exports == ["/srv/gpukit-nfs/checkpoints " + " ".join(f"{c}({EXPORT_OPTIONS})" for c in cidrs)]


def test_the_vm_finds_its_disk_by_volume_id(rec: Recording) -> None:
    disk = rec.one("aws:ebs/volume:Volume", f"{PREFIX}-data")
    assert disk.id.startswith("vol-")
    expected = f"/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_{disk.id.replace('-', '')}"
    assert script_input(vm_script(rec), "DEVICE") == expected


def test_no_public_address_no_identity_imdsv2_one_hop_never_spot(rec: Recording) -> None:
    instance = rec.named(f"{PREFIX}-vm").inputs
    assert instance["instanceType"] == "m7i.large"
    assert "instanceMarketOptions" not in instance  # on demand
    assert "associatePublicIpAddress" not in instance and "iamInstanceProfile" not in instance
    # cloud-init applies the boot script (exports, disk) at first boot only: a new script replaces the VM.
    assert instance["userDataReplaceOnChange"] is True
    template = rec.named(f"{PREFIX}-lt").inputs
    assert "iamInstanceProfile" not in template
    assert template["metadataOptions"] == {
        "httpEndpoint": "enabled",
        "httpTokens": "required",
        "httpPutResponseHopLimit": 1,
    }
    (root,) = template["blockDeviceMappings"]
    assert root["ebs"]["encrypted"] == "true"
    assert template["imageId"].startswith("resolve:ssm:/aws/service/canonical/ubuntu/server/24.04/")
    # Its interface is in a private subnet (no route to an internet gateway), with no public address.
    eni = rec.named(f"{PREFIX}-eni")
    assert eni.inputs["subnetId"] in {s.id for s in private_subnets(rec)}
    assert "associatePublicIpAddress" not in eni.inputs


def test_the_class_names_the_vms_stable_address_and_waits_for_its_disk(rec: Recording) -> None:
    eni = rec.named(f"{PREFIX}-eni")
    storage_class = rec.one("kubernetes:storage.k8s.io/v1:StorageClass", "k3s-aws-nfs-checkpoints")
    assert storage_class.inputs["parameters"] == {
        "server": outputs(eni)["privateIp"],
        "share": "/srv/gpukit-nfs/checkpoints",
        "mountPermissions": "0777",
    }
    assert storage_class.inputs["metadata"]["name"] == "shared-checkpoints"
    attachment = rec.named(f"{PREFIX}-data-attachment")
    assert attachment.urn in storage_class.dependencies


def test_the_vm_user_data_is_valid_cloud_config(rec: Recording, tmp_path: Path) -> None:
    path = tmp_path / "user-data"
    path.write_bytes(base64.b64decode(rec.named(f"{PREFIX}-vm").inputs["userDataBase64"]))
    assert cloud_init_schema_problems(path) == ""


def test_every_nfs_resource_is_a_child_of_the_vm_component(rec: Recording) -> None:
    component = rec.one("gpukit:index:K3sEc2NfsServer", PREFIX)
    children = [r for r in rec.resources if r.parent == component.urn]
    assert sorted(r.name for r in children) == sorted(
        f"{PREFIX}{suffix}"
        for suffix in ("-sg", "-nfs-from-nodes", "-egress", "-eni", "-data", "-lt", "-vm", "-data-attachment")
    )
    assert rec.parent_of(component).type == "gpukit:index:K3sEc2Cluster"  # type: ignore[union-attr]


def test_workload_pods_are_kept_off_the_nfs_vm(rec: Recording) -> None:
    """Issue 29, point 15: the export admits the nodes' addresses, which a pod's traffic leaves with;
    k3s enforces NetworkPolicy, so `default` gets a policy that excepts the VM's address."""
    eni = rec.named(f"{PREFIX}-eni")
    policy = rec.one("kubernetes:networking.k8s.io/v1:NetworkPolicy", "k3s-aws-storage-isolation-default")
    assert policy.inputs["metadata"]["namespace"] == "default"
    blocked = policy.inputs["spec"]["egress"][0]["to"][0]["ipBlock"]
    assert blocked == {"cidr": "0.0.0.0/0", "except": [f"{outputs(eni)['privateIp']}/32"]}


def test_inline_nfs_volumes_are_refused_by_an_admission_policy(rec: Recording) -> None:
    policy = rec.one("kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy")
    binding = rec.one("kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding")
    assert policy.inputs["metadata"]["name"] == binding.inputs["spec"]["policyName"] == "gpukit-no-inline-nfs"
    assert binding.inputs["spec"]["validationActions"] == ["Deny"]
    assert policy.urn in binding.dependencies

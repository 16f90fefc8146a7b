"""K3sGceNfsServer: the small VM gpukit makes as the NFS server of one shared volume on k3s over gcp.

The Compute Engine twin of providers/aws/k3s/nfs_server.py; what it runs at boot is the same pure
renderer (components/addons/storage/nfs/vm.py), as cloud-init user data.

- Its data: a zonal pd-balanced disk of its own (`sizeGb`), encrypted at rest with a Google-managed key
  (Compute Engine's default), attached under a fixed device name so the VM finds it at
  /dev/disk/by-id/google-gpukit-data. A resource apart from the VM: replacing the VM keeps it (the
  attachment leaves `autoDelete` unset, the API's default false); deleting it (the stack's destroy)
  takes a snapshot first (`create_snapshot_before_destroy`, pulumi-gcp compute.Disk: "a snapshot of
  the disk will be created before it is destroyed", named `<disk>-YYYYMMDD-HHmm`, billed until deleted).
- Its address: a reserved internal static address in the cluster's subnet, so the address the
  StorageClass (and every volume made from it) names outlives the VM.
- Its reach: no external address (no access config; egress through the cluster's Cloud NAT); a
  firewall rule admitting TCP 2049 to this VM from the cluster's machines only, both ends matched by
  service account, never by network tag (anyone who may tag a VM of the network could give it the
  nodes' tag: providers/gcp/k3s/firewall.py); exports to the cluster's subnet CIDR only
  (components/addons/storage/nfs/exports.py).
- Its identity: a service account of its own with no role and only the `userinfo.email` scope, there
  only so the firewall can name this VM by it: a token from its metadata server says who it is and
  opens nothing (Compute Engine guide, "Service accounts": a VM's access is its account's roles within
  its scopes). Shielded VM (Secure Boot, vTPM, integrity monitoring), OS Login only, plain Ubuntu 24.04
  like the other k3s machines, on demand.

Not highly available: while it is down, pods using the volume wait on I/O. NFS carries no encryption in
transit (plain NFSv4 with sec=sys): traffic stays inside the VPC.
"""

from typing import Optional, TypedDict, cast

import pulumi
import pulumi_gcp as gcp

from gpukit.components.addons.storage.nfs.exports import NFS_PORT
from gpukit.components.addons.storage.nfs.vm import gce_device_path, nfs_vm_script, nfs_vm_user_data
from gpukit.components.k3s.names import CLOUD_HOSTNAME_MAX
from gpukit.components.names import fit_name
from gpukit.providers.gcp.gke.iam import ACCOUNT_ID_MAX
from gpukit.providers.gcp.k3s.images import UBUNTU_FAMILY, UBUNTU_PROJECT, family_path
from gpukit.providers.gcp.k3s.machine import login_metadata, on_demand_scheduling, shielded_vm
from gpukit.providers.gcp.k3s.nfs_vm_facts import (
    DATA_DEVICE_NAME,
    NFS_DISK_TYPE,
    NFS_VM_MACHINE_TYPE,
    NFS_VM_ROOT_DISK_GB,
    NFS_VM_ROOT_DISK_TYPE,
)
from gpukit.providers.gcp.network import GCE_NAME_MAX

IDENTITY_SCOPE = "https://www.googleapis.com/auth/userinfo.email"
TYPE_TOKEN = "gpukit:index:K3sGceNfsServer"


def nfs_tag(cluster_name: str, volume: str) -> str:
    """The network tag of one volume's NFS VM: the only target of its NFS firewall rule."""
    return fit_name(f"{cluster_name}-nfs-{volume}", "", GCE_NAME_MAX)


class K3sGceNfsServerArgs(TypedDict):
    cluster_name: str
    volume: str
    """The shared volume's name: its directory on the VM is storage/nfs/exports.py volume_directory."""
    size_gb: int
    region: str
    zone: str
    """Where the VM and its disk live (the first zone of the cluster's servers); they stay there."""
    network: pulumi.Input[str]
    subnetwork: pulumi.Input[str]
    node_cidr: pulumi.Input[str]
    """The cluster's subnet range: the only clients the export admits."""
    node_service_accounts: list[pulumi.Input[str]]
    """The service accounts the cluster's machines run as: the only sources admitted to NFS."""
    labels: dict[str, str]


class K3sGceNfsServer(pulumi.ComponentResource):
    address: pulumi.Output[str]
    """The VM's reserved internal address: the StorageClass's server."""
    ready: list[pulumi.Resource]
    """The VM (its data disk attached): what the StorageClass waits for."""

    def __init__(self, name: str, args: K3sGceNfsServerArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        # Fixed names, a static address and a disk held by one VM at a time: a replacement deletes the old
        # one first, or the new one's create fails on the name (or the address, or the disk).
        fixed_name = pulumi.ResourceOptions(parent=self, delete_before_replace=True)
        cluster, volume = args["cluster_name"], args["volume"]
        label = f"{cluster}-nfs-{volume}"
        tag = nfs_tag(cluster, volume)
        labels = {**args["labels"], "gpukit-role": "nfs-server"}

        account = gcp.serviceaccount.Account(
            f"{name}-account",
            account_id=fit_name(label, "", ACCOUNT_ID_MAX),
            display_name=f"NFS server of shared volume {volume} of {cluster}: no roles (gpukit)",
            opts=pulumi.ResourceOptions(parent=self),
        )
        gcp.compute.Firewall(
            f"{name}-nfs-from-nodes",
            name=fit_name(label, "-from-nodes", GCE_NAME_MAX),
            network=args["network"],
            description=f"NFS to the server of shared volume {volume} from {cluster}'s nodes only (gpukit)",
            direction="INGRESS",
            allows=[{"protocol": "tcp", "ports": [str(NFS_PORT)]}],
            target_service_accounts=[account.email],
            source_service_accounts=args["node_service_accounts"],
            opts=fixed_name,
        )
        address = gcp.compute.Address(
            f"{name}-address",
            name=fit_name(label, "-internal", GCE_NAME_MAX),
            address_type="INTERNAL",
            subnetwork=args["subnetwork"],
            region=args["region"],
            description=f"NFS server of shared volume {volume} of {cluster}: outlives the VM (gpukit)",
            opts=fixed_name,
        )
        disk = gcp.compute.Disk(
            f"{name}-data",
            name=fit_name(label, "-data", GCE_NAME_MAX),
            zone=args["zone"],
            type=NFS_DISK_TYPE,
            size=args["size_gb"],
            description=f"data of shared volume {volume} of {cluster}, kept when its VM is replaced (gpukit)",
            labels=labels,
            # A stack that deletes the disk keeps its data as a snapshot (billed until deleted).
            create_snapshot_before_destroy=True,
            # A changed server zone must not move (replace) the data: it stays where it was made.
            opts=pulumi.ResourceOptions(parent=self, ignore_changes=["zone"]),
        )
        user_data = pulumi.Output.from_input(args["node_cidr"]).apply(
            lambda cidr: nfs_vm_user_data(nfs_vm_script(volume, gce_device_path(DATA_DEVICE_NAME), [cidr]))
        )
        instance = gcp.compute.Instance(
            f"{name}-vm",
            name=fit_name(label, "", CLOUD_HOSTNAME_MAX),
            zone=args["zone"],
            machine_type=NFS_VM_MACHINE_TYPE,
            boot_disk={
                "initialize_params": {
                    "image": family_path(UBUNTU_PROJECT, UBUNTU_FAMILY),  # plain Ubuntu 24.04
                    "size": NFS_VM_ROOT_DISK_GB,
                    "type": NFS_VM_ROOT_DISK_TYPE,
                    "labels": labels,
                },
            },
            attached_disks=[
                {"source": disk.self_link, "device_name": DATA_DEVICE_NAME, "mode": "READ_WRITE"}
            ],
            # No access_configs: no external address.
            network_interfaces=[{"subnetwork": args["subnetwork"], "network_ip": address.address}],
            scheduling=cast(gcp.compute.InstanceSchedulingArgsDict, on_demand_scheduling(gpu=False)),
            shielded_instance_config=cast(
                gcp.compute.InstanceShieldedInstanceConfigArgsDict, shielded_vm(secure_boot=True)
            ),
            # cloud-init's GCE datasource reads the `user-data` metadata key (cloud-init docs,
            # datasources/gce: "user-data and user-data-encoding can be provided to cloud-init by setting
            # those custom metadata keys for an instance").
            metadata={"user-data": user_data, **login_metadata()},
            # The account names this VM for the firewall and has no role; its one scope lets a token say
            # who it is and nothing more. Not an empty list: the provider then attaches no account at all
            # (hashicorp/terraform-provider-google#13807), and the firewall would match nothing.
            service_account={"email": account.email, "scopes": [IDENTITY_SCOPE]},
            tags=[tag],
            labels=labels,
            allow_stopping_for_update=True,  # a machine type change stops and restarts it
            opts=pulumi.ResourceOptions(
                parent=self,
                delete_before_replace=True,
                # A new image or zone would replace the server under running pods: they apply to a VM
                # made later instead.
                ignore_changes=["bootDisk", "zone"],
                # cloud-init writes the boot script (exports, disk) at a VM's first boot only: a changed
                # script replaces the VM, whose data disk and reserved address outlive it.
                replace_on_changes=["metadata"],
            ),
        )
        self.address = address.address
        self.ready = [instance]
        self.register_outputs({"address": self.address})

"""K3sEc2NfsServer: the small VM gpukit makes as the NFS server of one shared volume on k3s over aws.

- Its data: an encrypted gp3 EBS volume of its own (`sizeGb`), attached to the VM, so replacing the VM
  keeps the data; a final snapshot is taken when the stack deletes it. A volume lives in one Availability
  Zone, so the VM sits in the zone of the cluster's first private subnet, and stays there.
- Its address: a network interface of its own, so the address the StorageClass (and every volume made
  from it) names outlives the instance.
- Its reach: no public address (a private subnet); a security group admitting TCP 2049 from the cluster's
  node group only; exports to the private subnets' CIDRs only (components/addons/storage/nfs/exports.py).
- Its identity: none. No instance profile, IMDSv2 with one hop (the launch template every k3s machine
  uses), plain Ubuntu 24.04 like the other k3s machines, on demand.

Not highly available: while it is down, pods using the volume wait on I/O. NFS carries no encryption in
transit (plain NFSv4 with sec=sys): traffic stays inside the VPC.
"""

from typing import Optional, TypedDict

import pulumi
import pulumi_aws as aws

from gpukit.components.addons.storage.nfs.exports import NFS_PORT
from gpukit.components.addons.storage.nfs.vm import ebs_device_path, nfs_vm_script, nfs_vm_user_data
from gpukit.components.catalog.instances import CpuArch
from gpukit.components.spec import DriverMode
from gpukit.providers.aws.k3s.images import k3s_image
from gpukit.providers.aws.k3s.launch import node_launch_template
from gpukit.providers.aws.k3s.nfs_vm_facts import (
    NFS_DISK_TYPE,
    NFS_VM_INSTANCE_TYPE,
    NFS_VM_ROOT_DISK_GB,
)
from gpukit.providers.aws.k3s.user_data import ec2_user_data

TYPE_TOKEN = "gpukit:index:K3sEc2NfsServer"
DATA_DEVICE_NAME = "/dev/sdf"
"""The name EC2 records for the attachment; the VM finds the disk by its volume id instead."""


class K3sEc2NfsServerArgs(TypedDict):
    cluster_name: str
    volume: str
    """The shared volume's name: its directory on the VM is storage/nfs/exports.py volume_directory."""
    size_gb: int
    vpc_id: pulumi.Input[str]
    subnet_ids: pulumi.Input[list[str]]
    """The cluster's private subnets: the VM goes in the first; every one's CIDR may mount the export."""
    nodes_security_group_id: pulumi.Input[str]
    """The group every node of the cluster is in: the only source admitted to NFS."""
    tags: dict[str, str]


class K3sEc2NfsServer(pulumi.ComponentResource):
    address: pulumi.Output[str]
    """The VM's private address (its own network interface's): the StorageClass's server."""
    ready: list[pulumi.Resource]
    """The VM and its attached disk: what the StorageClass waits for."""

    def __init__(self, name: str, args: K3sEc2NfsServerArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        invoke = pulumi.InvokeOptions(parent=self)
        cluster, volume = args["cluster_name"], args["volume"]
        tags = {**args["tags"], "gpukit:shared-volume": volume}
        label = f"{cluster}-nfs-{volume}"
        subnet_ids = pulumi.Output.from_input(args["subnet_ids"])
        first_subnet = aws.ec2.get_subnet_output(id=subnet_ids.apply(lambda ids: ids[0]), opts=invoke)
        node_networks: pulumi.Output[list[str]] = subnet_ids.apply(lambda ids: _subnet_cidrs(invoke, ids))

        group = aws.ec2.SecurityGroup(
            f"{name}-sg",
            vpc_id=args["vpc_id"],
            description=f"gpukit NFS server of shared volume {volume} of {cluster}",
            tags={**tags, "Name": label},
            opts=child,
        )
        aws.vpc.SecurityGroupIngressRule(
            f"{name}-nfs-from-nodes",
            security_group_id=group.id,
            ip_protocol="tcp",
            from_port=NFS_PORT,
            to_port=NFS_PORT,
            referenced_security_group_id=args["nodes_security_group_id"],
            description="NFS from the cluster's nodes only",
            opts=child,
        )
        aws.vpc.SecurityGroupEgressRule(
            f"{name}-egress",
            security_group_id=group.id,
            ip_protocol="-1",
            cidr_ipv4="0.0.0.0/0",
            description="all outbound (the distribution's packages, through the NAT gateway)",
            opts=child,
        )
        interface = aws.ec2.NetworkInterface(
            f"{name}-eni",
            subnet_id=first_subnet.id,
            security_groups=[group.id],
            description=f"NFS server of {volume} ({cluster}): its address outlives the instance",
            tags={**tags, "Name": label},
            opts=child,
        )
        disk = aws.ebs.Volume(
            f"{name}-data",
            availability_zone=first_subnet.availability_zone,
            size=args["size_gb"],
            type=NFS_DISK_TYPE,
            encrypted=True,
            # A stack that deletes the volume keeps its data as a snapshot (billed until deleted).
            final_snapshot=True,
            tags={**tags, "Name": f"{label}-data"},
            opts=child,
        )
        template = node_launch_template(
            f"{name}-lt",
            description=f"gpukit NFS server of {volume} ({cluster})",
            image=k3s_image(CpuArch.X86_64, False, DriverMode.OPERATOR),  # plain Ubuntu 24.04
            disk_size_gb=NFS_VM_ROOT_DISK_GB,
            instance_profile_arn=None,
            tags=tags,
            opts=child,
        )
        user_data = pulumi.Output.all(disk.id, node_networks).apply(
            lambda values: ec2_user_data(
                nfs_vm_user_data(nfs_vm_script(volume, ebs_device_path(values[0]), values[1]))
            )
        )
        instance = aws.ec2.Instance(
            f"{name}-vm",
            instance_type=NFS_VM_INSTANCE_TYPE,  # on demand: no instance_market_options
            launch_template={"id": template.id, "version": template.latest_version.apply(str)},
            primary_network_interface={"network_interface_id": interface.id},
            user_data_base64=user_data,
            # cloud-init writes the boot script (exports, disk) at a VM's first boot only: a changed script
            # replaces the VM, whose data disk and network interface (its address) outlive it.
            user_data_replace_on_change=True,
            tags={**tags, "Name": label},
            # Its network interface attaches to one instance at a time: a replacement frees it first.
            opts=pulumi.ResourceOptions(parent=self, delete_before_replace=True),
        )
        attachment = aws.ec2.VolumeAttachment(
            f"{name}-data-attachment",
            device_name=DATA_DEVICE_NAME,
            volume_id=disk.id,
            instance_id=instance.id,
            # Stop the VM before detaching (on its replacement): the filesystem is cleanly unmounted.
            stop_instance_before_detaching=True,
            opts=child,
        )
        self.address = interface.private_ip
        self.ready = [instance, attachment]
        self.register_outputs({"address": self.address})


def _subnet_cidrs(opts: pulumi.InvokeOptions, subnet_ids: list[str]) -> pulumi.Output[list[str]]:
    """The private subnets' CIDRs (a reused VPC's too: the stack names only their ids)."""
    return pulumi.Output.all(*[aws.ec2.get_subnet_output(id=s, opts=opts).cidr_block for s in subnet_ids])

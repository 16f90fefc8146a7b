"""K3sGceAgentPool: one pool of k3s agents on Compute Engine, an instance template and one zonal
managed instance group (MIG) per zone, minNodes and maxNodes split over them (autoscaler.py
zone_groups): the Cluster Autoscaler's GCE provider scales zonal groups only.

Agents are anonymous: each boots, runs gpukit's first-boot script (preflight, join secrets, k3s
agent) and registers under its instance name and its provider ID. Each group starts at its share of
minNodes; its size then belongs to the Cluster Autoscaler on the servers, which reads the groups'
bounds from its flags (a MIG has no max field) and its template node from the instance template
(machine type, GPUs, and the `kube-env` metadata: labels, taints, advertised GPUs).
"""

from dataclasses import replace
from typing import Optional, TypedDict, cast

import pulumi
import pulumi_gcp as gcp

from gpukit.components.k3s.cloud_init import CloudNode
from gpukit.components.k3s.host_scripts import agent_join
from gpukit.components.k3s.names import CLOUD_HOSTNAME_MAX
from gpukit.components.names import fit_name
from gpukit.components.pools import PoolFacts
from gpukit.providers.gcp.gke.node_pool import disk_type
from gpukit.providers.gcp.k3s.autoscaler import KUBE_ENV_KEY, ZoneGroup, kube_env, zone_groups
from gpukit.providers.gcp.k3s.iam import fetch_secrets_script, provider_id_script
from gpukit.providers.gcp.k3s.images import boot_image
from gpukit.providers.gcp.k3s.machine import (
    CLOUD_PLATFORM_SCOPE,
    gce_labels,
    guest_accelerators,
    instance_metadata,
    machine_type,
    scheduling,
    shielded_instance_config,
)
from gpukit.providers.gcp.k3s.startup_script import gce_startup_script

TYPE_TOKEN = "gpukit:index:K3sGceAgentPool"
# A managed instance group names its instances `<base_instance_name>-<4 characters>`.
MIG_INSTANCE_SUFFIX = 5
# Instance template name prefixes: longer ones get a shorter random suffix (Google provider docs).
NAME_PREFIX_MAX = 37


def base_instance_name(group_name: str) -> str:
    """What a group's machines are named after: the group adds `-xxxx` to it, and k3s `-<node id>` to
    the hostname (the instance name)."""
    return fit_name(group_name, "", CLOUD_HOSTNAME_MAX - MIG_INSTANCE_SUFFIX)


def update_policy() -> gcp.compute.InstanceGroupManagerUpdatePolicyArgsDict:
    """Template changes reach machines only as they are created (OPPORTUNISTIC): a running GPU
    machine is never replaced behind its workload's back. (A zonal group never moves machines
    between zones: there is no redistribution to turn off.)"""
    return {"type": "OPPORTUNISTIC", "minimal_action": "REPLACE"}


def lifecycle_policy() -> gcp.compute.InstanceGroupManagerInstanceLifecyclePolicyArgsDict:
    """A machine the group recreates (a deleted spot machine, a failed one) boots from the group's
    current template, as a new one does. By default a repair reuses the template the machine was
    first made from (Compute Engine, "Apply configuration updates during repairs",
    https://cloud.google.com/compute/docs/instance-groups/update-on-repair): its startup script would
    carry the pool's old labels (the node sync fixes those later), and an old join secret version or
    server address it may no longer join with. pulumi-gcp: instance_lifecycle_policy
    .force_update_on_repair YES | NO."""
    return {"force_update_on_repair": "YES"}


class K3sGceAgentPoolArgs(TypedDict):
    cluster_name: str
    region: str
    pool: PoolFacts
    """Pool facts (Python-only: built by K3sGceCluster)."""
    node: CloudNode
    """What every machine of the pool runs at first boot."""
    zones: list[str]
    """The pool's zones: one group each (those that offer a GPU pool's accelerator)."""
    subnetwork: pulumi.Input[str]
    service_account: pulumi.Input[str]
    server_urls: pulumi.Input[list[str]]
    """https://<server>:6443 of every server: a machine joins through the first that answers."""
    secret_version: pulumi.Input[str]
    tags: list[str]
    disk_labels: dict[str, str]
    """Labels on the boot disks: a VM's labels do not reach the disks made with it."""
    waits: list[pulumi.Resource]
    """What must exist before a machine boots (its secret and grant, the servers)."""


class K3sGceAgentPool(pulumi.ComponentResource):
    template_id: pulumi.Output[str]
    """The instance template's resource id (what the autoscaler's IAM condition names)."""
    groups: list[tuple[ZoneGroup, pulumi.Output[str], pulumi.Output[str]]]
    """Each zonal group, with the URL of its instance group (what the autoscaler's --nodes names) and
    its manager's resource id (what IAM conditions name)."""

    def __init__(self, name: str, args: K3sGceAgentPoolArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        cluster, pool = args["cluster_name"], args["pool"]
        group_name = f"{cluster}-{pool.name}"
        script = pulumi.Output.all(args["server_urls"], args["secret_version"]).apply(
            lambda a: gce_startup_script(
                replace(args["node"], join=agent_join(a[0])), fetch_secrets_script(a[1]), provider_id_script()
            )
        )
        template = gcp.compute.InstanceTemplate(
            f"{name}-template",
            name_prefix=fit_name(group_name, "-", NAME_PREFIX_MAX),
            description=f"k3s agents of pool {pool.name} of {cluster} (gpukit)",
            machine_type=machine_type(pool),
            guest_accelerators=cast(
                list[gcp.compute.InstanceTemplateGuestAcceleratorArgsDict], guest_accelerators(pool)
            ),
            scheduling=cast(gcp.compute.InstanceTemplateSchedulingArgsDict, scheduling(pool)),
            disks=[
                {
                    "boot": True,
                    "auto_delete": True,
                    "source_image": boot_image(pool, args["node"].driver),
                    "disk_type": disk_type(pool),
                    "disk_size_gb": pool.disk_size_gb,
                    "labels": args["disk_labels"],
                }
            ],
            network_interfaces=[{"subnetwork": args["subnetwork"]}],  # no external address: Cloud NAT
            shielded_instance_config=cast(
                gcp.compute.InstanceTemplateShieldedInstanceConfigArgsDict, shielded_instance_config(pool)
            ),
            # kube-env: the autoscaler's template node at zero (autoscaler.py kube_env), no secret.
            metadata={**instance_metadata(script), KUBE_ENV_KEY: kube_env(pool)},
            # Access is narrowed by the account's IAM roles, not by scopes.
            service_account={"email": args["service_account"], "scopes": [CLOUD_PLATFORM_SCOPE]},
            tags=args["tags"],
            labels=gce_labels(pool),
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.template_id = template.id
        self.groups = []
        for group in zone_groups(cluster, pool, args["zones"]):
            manager = gcp.compute.InstanceGroupManager(
                f"{name}-group-{group.zone.rsplit('-', 1)[-1]}",
                name=group.name,
                zone=group.zone,
                base_instance_name=base_instance_name(group.name),
                description=(
                    f"k3s agents of pool {pool.name} of {cluster} in {group.zone} (gpukit): "
                    f"{group.min_size}..{group.max_size} machines, sized by the Cluster Autoscaler"
                ),
                versions=[{"name": "gpukit", "instance_template": template.self_link_unique}],
                target_size=group.min_size,
                update_policy=update_policy(),
                instance_lifecycle_policy=lifecycle_policy(),
                wait_for_instances=False,  # machines join k3s minutes after they exist; nothing waits here
                opts=pulumi.ResourceOptions(
                    parent=self,
                    depends_on=args["waits"],
                    # The cluster autoscaler owns the size after creation: a later `pulumi up` must not
                    # reset it to minNodes.
                    ignore_changes=["targetSize"],
                    # The autoscaler's flags name the group: a replacement must delete the old group
                    # first, or fail on the name.
                    delete_before_replace=True,
                ),
            )
            self.groups.append((group, manager.instance_group, manager.id))
        self.register_outputs({"groups": [url for _, url, _ in self.groups]})

"""K3sGceAgentPool: one pool of k3s agents on Compute Engine, an instance template and a regional
managed instance group (MIG) that keeps `minNodes` machines running.

Agents are anonymous: each boots, runs gpukit's first-boot script (preflight, join secrets, k3s
agent) and registers under its instance name. The group starts at minNodes; its size then belongs
to the cluster autoscaler. maxNodes has no MIG field: it is recorded in the group's description, and
the autoscaler work (its node-group bounds per MIG) consumes it from the pool facts.
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
from gpukit.components.spec import Capacity
from gpukit.providers.gcp.gke.node_pool import disk_type
from gpukit.providers.gcp.k3s.iam import fetch_secrets_script
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


def update_policy() -> gcp.compute.RegionInstanceGroupManagerUpdatePolicyArgsDict:
    """Template changes reach machines only as they are created (OPPORTUNISTIC), or recreated after a
    failure or preemption (lifecycle_policy): a running GPU machine is never replaced or moved behind
    its workload's back. No proactive redistribution
    either: the group never deletes a machine just to even out zones (and the ANY shape of spot
    pools works only with it off)."""
    return {"type": "OPPORTUNISTIC", "minimal_action": "REPLACE", "instance_redistribution_type": "NONE"}


def lifecycle_policy() -> gcp.compute.RegionInstanceGroupManagerInstanceLifecyclePolicyArgsDict:
    """A machine the group recreates (a deleted spot machine, a failed one) boots from the group's
    current template, as a new one does. By default a repair reuses the template the machine was
    first made from (Compute Engine, "Apply configuration updates during repairs",
    https://cloud.google.com/compute/docs/instance-groups/update-on-repair): its startup script would
    carry the pool's old labels (the node sync fixes those later), and an old join secret version or
    server address it may no longer join with. pulumi-gcp: instance_lifecycle_policy
    .force_update_on_repair YES | NO."""
    return {"force_update_on_repair": "YES"}


def target_shape(pool: PoolFacts) -> str:
    """Spot: ANY zone with capacity (lowest preemption risk); on demand: BALANCED, which creates
    machines where capacity is and stays as even as that allows (GPUs are often short in a zone)."""
    return "ANY" if pool.capacity == Capacity.SPOT else "BALANCED"


class K3sGceAgentPoolArgs(TypedDict):
    cluster_name: str
    region: str
    pool: PoolFacts
    """Pool facts (Python-only: built by K3sGceCluster)."""
    node: CloudNode
    """What every machine of the pool runs at first boot."""
    zones: list[str]
    """Zones for the group (empty: the region's, picked by Compute Engine)."""
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
    group: gcp.compute.RegionInstanceGroupManager

    def __init__(self, name: str, args: K3sGceAgentPoolArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        cluster, pool = args["cluster_name"], args["pool"]
        group_name = f"{cluster}-{pool.name}"
        script = pulumi.Output.all(args["server_urls"], args["secret_version"]).apply(
            lambda a: gce_startup_script(
                replace(args["node"], join=agent_join(a[0])), fetch_secrets_script(a[1])
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
            metadata=instance_metadata(script),
            # Access is narrowed by the account's IAM roles, not by scopes.
            service_account={"email": args["service_account"], "scopes": [CLOUD_PLATFORM_SCOPE]},
            tags=args["tags"],
            labels=gce_labels(pool),
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.group = gcp.compute.RegionInstanceGroupManager(
            f"{name}-group",
            name=group_name,
            region=args["region"],
            # The group adds `-xxxx` to it, and k3s `-<node id>` to the hostname (the instance name).
            base_instance_name=fit_name(group_name, "", CLOUD_HOSTNAME_MAX - MIG_INSTANCE_SUFFIX),
            description=(
                f"k3s agents of pool {pool.name} of {cluster} (gpukit): "
                f"minNodes {pool.min_nodes}, maxNodes {pool.max_nodes}"
            ),
            versions=[{"name": "gpukit", "instance_template": template.self_link_unique}],
            distribution_policy_zones=args["zones"] or None,
            distribution_policy_target_shape=target_shape(pool),
            target_size=pool.min_nodes,
            update_policy=update_policy(),
            instance_lifecycle_policy=lifecycle_policy(),
            wait_for_instances=False,  # machines join k3s minutes after they exist; nothing waits here
            opts=pulumi.ResourceOptions(
                parent=self,
                depends_on=args["waits"],
                # The cluster autoscaler owns the size after creation: a later `pulumi up` must not
                # reset it to minNodes.
                ignore_changes=["targetSize"],
                # `<cluster>-<pool>` is how operators and the autoscaler's config find the group: a
                # replacement (other zones) must delete the old group first, or fail on the name.
                delete_before_replace=True,
            ),
        )
        self.register_outputs({"group": self.group.self_link})

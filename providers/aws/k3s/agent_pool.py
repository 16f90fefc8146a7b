"""K3sEc2AgentPool: one k3s agent pool on EC2, a launch template and the Auto Scaling group it feeds.

Every machine of a pool is alike, so the group starts them all from one user data; each joins the
cluster at first boot through the first server that answers, with the agents' join secret. The group
carries Cluster Autoscaler discovery and scale-from-zero tags: the autoscaler on the servers
(components/autoscaler/k3s_release.py) owns its size between minNodes and maxNodes.
"""

from dataclasses import replace
from typing import Optional, TypedDict

import pulumi
import pulumi_aws as aws

from gpukit.components.k3s.cloud_init import CloudNode
from gpukit.components.k3s.host_scripts import agent_join
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import Capacity
from gpukit.providers.aws.autoscaling import autoscaler_discovery_tags, autoscaler_node_template_tags
from gpukit.providers.aws.k3s.autoscaler import group_name_prefix
from gpukit.providers.aws.k3s.iam import fetch_secrets_script, provider_id_script, release_identity_script
from gpukit.providers.aws.k3s.images import k3s_image
from gpukit.providers.aws.k3s.launch import node_launch_template
from gpukit.providers.aws.k3s.spot_notice import spot_notice_services
from gpukit.providers.aws.k3s.user_data import ec2_user_data, node_user_data
from gpukit.providers.aws.provider import CLUSTER_TAG

TYPE_TOKEN = "gpukit:index:K3sEc2AgentPool"
# Spot: the cheapest pools least likely to be reclaimed soon (EC2 Auto Scaling user guide,
# "Allocation strategies for multiple instance types"), never an on-demand instance.
SPOT_ALLOCATION_STRATEGY = "price-capacity-optimized"


class K3sEc2AgentPoolArgs(TypedDict):
    cluster_name: str
    pool: PoolFacts
    """Pool facts (Python-only: this component is internal to K3sEc2Cluster)."""
    node: CloudNode
    """What every machine of the pool runs at first boot."""
    region: str
    server_urls: pulumi.Input[list[str]]
    """https://<server>:6443 of every server."""
    secret_arn: pulumi.Input[str]
    secret_version_id: pulumi.Input[str]
    instance_profile_arn: pulumi.Input[str]
    security_group_id: pulumi.Input[str]
    subnet_ids: pulumi.Input[list[str]]
    tags: dict[str, str]
    """Put on the instances and their volumes."""
    expiry_tags: dict[str, str]
    """An ephemeral stack's expiry tag (empty otherwise), also on the Auto Scaling group."""
    boot_after: list[pulumi.Resource]
    """What must exist before a machine boots: the join secret's value and the grant to read it."""


def group_tags(
    cluster_name: str, pool: PoolFacts, expiry: dict[str, str]
) -> list[aws.autoscaling.GroupTagArgsDict]:
    """The group's own tags: autoscaler discovery and scale-from-zero hints stay on the group; the
    Name, the cluster and an ephemeral stack's expiry (`expiry`, empty otherwise) go to every instance
    it launches too.

    The provider's default tags never reach an Auto Scaling group (it takes a list of tags with
    PropagateAtLaunch, not the tag map default tags merge into: terraform-aws-eks#1916, and
    developer.hashicorp.com/terraform/tutorials/aws/aws-default-tags, "Propagate default tags to Auto
    Scaling group"), so the group carries gpukit:cluster and the expiry itself, to be found by them like
    every other resource. Propagating them repeats what the launch template already tags the instances
    with (same values; on a collision the group's value wins: EC2 Auto Scaling user guide, "Tag Auto
    Scaling groups and instances", EC2 instance tagging lifecycle)."""
    hints = {**autoscaler_discovery_tags(cluster_name), **autoscaler_node_template_tags(pool.labels, pool)}
    tags: list[aws.autoscaling.GroupTagArgsDict] = [
        {"key": k, "value": v, "propagate_at_launch": False} for k, v in hints.items()
    ]
    tags.append({"key": "Name", "value": f"{cluster_name}-{pool.name}", "propagate_at_launch": True})
    for key, value in {CLUSTER_TAG: cluster_name, **expiry}.items():
        tags.append({"key": key, "value": value, "propagate_at_launch": True})
    return tags


class K3sEc2AgentPool(pulumi.ComponentResource):
    group_name: pulumi.Output[str]

    def __init__(self, name: str, args: K3sEc2AgentPoolArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        pool = args["pool"]
        cluster = args["cluster_name"]
        node = args["node"]
        region = args["region"]
        user_data = pulumi.Output.all(
            pulumi.Output.from_input(args["server_urls"]),
            pulumi.Output.from_input(args["secret_arn"]),
            pulumi.Output.from_input(args["secret_version_id"]),
        ).apply(
            lambda a: ec2_user_data(
                node_user_data(
                    replace(node, join=agent_join(a[0])),
                    fetch_secrets_script(region, a[1], a[2]),
                    release_identity_script(region),
                    provider_id_script(),
                    spot_notice_services(pool, node.shutdown),
                )
            )
        )

        template = node_launch_template(
            f"{name}-lt",
            description=f"gpukit k3s agent pool {pool.name} of {cluster}",
            image=k3s_image(pool.instance.arch, pool.is_gpu, node.driver),
            instance_type=pool.instance.name,
            disk_size_gb=pool.disk_size_gb,
            instance_profile_arn=args["instance_profile_arn"],
            security_group_ids=[args["security_group_id"]],
            user_data=user_data,
            tags=args["tags"],
            # A spot machine powers itself off ahead of its interruption (spot_notice.py): terminate
            # it then, rather than EC2's default of stopping it, so the group replaces it at once.
            shutdown_behavior="terminate" if pool.capacity == Capacity.SPOT else None,
            opts=pulumi.ResourceOptions(parent=self),
        )
        version = template.latest_version.apply(str)
        spot = pool.capacity == Capacity.SPOT
        group = aws.autoscaling.Group(
            f"{name}-asg",
            name_prefix=group_name_prefix(cluster, pool),
            min_size=pool.min_nodes,
            max_size=pool.max_nodes,
            # Created at min size; afterwards the Cluster Autoscaler owns it (ignored below).
            desired_capacity=pool.min_nodes,
            vpc_zone_identifiers=args["subnet_ids"],
            launch_template=None if spot else {"id": template.id, "version": version},
            mixed_instances_policy=(
                {
                    "instances_distribution": {
                        "on_demand_base_capacity": 0,
                        "on_demand_percentage_above_base_capacity": 0,
                        "spot_allocation_strategy": SPOT_ALLOCATION_STRATEGY,
                    },
                    "launch_template": {
                        "launch_template_specification": {
                            "launch_template_id": template.id,
                            "version": version,
                        },
                        # Every type has the pool's GPUs (validated): more spot capacity pools, same node.
                        "overrides": [{"instance_type": name} for name in pool.instance_type_names],
                    },
                }
                if spot
                else None
            ),
            # Spot: start a replacement when EC2 signals a raised interruption risk, before the
            # two-minute notice.
            capacity_rebalance=True if spot else None,
            tags=group_tags(cluster, pool, args["expiry_tags"]),
            # Machines join k3s minutes after EC2 reports them running; nothing here waits on that.
            wait_for_capacity_timeout="0",
            opts=pulumi.ResourceOptions(
                parent=self, depends_on=args["boot_after"], ignore_changes=["desiredCapacity"]
            ),
        )

        self.group_name = group.name
        self.register_outputs({"group_name": self.group_name})

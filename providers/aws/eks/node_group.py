"""EksNodePool: one EKS managed node group with its launch template and scale-from-zero tags."""

from collections.abc import Sequence
from typing import Optional, TypedDict, cast

import pulumi
import pulumi_aws as aws

from gpukit.components.pools import PoolFacts
from gpukit.components.spec import Capacity
from gpukit.providers.aws.autoscaling import autoscaler_discovery_tags, autoscaler_node_template_tags
from gpukit.providers.aws.efa import EfaNetwork, efa_layout, launch_template_interfaces
from gpukit.providers.aws.eks.images import eks_image
from gpukit.providers.aws.eks.labels import pool_labels
from gpukit.providers.aws.eks.scaling import Scaling

TYPE_TOKEN = "gpukit:index:EksNodePool"

_TAINT_EFFECTS = {
    "NoSchedule": "NO_SCHEDULE",
    "NoExecute": "NO_EXECUTE",
    "PreferNoSchedule": "PREFER_NO_SCHEDULE",
}


class EksNodePoolArgs(TypedDict):
    cluster_name: pulumi.Input[str]
    autoscaler_cluster_name: str
    """The cluster's name as a plain string: it is part of tag keys, which cannot wait on outputs."""
    node_role_arn: pulumi.Input[str]
    subnet_ids: pulumi.Input[Sequence[pulumi.Input[str]]]
    kubernetes_version: str
    pool: PoolFacts
    """Pool facts from components/pools.py (Python-only: this component is internal to EksCluster)."""
    name_prefix: str
    """The node group's name prefix: `<pool>-` or, for one zone of a GPU pool, `<pool>-<AZ ID>-`."""
    scaling: Scaling
    """This group's share of the pool's minNodes/maxNodes, and its desired size (eks/scaling.py)."""
    instance_tags: dict[str, str]
    """Tags for the instances and volumes the launch template starts besides the pool's own (an
    ephemeral stack's expiry), also put on the autoscaling group EKS makes: the provider's default tags
    reach none of them."""
    wait_for: list[pulumi.Resource]
    """What the node group itself waits for (the node role's grants, the network add-ons): a
    component's depends_on does not reach its children."""
    efa: Optional[EfaNetwork]
    """An EFA pool's placement group and security groups (providers/aws/efa.py); None elsewhere."""


class EksNodePool(pulumi.ComponentResource):
    node_group_name: pulumi.Output[str]
    autoscaling_group_name: pulumi.Output[str]

    def __init__(self, name: str, args: EksNodePoolArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        pool = args["pool"]
        image = eks_image(pool.node_image, pool.instance.arch, pool.is_gpu)
        labels = pool_labels(pool)
        # An EFA pool: its EFA interfaces (efa.py says which layout and why) and its cluster placement
        # group, which keeps the nodes close (EFA traffic stays within one zone). A managed node group
        # has no placement argument of its own: it comes with the template.
        efa = args["efa"]
        interfaces = (
            cast(
                "list[aws.ec2.LaunchTemplateNetworkInterfaceArgsDict]",
                launch_template_interfaces(efa_layout(pool.fabric.interfaces), efa.security_groups),
            )
            if efa is not None and pool.fabric is not None
            else None
        )
        placement: aws.ec2.LaunchTemplatePlacementArgsDict | None = (
            {"group_name": efa.placement_group} if interfaces and efa else None
        )
        launch_template = aws.ec2.LaunchTemplate(
            f"{name}-lt",
            description=f"gpukit node pool {pool.name}",
            # IMDSv2 only, and a hop limit of 1 so pods cannot reach the node role's credentials
            # through the metadata service; in-cluster AWS access goes through EKS Pod Identity.
            metadata_options={
                "http_endpoint": "enabled",
                "http_tokens": "required",
                "http_put_response_hop_limit": 1,
            },
            block_device_mappings=[
                {
                    "device_name": image.data_device,
                    "ebs": {
                        "volume_size": pool.disk_size_gb,
                        "volume_type": "gp3",
                        "encrypted": "true",
                        "delete_on_termination": "true",
                    },
                }
            ],
            tag_specifications=[
                {
                    "resource_type": "instance",
                    "tags": {"Name": f"{pool.name}", "gpukit:pool": pool.name, **args["instance_tags"]},
                },
                {"resource_type": "volume", "tags": {"gpukit:pool": pool.name, **args["instance_tags"]}},
            ],
            update_default_version=True,
            network_interfaces=interfaces,
            placement=placement,
            opts=child,
        )

        size = args["scaling"]
        node_group = aws.eks.NodeGroup(
            f"{name}-ng",
            cluster_name=args["cluster_name"],
            node_group_name_prefix=args["name_prefix"],
            node_role_arn=args["node_role_arn"],
            subnet_ids=args["subnet_ids"],
            version=args["kubernetes_version"],
            ami_type=image.ami_type,
            capacity_type="SPOT" if pool.capacity == Capacity.SPOT else "ON_DEMAND",
            # Spot pools may list alternatives of the same size and GPUs: more capacity pools to draw on.
            instance_types=list(pool.instance_type_names),
            # Created at min size; afterwards the Cluster Autoscaler owns desired size (ignored below),
            # unless the group's current size lies outside new bounds (eks/scaling.py).
            scaling_config={
                "min_size": size.min_size,
                "max_size": size.max_size,
                "desired_size": size.desired_size,
            },
            update_config={"max_unavailable": 1},
            labels=labels,
            taints=[
                {"key": t.key, "value": t.value, "effect": _TAINT_EFFECTS[t.effect]} for t in pool.taints
            ],
            launch_template={"id": launch_template.id, "version": launch_template.latest_version.apply(str)},
            opts=pulumi.ResourceOptions(
                parent=self,
                depends_on=args["wait_for"],
                ignore_changes=["scalingConfig.desiredSize"] if size.autoscaler_owns_desired else [],
            ),
        )
        # Managed node groups do not copy their tags to the autoscaling group behind them; the
        # autoscaler reads scale-from-zero templates from the group itself, so tag it directly.
        asg_name = node_group.resources.apply(_autoscaling_group_name)
        discovery = autoscaler_discovery_tags(args["autoscaler_cluster_name"])
        named_tags = [
            # Stable resource names: the owner tag's key contains the cluster name.
            *zip(("discovery-enabled", "discovery-owner"), discovery.items(), strict=True),
            *((_slug(k), (k, v)) for k, v in autoscaler_node_template_tags(labels, pool).items()),
        ]
        # An ephemeral stack's expiry too, so the group is found by it like everything else. Default
        # tags never reach an autoscaling group (terraform-aws-eks#1916; developer.hashicorp.com/terraform/
        # tutorials/aws/aws-default-tags#propagate-default-tags-to-auto-scaling-group), and EKS
        # does not copy the node group's. Not propagated: the launch template tags the instances.
        named_tags += [(_slug(k), (k, v)) for k, v in args["instance_tags"].items()]
        for suffix, (key, value) in named_tags:
            aws.autoscaling.Tag(
                f"{name}-asg-tag-{suffix}",
                autoscaling_group_name=asg_name,
                tag={"key": key, "value": value, "propagate_at_launch": False},
                opts=child,
            )

        self.node_group_name = node_group.node_group_name
        self.autoscaling_group_name = asg_name
        self.register_outputs(
            {
                "node_group_name": self.node_group_name,
                "autoscaling_group_name": self.autoscaling_group_name,
            }
        )


def _autoscaling_group_name(resources: Sequence[aws.eks.outputs.NodeGroupResource] | None) -> str:
    groups = [asg for r in resources or [] for asg in (r.autoscaling_groups or [])]
    if not groups or not groups[0].name:
        raise pulumi.RunError("EKS reported no autoscaling group for a node group")
    return str(groups[0].name)


def _slug(tag_key: str) -> str:
    """A resource-name-safe, unique suffix for an autoscaler tag key."""
    tail = tag_key.removeprefix("k8s.io/cluster-autoscaler/node-template/")
    return tail.replace("/", "-").replace(".", "-")

"""The AWS resources an EKS cluster's EFA pools launch into: one security group open to itself for the
cluster, and a cluster placement group per pool (the interfaces themselves are the pool's launch
template or EC2NodeClass, providers/aws/efa.py).

- The security group: "To enable OS-bypass functionality, the EFA must be a member of a security group
  that allows all inbound and outbound traffic to and from the security group itself" (EC2 user guide,
  create-efa). gpukit's own group with exactly those two rules, next to the cluster security group
  (which EKS manages and may change), on every interface of an EFA node. Nothing else is in it, so it
  opens nothing beyond EFA nodes to each other.
- A cluster placement group per pool: "All instances that use an EFA must be in the same cluster
  placement group" (AWS Batch user guide, efa) and EFA traffic does not cross zones (ParallelCluster
  user guide, efa-v3; the EKS user guide, node-efa, for EFA-only interfaces). Per pool, not per
  cluster: a placement group lives in the one zone its first instance picked, and two pools may pin
  different zones.
"""

from collections.abc import Sequence

import pulumi
import pulumi_aws as aws

from gpukit.components.pools import PoolFacts
from gpukit.providers.aws.efa import EfaNetwork


def efa_networks(
    name: str,
    pools: Sequence[PoolFacts],
    *,
    vpc_id: pulumi.Input[str],
    cluster_security_group: pulumi.Input[str],
    opts: pulumi.ResourceOptions,
) -> dict[str, EfaNetwork]:
    """Pool name -> what its EFA nodes launch into, for every pool with an EFA fabric (none: nothing is
    created)."""
    efa_pools = [pool for pool in pools if pool.fabric is not None]
    if not efa_pools:
        return {}
    group = aws.ec2.SecurityGroup(
        f"{name}-efa",
        vpc_id=vpc_id,
        description="EFA: all traffic between the cluster's EFA nodes (gpukit)",
        opts=opts,
    )
    rules = (("in", aws.vpc.SecurityGroupIngressRule), ("out", aws.vpc.SecurityGroupEgressRule))
    for direction, rule in rules:
        rule(
            f"{name}-efa-self-{direction}",
            security_group_id=group.id,
            referenced_security_group_id=group.id,
            ip_protocol="-1",
            description="EFA OS-bypass traffic within the group",
            opts=opts,
        )
    networks: dict[str, EfaNetwork] = {}
    for pool in efa_pools:
        placement = aws.ec2.PlacementGroup(f"{name}-{pool.name}-pg", strategy="cluster", opts=opts)
        networks[pool.name] = EfaNetwork(
            placement_group=placement.name, security_groups=[cluster_security_group, group.id]
        )
    return networks

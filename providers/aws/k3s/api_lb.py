"""K3sEc2ApiLoadBalancer: the stable address of a k3s cluster's API on EC2, a Network Load Balancer
on TCP 6443 in front of the servers (TLS passes through to k3s)."""

from typing import Optional, TypedDict

import pulumi
import pulumi_aws as aws

from gpukit.components.api_access import needs_public_endpoint
from gpukit.components.k3s.host_scripts import API_PORT

TYPE_TOKEN = "gpukit:index:K3sEc2ApiLoadBalancer"
# Load balancer and target group names hold 32 characters, too few for Pulumi's auto-name of a long
# cluster's resource names. With a prefix (6 characters at most) the provider fills the 32 with a unique
# id: every name fits, and a replacement (the load balancer turning internet-facing, a new VPC) creates
# the new one before it deletes the old, so the API and the listener keep a target group throughout.
# (terraform-provider-aws internal/service/elbv2/validate.go, validNamePrefix.) The Name tag says whose.
NAME_PREFIX = "k3s-"


def api_lb_internal(api_access_cidrs: list[str]) -> bool:
    """Internal when every client range is private address space or there is none (reachable from
    the VPC only); internet-facing as soon as one range is public (components/api_access.py)."""
    return not needs_public_endpoint(api_access_cidrs)


class K3sEc2ApiLoadBalancerArgs(TypedDict):
    cluster_name: str
    vpc_id: pulumi.Input[str]
    api_access_cidrs: list[str]
    private_subnet_ids: pulumi.Input[list[str]]
    public_subnet_ids: Optional[pulumi.Input[list[str]]]
    """Needed only when the load balancer is internet-facing."""
    security_group_id: pulumi.Input[str]


class K3sEc2ApiLoadBalancer(pulumi.ComponentResource):
    dns_name: pulumi.Output[str]
    target_group_arn: pulumi.Output[str]
    """Where the servers register (TCP 6443, by instance)."""
    internal: bool

    def __init__(
        self, name: str, args: K3sEc2ApiLoadBalancerArgs, opts: Optional[pulumi.ResourceOptions] = None
    ):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        cluster = args["cluster_name"]
        self.internal = api_lb_internal(args["api_access_cidrs"])
        subnets = args["private_subnet_ids"] if self.internal else args["public_subnet_ids"]
        if subnets is None:
            raise pulumi.RunError(
                "gpukit:cluster.network.publicSubnetIds: an internet-facing API load balancer "
                "(public apiAccessCidrs) needs public subnets"
            )

        lb = aws.lb.LoadBalancer(
            f"{name}-nlb",
            name_prefix=NAME_PREFIX,
            load_balancer_type="network",
            internal=self.internal,
            subnets=subnets,
            security_groups=[args["security_group_id"]],
            # Servers sit in one zone each and a load balancer node forwards only within its own zone
            # unless this is on: with one server, every other zone's address would refuse the API.
            enable_cross_zone_load_balancing=True,
            tags={"Name": f"{cluster}-api"},
            opts=child,
        )
        target_group = aws.lb.TargetGroup(
            f"{name}-servers",
            name_prefix=NAME_PREFIX,
            port=API_PORT,
            protocol="TCP",
            target_type="instance",
            vpc_id=args["vpc_id"],
            # Off, so traffic reaches the servers from the load balancer's addresses and the servers'
            # group can admit it by the load balancer's group (providers/aws/k3s/security.py).
            preserve_client_ip="false",
            deregistration_delay=30,  # long-lived watches reconnect to another server anyway
            health_check={
                "protocol": "TCP",
                "port": "traffic-port",
                "healthy_threshold": 3,
                "unhealthy_threshold": 3,
                "interval": 10,
            },
            tags={"Name": f"{cluster}-api"},
            opts=child,
        )
        aws.lb.Listener(
            f"{name}-listener",
            load_balancer_arn=lb.arn,
            port=API_PORT,
            protocol="TCP",
            default_actions=[{"type": "forward", "target_group_arn": target_group.arn}],
            opts=child,
        )

        self.dns_name = lb.dns_name
        self.target_group_arn = target_group.arn
        self.register_outputs({"dns_name": self.dns_name, "target_group_arn": self.target_group_arn})

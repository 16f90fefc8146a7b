"""K3sEc2SecurityGroups: who may reach which port of a k3s cluster on EC2, as one table.

Three groups: `nodes` (every instance), `servers` (the control plane, in `nodes` too) and `api-lb`
(the API load balancer). Rules only ever name one of these groups or a CIDR the stack lists in
`apiAccessCidrs`: nothing is open to 0.0.0.0/0 unless the config says so. Ports from the k3s
requirements ("Inbound Rules for K3s Nodes", docs.k3s.io/installation/requirements).
"""

import ipaddress
from dataclasses import dataclass
from enum import Enum
from typing import NotRequired, Optional, TypedDict

import pulumi
import pulumi_aws as aws

from gpukit.components.addons.inference.gateway_names import GATEWAY_NODE_PORT
from gpukit.components.k3s.host_scripts import API_PORT

TYPE_TOKEN = "gpukit:index:K3sEc2SecurityGroups"


class Group(str, Enum):
    NODES = "nodes"
    SERVERS = "servers"
    API_LB = "api-lb"


@dataclass(frozen=True)
class IngressRule:
    group: Group
    """The group the rule is on (what is reached)."""
    protocol: str
    from_port: int
    to_port: int
    description: str
    source_group: Group | None = None
    cidr: str | None = None

    @property
    def slug(self) -> str:
        """A stable, resource-name-safe id: the same rule keeps its Pulumi name across runs."""
        ports = str(self.from_port) if self.from_port == self.to_port else f"{self.from_port}-{self.to_port}"
        source = self.source_group.value if self.source_group else _cidr_slug(self.cidr or "")
        return f"{self.group.value}-{self.protocol}-{ports}-from-{source}"


def _cidr_slug(cidr: str) -> str:
    return cidr.replace(".", "-").replace(":", "-").replace("/", "-")


def ingress_rules(api_access_cidrs: list[str], gateway_ranges: list[str] | None = None) -> list[IngressRule]:
    """Every inbound rule of the cluster, in a fixed order; `gateway_ranges`: who reaches the inference
    Gateway's node port (components/addons/inference), none without it."""
    rules = [
        IngressRule(Group.NODES, "udp", 8472, 8472, "flannel VXLAN between nodes", source_group=Group.NODES),
        IngressRule(Group.NODES, "tcp", 10250, 10250, "kubelet (logs, exec, metrics)", Group.NODES),
        IngressRule(
            Group.SERVERS, "tcp", API_PORT, API_PORT, "k3s supervisor and API from nodes", Group.NODES
        ),
        # The load balancer does not keep client addresses (target group preserve_client_ip false),
        # so servers see its own addresses: this rule, not the callers' CIDRs, admits API clients.
        IngressRule(Group.SERVERS, "tcp", API_PORT, API_PORT, "API through the load balancer", Group.API_LB),
        IngressRule(Group.SERVERS, "tcp", 2379, 2380, "embedded etcd between servers", Group.SERVERS),
    ]
    rules += [
        IngressRule(Group.API_LB, "tcp", API_PORT, API_PORT, "Kubernetes API (apiAccessCidrs)", cidr=cidr)
        for cidr in dict.fromkeys(api_access_cidrs)  # once each, in config order
    ]
    rules += [
        IngressRule(
            Group.NODES,
            "tcp",
            GATEWAY_NODE_PORT,
            GATEWAY_NODE_PORT,
            "inference Gateway's node port (allowedCidrs, or the VPC)",
            cidr=cidr,
        )
        for cidr in dict.fromkeys(gateway_ranges or [])
    ]
    return rules


class K3sEc2SecurityGroupsArgs(TypedDict):
    cluster_name: str
    vpc_id: pulumi.Input[str]
    api_access_cidrs: list[str]
    gateway_ranges: NotRequired[list[str]]
    """Who reaches the inference Gateway's node port; absent without it."""


class K3sEc2SecurityGroups(pulumi.ComponentResource):
    """Groups without inline rules, then one rule resource each: a changed rule is replaced alone."""

    ids: dict[Group, pulumi.Output[str]]

    def __init__(
        self, name: str, args: K3sEc2SecurityGroupsArgs, opts: Optional[pulumi.ResourceOptions] = None
    ):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        cluster = args["cluster_name"]
        groups = {
            group: aws.ec2.SecurityGroup(
                f"{name}-{group.value}",
                vpc_id=args["vpc_id"],
                description=f"gpukit k3s {group.value} of {cluster}",
                tags={"Name": f"{cluster}-{group.value}"},
                opts=child,
            )
            for group in Group
        }
        for rule in ingress_rules(args["api_access_cidrs"], args.get("gateway_ranges")):
            source = rule.source_group
            ipv6 = rule.cidr is not None and ipaddress.ip_network(rule.cidr, strict=False).version == 6
            aws.vpc.SecurityGroupIngressRule(
                f"{name}-{rule.slug}",
                security_group_id=groups[rule.group].id,
                ip_protocol=rule.protocol,
                from_port=rule.from_port,
                to_port=rule.to_port,
                referenced_security_group_id=groups[source].id if source else None,
                cidr_ipv4=rule.cidr if rule.cidr and not ipv6 else None,
                cidr_ipv6=rule.cidr if ipv6 else None,
                description=rule.description,
                opts=child,
            )
        for group, sg in groups.items():
            # Nodes pull k3s, images and their join secrets from the internet (through NAT); the load
            # balancer forwards to the servers. Neither is limited on the way out.
            aws.vpc.SecurityGroupEgressRule(
                f"{name}-{group.value}-egress",
                security_group_id=sg.id,
                ip_protocol="-1",
                cidr_ipv4="0.0.0.0/0",
                description="all outbound",
                opts=child,
            )

        self.ids = {group: sg.id for group, sg in groups.items()}
        self.register_outputs({f"{g.value}_id": sg_id for g, sg_id in self.ids.items()})

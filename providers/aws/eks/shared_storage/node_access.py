"""FileSystemNodeAccess: the security group of a file system's network interfaces, open only to the
cluster's nodes on the file system's own ports."""

from typing import NotRequired, Optional, TypedDict

import pulumi
import pulumi_aws as aws

TYPE_TOKEN = "gpukit:index:FileSystemNodeAccess"


def port_slug(ports: tuple[int, int]) -> str:
    """`2049` or `1018-1023`: stable rule names, so a rule keeps its Pulumi name across runs."""
    return str(ports[0]) if ports[0] == ports[1] else f"{ports[0]}-{ports[1]}"


class FileSystemNodeAccessArgs(TypedDict):
    vpc_id: pulumi.Input[str]
    node_security_group_id: pulumi.Input[str]
    """The cluster security group: EKS puts it on every managed node group's nodes (EKS user guide,
    sec-group-reqs.adoc: "Network interfaces of the nodes in any managed node group"), and gpukit's
    Karpenter EC2NodeClasses select it for the nodes Karpenter launches (karpenter_objects.py)."""
    ports: list[tuple[int, int]]
    """TCP port ranges the file system listens on."""
    what: str
    """What the group guards, for its description (`EFS volume datasets of gpu-dev`)."""
    between_servers: NotRequired[bool]
    """The file system's servers talk to each other and to clients on the same ports (Lustre LNET): the
    group admits itself, may reach itself and the nodes, and the nodes admit it."""


class FileSystemNodeAccess(pulumi.ComponentResource):
    """No rule names a CIDR: only the nodes' group (and, for Lustre, the group itself) reach the file
    system, so nothing outside the cluster's nodes can, whatever else is in the VPC. The group is made
    without inline rules, so it has no egress at all unless `between_servers` adds some (the provider
    removes EC2's default allow-all egress rule: terraform-provider-aws aws_security_group docs)."""

    security_group_id: pulumi.Output[str]

    def __init__(
        self, name: str, args: FileSystemNodeAccessArgs, opts: Optional[pulumi.ResourceOptions] = None
    ):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        nodes = args["node_security_group_id"]
        group = aws.ec2.SecurityGroup(
            f"{name}-sg",
            vpc_id=args["vpc_id"],
            description=f"{args['what']}: from the cluster's nodes only",
            tags={"Name": f"{name}"},
            opts=child,
        )
        peers: list[tuple[str, pulumi.Input[str]]] = [("nodes", nodes)]
        if args.get("between_servers", False):
            peers.append(("self", group.id))
        for ports in args["ports"]:
            slug = port_slug(ports)
            for peer, peer_id in peers:
                aws.vpc.SecurityGroupIngressRule(
                    f"{name}-in-{slug}-from-{peer}",
                    security_group_id=group.id,
                    referenced_security_group_id=peer_id,
                    ip_protocol="tcp",
                    from_port=ports[0],
                    to_port=ports[1],
                    description=f"{args['what']}: TCP {slug} from {peer}",
                    opts=child,
                )
                if args.get("between_servers", False):
                    aws.vpc.SecurityGroupEgressRule(
                        f"{name}-out-{slug}-to-{peer}",
                        security_group_id=group.id,
                        referenced_security_group_id=peer_id,
                        ip_protocol="tcp",
                        from_port=ports[0],
                        to_port=ports[1],
                        description=f"{args['what']}: TCP {slug} to {peer}",
                        opts=child,
                    )
            if args.get("between_servers", False):
                # Lustre servers open connections back to clients on the same ports; the cluster group
                # admits only itself by default (sec-group-reqs.adoc), so it admits the file system here.
                aws.vpc.SecurityGroupIngressRule(
                    f"{name}-nodes-in-{slug}",
                    security_group_id=nodes,
                    referenced_security_group_id=group.id,
                    ip_protocol="tcp",
                    from_port=ports[0],
                    to_port=ports[1],
                    description=f"{args['what']}: TCP {slug} from the file system",
                    opts=child,
                )
        self.security_group_id = group.id
        self.register_outputs({"security_group_id": self.security_group_id})

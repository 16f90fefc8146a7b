"""AwsNetwork: a VPC with public and private subnets over several zones and NAT for private nodes."""

from typing import NotRequired, Optional, TypedDict

import pulumi
import pulumi_aws as aws

from gpukit.components.spec import NatGateways
from gpukit.providers.aws.offerings import pick_vpc_zones
from gpukit.providers.aws.subnets import subnet_layout

TYPE_TOKEN = "gpukit:index:AwsNetwork"


class AwsNetworkArgs(TypedDict):
    cluster_name: str
    """Used in subnet tags so load balancers and Karpenter-style discovery find the subnets."""
    cidr: str
    zone_count: int
    nat_gateways: NotRequired[NatGateways]
    pinned_zone_ids: NotRequired[list[str]]
    """AZ IDs the pools pin: the VPC gets a subnet in each (then zones by name up to zone_count)."""
    excluded_zone_ids: NotRequired[list[str]]
    """AZ IDs never to fill with (EKS_UNSUPPORTED_AZ_IDS for an EKS cluster's VPC)."""
    region: NotRequired[str]
    """The provider's region, for the S3 gateway endpoint's service name (asked of AWS when left out)."""


class AwsNetwork(pulumi.ComponentResource):
    """New VPC: private subnets for nodes (egress through NAT), public subnets for NAT and LBs."""

    vpc_id: pulumi.Output[str]
    private_subnet_ids: pulumi.Output[list[str]]
    public_subnet_ids: pulumi.Output[list[str]]
    private_subnet_by_zone_id: dict[str, pulumi.Output[str]]
    """AZ ID -> the private subnet there, for node groups restricted to zones."""
    nat_gateway_count: int

    def __init__(self, name: str, args: AwsNetworkArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        cluster = args["cluster_name"]

        # Only zones that need no opt-in (local and wavelength zones have no EKS support).
        available = aws.get_availability_zones(
            state="available",
            filters=[{"name": "opt-in-status", "values": ["opt-in-not-required"]}],
            opts=pulumi.InvokeOptions(parent=self),
        )
        picked = pick_vpc_zones(
            list(zip(available.names, available.zone_ids, strict=True)),
            args["zone_count"],
            args.get("pinned_zone_ids", []),
            frozenset(args.get("excluded_zone_ids", [])),
        )
        zones = [name for name, _ in picked]
        if len(zones) < 2:
            raise pulumi.RunError(f"EKS needs two availability zones or more; this region offers {zones}")
        # Every zone of the region, whatever its state: subnet slots must not move when one is impaired.
        region_zones = aws.get_availability_zones(
            filters=[{"name": "opt-in-status", "values": ["opt-in-not-required"]}],
            opts=pulumi.InvokeOptions(parent=self),
        ).names
        try:
            layout = subnet_layout(args["cidr"], zones, region_zones)
        except ValueError as err:
            raise pulumi.RunError(f"gpukit:cluster.network: {err}") from None

        vpc = aws.ec2.Vpc(
            f"{name}-vpc",
            cidr_block=args["cidr"],
            enable_dns_support=True,
            enable_dns_hostnames=True,  # EKS private endpoint and node registration need DNS names
            tags={"Name": f"{cluster}-vpc"},
            opts=child,
        )
        igw = aws.ec2.InternetGateway(
            f"{name}-igw", vpc_id=vpc.id, tags={"Name": f"{cluster}-igw"}, opts=child
        )
        public_rt = aws.ec2.RouteTable(
            f"{name}-public-rt",
            vpc_id=vpc.id,
            routes=[{"cidr_block": "0.0.0.0/0", "gateway_id": igw.id}],
            tags={"Name": f"{cluster}-public"},
            opts=child,
        )

        public_subnets: list[aws.ec2.Subnet] = []
        private_subnets: list[aws.ec2.Subnet] = []
        for zs in layout:
            suffix = zs.zone[-1:] if zs.zone[-1:].isalpha() else zs.zone
            public = aws.ec2.Subnet(
                f"{name}-public-{suffix}",
                vpc_id=vpc.id,
                availability_zone=zs.zone,
                cidr_block=zs.public_cidr,
                map_public_ip_on_launch=False,  # nothing gpukit puts here needs a public IP of its own
                tags={
                    "Name": f"{cluster}-public-{zs.zone}",
                    "kubernetes.io/role/elb": "1",
                    f"kubernetes.io/cluster/{cluster}": "shared",
                },
                opts=child,
            )
            aws.ec2.RouteTableAssociation(
                f"{name}-public-{suffix}-rta", subnet_id=public.id, route_table_id=public_rt.id, opts=child
            )
            private = aws.ec2.Subnet(
                f"{name}-private-{suffix}",
                vpc_id=vpc.id,
                availability_zone=zs.zone,
                cidr_block=zs.private_cidr,
                tags={
                    "Name": f"{cluster}-private-{zs.zone}",
                    "kubernetes.io/role/internal-elb": "1",
                    f"kubernetes.io/cluster/{cluster}": "shared",
                },
                opts=child,
            )
            public_subnets.append(public)
            private_subnets.append(private)

        per_zone = args.get("nat_gateways", NatGateways.SINGLE) == NatGateways.PER_ZONE
        nat_ids: list[pulumi.Output[str]] = []
        private_route_tables: list[aws.ec2.RouteTable] = []
        for i in range(len(layout) if per_zone else 1):
            suffix = layout[i].zone[-1:]
            eip = aws.ec2.Eip(
                f"{name}-nat-eip-{suffix}",
                domain="vpc",
                tags={"Name": f"{cluster}-nat-{layout[i].zone}"},
                opts=child,
            )
            nat = aws.ec2.NatGateway(
                f"{name}-nat-{suffix}",
                allocation_id=eip.id,
                subnet_id=public_subnets[i].id,
                tags={"Name": f"{cluster}-nat-{layout[i].zone}"},
                opts=pulumi.ResourceOptions(parent=self, depends_on=[igw]),
            )
            nat_ids.append(nat.id)
        for i, (zs, private) in enumerate(zip(layout, private_subnets, strict=True)):
            suffix = zs.zone[-1:]
            rt = aws.ec2.RouteTable(
                f"{name}-private-rt-{suffix}",
                vpc_id=vpc.id,
                routes=[{"cidr_block": "0.0.0.0/0", "nat_gateway_id": nat_ids[i if per_zone else 0]}],
                tags={"Name": f"{cluster}-private-{zs.zone}"},
                opts=child,
            )
            aws.ec2.RouteTableAssociation(
                f"{name}-private-{suffix}-rta", subnet_id=private.id, route_table_id=rt.id, opts=child
            )
            private_route_tables.append(rt)
        # S3 through a gateway endpoint on the private route tables: free, where the NAT gateway bills
        # every GB it processes (S3 mounts, checkpoints, and ECR image layers, which ECR serves from S3).
        region = args.get("region") or aws.get_region(opts=pulumi.InvokeOptions(parent=self)).region
        aws.ec2.VpcEndpoint(
            f"{name}-s3",
            vpc_id=vpc.id,
            service_name=f"com.amazonaws.{region}.s3",
            vpc_endpoint_type="Gateway",
            route_table_ids=[rt.id for rt in private_route_tables],
            tags={"Name": f"{cluster}-s3"},
            opts=child,
        )

        self.vpc_id = vpc.id
        self.private_subnet_ids = pulumi.Output.all(*[s.id for s in private_subnets])
        self.public_subnet_ids = pulumi.Output.all(*[s.id for s in public_subnets])
        self.private_subnet_by_zone_id = {
            zone_id: subnet.id for (_, zone_id), subnet in zip(picked, private_subnets, strict=True)
        }
        self.nat_gateway_count = len(nat_ids)
        self.register_outputs(
            {
                "vpc_id": self.vpc_id,
                "private_subnet_ids": self.private_subnet_ids,
                "public_subnet_ids": self.public_subnet_ids,
            }
        )

"""`gpukit plan` fakes for AWS resources and invokes: ids, ARNs and endpoints shaped like AWS's own.

Everything the program derives from these (kubeconfig, autoscaling group tags, IAM policies, user data)
renders as it would for real. Values are stable: the same names give the same fakes in every plan.
Names are what AWS would name the resource (the explicit name, a prefix and the provider's id, or
Pulumi's auto-name), and a name AWS would refuse fails the plan (names.py).
"""

import json
import re
from collections.abc import Mapping
from typing import Any

from gpukit.components.name_rules import ResourceNameError, planned_name
from gpukit.components.plan_fakes import FAKE_CA
from gpukit.components.plan_fakes import stable_hex as _hex  # short: the fakes below are full of ids
from gpukit.providers.aws.names import AWS_NAME_RULES
from gpukit.providers.aws.offerings import (
    AZ_ID_RE,
    EKS_UNSUPPORTED_AZ_IDS,
    REGION_AZ_IDS,
    az_id_prefix,
    offered_zone_ids,
)

ACCOUNT_ID = "123456789012"
DEFAULT_REGION = "us-east-1"
# Resource id prefixes EC2 uses, by type token.
_EC2_PREFIXES = {
    "aws:ec2/vpc:Vpc": "vpc",
    "aws:ec2/subnet:Subnet": "subnet",
    "aws:ec2/internetGateway:InternetGateway": "igw",
    "aws:ec2/routeTable:RouteTable": "rtb",
    "aws:ec2/routeTableAssociation:RouteTableAssociation": "rtbassoc",
    "aws:ec2/eip:Eip": "eipalloc",
    "aws:ec2/natGateway:NatGateway": "nat",
    "aws:ec2/launchTemplate:LaunchTemplate": "lt",
    "aws:ec2/securityGroup:SecurityGroup": "sg",
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": "sgr",
    "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule": "sgr",
    "aws:ec2/instance:Instance": "i",
    "aws:ec2/networkInterface:NetworkInterface": "eni",
    # EFS file systems fs-, mount targets fsmt- (EFS API FileSystemId pattern fs-[0-9a-f]{8,40},
    # MountTargetId fsmt-[0-9a-f]{8,40}); FSx file systems fs- and 17 hex digits (FSx API FileSystemId
    # pattern ^(fs-[0-9a-f]{8,})$, e.g. fs-0199e5a63bd90f796 in aws-fsx-csi-driver's examples).
    "aws:efs/fileSystem:FileSystem": "fs",
    "aws:efs/mountTarget:MountTarget": "fsmt",
    "aws:fsx/lustreFileSystem:LustreFileSystem": "fs",
    "aws:ebs/volume:Volume": "vol",
    "aws:ec2/volumeAttachment:VolumeAttachment": "vai",
}
# CreateVolume: "gp2 and gp3: 1 - 16,384 GiB" (EC2 API reference, as providers/aws/k3s/nfs_vm_facts.py
# cites); the volume types EBS has.
PLAN_VCPU_QUOTA = 1_000_000
_EBS_SIZES = {"gp2": (1, 16384), "gp3": (1, 16384), "io1": (4, 16384), "io2": (4, 65536)}


def _pinned_prefixes(pools: Any) -> list[str]:
    """The AZ ID prefixes (`ilc1` of `ilc1-az1`) of the zones the stack's pools pin, in order."""
    if isinstance(pools, str):  # the engine's JSON form of a structured value
        try:
            pools = json.loads(pools)
        except ValueError:
            return []
    found: list[str] = []
    for pool in pools if isinstance(pools, list) else []:
        zones = pool.get("zones") if isinstance(pool, dict) else None
        for zone in zones if isinstance(zones, list) else []:
            shape = AZ_ID_RE.fullmatch(zone) if isinstance(zone, str) else None
            if shape is not None and shape["prefix"] not in found:
                found.append(shape["prefix"])
    return found


def _private_ip(name: str) -> str:
    """A stable fake private address for an EC2 instance or network interface."""
    return f"10.40.{int(_hex(name, length=2), 16) % 200}.{int(_hex(name, 'h', length=2), 16) % 250 + 2}"


_ASSUMED_ROLE = re.compile(
    r"arn:(?P<partition>[^:]+):sts::(?P<account>\d{12}):assumed-role/(?P<role>[^/]+)/(?P<session>.+)"
)


def _session_context(arn: str) -> dict[str, Any]:
    """iam.getSessionContext: an assumed role's session resolved to its role (the plan's caller is an
    IAM user, whose ARN passes through, as the data source documents)."""
    session = _ASSUMED_ROLE.fullmatch(arn)
    if session is None:
        return {"id": arn, "arn": arn, "issuerArn": arn, "issuerId": "", "issuerName": "", "sessionName": ""}
    role = f"arn:{session['partition']}:iam::{session['account']}:role/{session['role']}"
    return {
        "id": arn,
        "arn": arn,
        "issuerArn": role,
        "issuerId": f"AROA{_hex(role, length=17).upper()}",
        "issuerName": session["role"],
        "sessionName": session["session"],
    }


def _check_ebs_volume(name: str, inputs: dict[str, Any]) -> None:
    """An EBS volume EC2 would refuse fails the plan, as `pulumi up` would."""
    volume_type = inputs.get("type") or "gp2"
    if volume_type not in _EBS_SIZES:
        raise ResourceNameError(f"EBS volume {name}: type {volume_type!r} is not one of {sorted(_EBS_SIZES)}")
    low, high = _EBS_SIZES[volume_type]
    size = inputs.get("size")
    if isinstance(size, (int, float)) and not low <= size <= high:
        raise ResourceNameError(f"EBS volume {name}: {volume_type} takes {low} to {high} GiB; got {size}")


# EC2 API, LaunchTemplateInstanceNetworkInterfaceSpecificationRequest InterfaceType: "Valid values:
# interface | efa | efa-only"; the rules below are EC2's for EFA (EC2 user guide, efa-acc-inst-types:
# "You can't use an EFA-only network interface as the primary network interface"; node-efa: "You can
# assign up to one EFA per network card"; create-efa: "You can't assign an IP address to an EFA-only
# network interface"; Karpenter launchtemplate.go: with several interfaces, no public address).
_INTERFACE_TYPES = ("interface", "efa", "efa-only")
_PLACEMENT_STRATEGIES = ("cluster", "partition", "spread")


def _check_launch_template(name: str, inputs: dict[str, Any]) -> None:
    """A launch template's network interfaces EC2 would refuse fail the plan, as `pulumi up` would."""
    interfaces = inputs.get("networkInterfaces") or []
    if not interfaces:
        return
    problems: list[str] = []
    slots: list[tuple[int, int]] = []
    efa_cards: list[int] = []
    for i, nic in enumerate(interfaces):
        kind = nic.get("interfaceType") or "interface"
        slot = (int(nic.get("networkCardIndex") or 0), int(nic.get("deviceIndex") or 0))
        if kind not in _INTERFACE_TYPES:
            problems.append(
                f"networkInterfaces[{i}].interfaceType {kind!r} is not one of {list(_INTERFACE_TYPES)}"
            )
        if slot in slots:
            problems.append(f"networkInterfaces[{i}]: card {slot[0]} device {slot[1]} is taken twice")
        slots.append(slot)
        if kind in ("efa", "efa-only"):
            if slot[0] in efa_cards:
                problems.append(f"networkInterfaces[{i}]: a second EFA on network card {slot[0]}")
            efa_cards.append(slot[0])
        if kind == "efa-only" and slot == (0, 0):
            problems.append(
                "networkInterfaces: an EFA-only interface cannot be the primary (card 0, device 0)"
            )
        if kind == "efa-only" and (nic.get("ipv4PrefixCount") or nic.get("ipv4AddressCount")):
            problems.append(f"networkInterfaces[{i}]: an EFA-only interface takes no IP address")
        if str(nic.get("associatePublicIpAddress")).lower() == "true" and len(interfaces) > 1:
            problems.append(f"networkInterfaces[{i}]: no public address with several interfaces")
    if (0, 0) not in slots:
        problems.append("networkInterfaces: no primary interface (card 0, device 0)")
    if problems:
        raise ResourceNameError(f"launch template {name}: " + "; ".join(problems))


class AwsFakes:
    """providers' PlanFakes for the `aws` package."""

    package = "aws"

    def __init__(self, config: Mapping[str, Any]) -> None:
        self.region = str(config.get("aws:region") or DEFAULT_REGION)
        self.pinned_prefixes = _pinned_prefixes(config.get("gpukit:nodePools"))
        self.subnets: dict[str, dict[str, Any]] = {}
        """Subnets this plan made, by id: what getSubnet answers for them."""

    def resource(self, token: str, name: str, inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """Raises ResourceNameError for a name AWS would refuse (providers/aws/names.py)."""
        if token in _EC2_PREFIXES:
            rid = f"{_EC2_PREFIXES[token]}-{_hex(token, name)}"
        else:
            rid = f"{name}-{_hex(token, name, length=8)}"
        names = {
            rule.field: planned_name(token, name, inputs, rule) for rule in AWS_NAME_RULES.get(token, ())
        }
        named = {field: value for field, value in names.items() if value is not None}
        if token == "aws:ec2/subnet:Subnet":
            self.subnets[rid] = inputs
        if token == "aws:ebs/volume:Volume":
            _check_ebs_volume(name, inputs)
        if token == "aws:ec2/launchTemplate:LaunchTemplate":
            _check_launch_template(name, inputs)
        if (
            token == "aws:ec2/placementGroup:PlacementGroup"
            and inputs.get("strategy") not in _PLACEMENT_STRATEGIES
        ):
            raise ResourceNameError(
                f"placement group {name}: strategy {inputs.get('strategy')!r} is not one of "
                f"{list(_PLACEMENT_STRATEGIES)}"
            )
        return rid, {**named, **self._outputs(token, name, rid, {**inputs, **named})}

    def zones(self) -> list[tuple[str, str]]:
        """(name, AZ ID) of the region's zones for this fake account: the region's real AZ IDs where
        providers/aws/offerings.py lists them (else az1 to az3 of its prefix), mapped to names as an
        account in an independently mapped region might (rotated: `a` is not az1).

        A region whose AZ ID prefix has no sourced row takes the prefix of the AZ IDs the stack pins:
        the plan cannot know the account's zones there (`pulumi up` asks EC2, and the EKS substrate's
        findings say so), and a made-up prefix would refuse every pinned zone of a valid stack."""
        prefix = az_id_prefix(self.region) or next(iter(self.pinned_prefixes), "fake1")
        ids = REGION_AZ_IDS.get(self.region) or tuple(f"{prefix}-az{i}" for i in range(1, 4))
        rotated = ids[1:] + ids[:1]
        return [
            (f"{self.region}{letter}", zone_id) for letter, zone_id in zip("abcdef", rotated, strict=False)
        ]

    def invoke(self, token: str, args: dict[str, Any]) -> dict[str, Any] | None:
        if token == "aws:index/getAvailabilityZones:getAvailabilityZones":
            zones = self.zones()
            return {
                "names": [name for name, _ in zones],
                "zoneIds": [zone_id for _, zone_id in zones],
                "id": self.region,
                "groupNames": [self.region] * len(zones),
            }
        if token == "aws:ec2/getSubnet:getSubnet":
            subnet_id = str(args.get("id"))
            made = self.subnets.get(subnet_id)
            zones = self.zones()
            if made is not None:  # one this plan made: its own zone and range
                zone = str(made.get("availabilityZone"))
                zone_id = dict(zones).get(zone, "")
                return {
                    "id": subnet_id,
                    "availabilityZone": zone,
                    "availabilityZoneId": zone_id,
                    "cidrBlock": made.get("cidrBlock"),
                }
            # A reused subnet: its zone in this fake account and a range, stable per subnet id; never
            # a zone EKS refuses (the plan cannot know a reused subnet's zone, and must not invent one
            # that fails the stack: `pulumi up` asks EC2 and refuses those, offerings.py).
            usable = [z for z in zones if z[1] not in EKS_UNSUPPORTED_AZ_IDS] or zones
            name, zone_id = usable[int(_hex(subnet_id, length=4), 16) % len(usable)]
            third = int(_hex(subnet_id, "cidr", length=2), 16)
            return {
                "id": subnet_id,
                "availabilityZone": name,
                "availabilityZoneId": zone_id,
                "cidrBlock": f"10.99.{third}.0/24",
            }
        if token == "aws:servicequotas/getServiceQuota:getServiceQuota":
            # The plan has no account to ask: a quota that admits any plan (the plan's findings say
            # `pulumi up` reads the real ones, providers/aws/quotas.py).
            code = args.get("quotaCode")
            return {"id": code, "quotaCode": code, "serviceCode": "ec2", "value": PLAN_VCPU_QUOTA}
        if token == "aws:ec2/getInstanceTypeOfferings:getInstanceTypeOfferings":
            return self._offerings(args)
        if token == "aws:eks/getClusters:getClusters":
            return {"id": self.region, "names": []}  # a plan is of a new cluster: no node groups yet
        if token == "aws:eks/getAddonVersion:getAddonVersion":
            addon, version = args.get("addonName"), args.get("kubernetesVersion")
            # The version EKS names as default for this Kubernetes minor, known only to EKS.
            return {
                "id": addon,
                "addonName": addon,
                "kubernetesVersion": version,
                "version": f"default-{version}",
            }
        if token == "aws:index/getCallerIdentity:getCallerIdentity":
            return {
                "accountId": ACCOUNT_ID,
                "arn": f"arn:aws:iam::{ACCOUNT_ID}:user/gpukit-plan",
                "userId": "AIDAGPUKITPLAN",
                "id": ACCOUNT_ID,
            }
        if token == "aws:iam/getSessionContext:getSessionContext":
            return _session_context(str(args.get("arn")))
        if token == "aws:index/getPartition:getPartition":
            return {
                "partition": "aws",
                "dnsSuffix": "amazonaws.com",
                "id": "aws",
                "reverseDnsPrefix": "com.amazonaws",
            }
        return None

    def _offerings(self, args: dict[str, Any]) -> dict[str, Any]:
        """EC2's instance type offerings by AZ ID: the sourced rows of providers/aws/offerings.py, and
        for types without one every zone of the fake account (a plan cannot ask EC2; the EKS
        substrate's findings say the zones are checked at `pulumi up`)."""
        (wanted,) = [f["values"] for f in args.get("filters", []) if f.get("name") == "instance-type"]
        zone_ids = [zone_id for _, zone_id in self.zones()]
        rows = [(t, z) for t in wanted for z in (offered_zone_ids(self.region, t) or zone_ids)]
        return {
            "id": self.region,
            "locationType": args.get("locationType"),
            "instanceTypes": [t for t, _ in rows],
            "locations": [z for _, z in rows],
            "locationTypes": [args.get("locationType")] * len(rows),
        }

    def _arn(self, service: str, resource: str, *, regional: bool = True) -> str:
        region = self.region if regional else ""
        return f"arn:aws:{service}:{region}:{ACCOUNT_ID}:{resource}"

    def _outputs(self, token: str, name: str, rid: str, state: dict[str, Any]) -> dict[str, Any]:
        if token == "aws:eks/cluster:Cluster":
            cluster = state["name"]
            return {
                "arn": self._arn("eks", f"cluster/{cluster}"),
                "endpoint": f"https://{_hex(cluster, length=32).upper()}.gr7.{self.region}.eks.amazonaws.com",
                "certificateAuthority": {"data": FAKE_CA.decode()},
                # The security group EKS makes for the cluster (and gives managed node group nodes).
                "vpcConfig": {
                    **(state.get("vpcConfig") or {}),
                    "clusterSecurityGroupId": f"sg-{_hex(cluster, 'cluster-sg')}",
                },
                "status": "ACTIVE",
                "platformVersion": "eks.1",
            }
        if token == "aws:eks/nodeGroup:NodeGroup":
            # Neither name nor prefix: the provider makes one up.
            ng = state.get("nodeGroupName") or f"{name}-{_hex(name, length=26)}"
            return {
                "nodeGroupName": ng,
                "arn": self._arn("eks", f"nodegroup/{state.get('clusterName')}/{ng}/{_hex(ng, length=8)}"),
                "resources": [{"autoscalingGroups": [{"name": f"eks-{ng}-{_hex(ng, 'asg', length=8)}"}]}],
                "status": "ACTIVE",
            }
        if token == "aws:ec2/placementGroup:PlacementGroup":
            return {
                "placementGroupId": f"pg-{_hex(name, length=17)}",
                "arn": self._arn("ec2", f"placement-group/{state.get('name')}"),
            }
        if token == "aws:ec2/launchTemplate:LaunchTemplate":
            return {
                "latestVersion": 1,
                "defaultVersion": 1,
                "arn": self._arn("ec2", f"launch-template/{rid}"),
            }
        if token == "aws:iam/role:Role":
            return {"arn": self._arn("iam", f"role/{state['name']}", regional=False), "uniqueId": rid}
        if token == "aws:kms/key:Key":
            key_id = (
                f"{_hex(name, length=8)}-{_hex(name, 'a', length=4)}-{_hex(name, 'b', length=4)}-"
                f"{_hex(name, 'c', length=4)}-{_hex(name, 'd', length=12)}"
            )
            return {"keyId": key_id, "arn": self._arn("kms", f"key/{key_id}")}
        if token == "aws:ec2/eip:Eip":
            return {"publicIp": f"203.0.113.{int(_hex(name, length=2), 16) % 250 + 1}"}
        if token == "aws:eks/podIdentityAssociation:PodIdentityAssociation":
            return {"associationArn": self._arn("eks", f"podidentityassociation/{rid}"), "associationId": rid}
        if token == "aws:cloudwatch/logGroup:LogGroup":
            return {"arn": self._arn("logs", f"log-group:{state['name']}")}
        if token == "aws:sqs/queue:Queue":
            queue = state["name"]
            return {
                "arn": self._arn("sqs", queue),
                "url": f"https://sqs.{self.region}.amazonaws.com/{ACCOUNT_ID}/{queue}",
            }
        if token == "aws:cloudwatch/eventRule:EventRule":
            return {"arn": self._arn("events", f"rule/{state['name']}")}
        if token == "aws:eks/addon:Addon":
            return {
                "arn": self._arn("eks", f"addon/{state.get('addonName')}/{rid}"),
                "addonVersion": state.get("addonVersion") or "default-for-cluster-version",
            }
        if token == "aws:ec2/instance:Instance":
            ip = _private_ip(name)
            return {
                "arn": self._arn("ec2", f"instance/{rid}"),
                "privateIp": ip,
                "privateDns": f"ip-{ip.replace('.', '-')}.ec2.internal",
                "instanceState": "running",
            }
        if token == "aws:ec2/networkInterface:NetworkInterface":
            ip = _private_ip(name)
            return {"arn": self._arn("ec2", f"network-interface/{rid}"), "privateIp": ip, "privateIps": [ip]}
        if token == "aws:efs/fileSystem:FileSystem":
            # DNS name: <file-system-id>.efs.<region>.amazonaws.com (EFS guide, "Mounting EFS file systems
            # using DNS names").
            return {
                "arn": self._arn("elasticfilesystem", f"file-system/{rid}"),
                "dnsName": f"{rid}.efs.{self.region}.amazonaws.com",
                "throughputMode": state.get("throughputMode") or "bursting",
                "performanceMode": state.get("performanceMode") or "generalPurpose",
                "ownerId": ACCOUNT_ID,
            }
        if token == "aws:efs/mountTarget:MountTarget":
            fs = state.get("fileSystemId")
            return {
                "ipAddress": _private_ip(name),
                "fileSystemArn": self._arn("elasticfilesystem", f"file-system/{fs}"),
                "dnsName": f"{fs}.efs.{self.region}.amazonaws.com",
                "networkInterfaceId": f"eni-{_hex(name, 'eni')}",
                "availabilityZoneName": f"{self.region}a",
                "ownerId": ACCOUNT_ID,
            }
        if token == "aws:fsx/lustreFileSystem:LustreFileSystem":
            # DNS name <id>.fsx.<region>.amazonaws.com and an 8-character mount name (aws-fsx-csi-driver
            # examples: dnsname fs-0199e5a63bd90f796.fsx.us-east-1.amazonaws.com; FSx API
            # LustreFileSystemConfiguration MountName: "fsx" for SCRATCH_1, else a unique name).
            return {
                "arn": self._arn("fsx", f"file-system/{rid}"),
                "dnsName": f"{rid}.fsx.{self.region}.amazonaws.com",
                "mountName": _hex(name, "mount", length=8),
                "networkInterfaceIds": [f"eni-{_hex(name, 'eni')}"],
                "ownerId": ACCOUNT_ID,
            }
        if token.startswith(("aws:ec2/", "aws:vpc/")):
            return {"arn": self._arn("ec2", rid)}
        if token == "aws:lb/loadBalancer:LoadBalancer":
            lb = state["name"]
            return {
                "arn": self._arn("elasticloadbalancing", f"loadbalancer/net/{lb}/{_hex(name, length=16)}"),
                "dnsName": f"{lb}-{_hex(name, 'dns', length=16)}.elb.{self.region}.amazonaws.com",
                "zoneId": "Z26RNL4JYFTOTI",
            }
        if token == "aws:lb/targetGroup:TargetGroup":
            tg = state["name"]
            return {"arn": self._arn("elasticloadbalancing", f"targetgroup/{tg}/{_hex(name, length=16)}")}
        if token == "aws:lb/listener:Listener":
            return {"arn": self._arn("elasticloadbalancing", f"listener/net/{rid}")}
        if token == "aws:autoscaling/group:Group":
            group = state["name"]
            return {"arn": self._arn("autoscaling", f"autoScalingGroup:{rid}:autoScalingGroupName/{group}")}
        if token == "aws:iam/instanceProfile:InstanceProfile":
            return {"arn": self._arn("iam", f"instance-profile/{state['name']}", regional=False)}
        if token == "aws:secretsmanager/secret:Secret":
            return {"arn": self._arn("secretsmanager", f"secret:{state['name']}-{_hex(name, length=6)}")}
        if token == "aws:secretsmanager/secretVersion:SecretVersion":
            return {"arn": state.get("secretId"), "versionId": _hex(name, length=32)}
        return {}

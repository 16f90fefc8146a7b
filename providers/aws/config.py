"""The config keys of the AWS substrates: the provider keys they read, and the gpukit keys they take.

Which gpukit keys are substrate-specific is the schema's (components/config/schema.py); which of those
EKS and k3s on EC2 take is declared here.
"""

import re

from gpukit.components.config.schema import CLOUD_MACHINE_KEYS, CLOUD_MACHINE_REQUIRED, K3S_KEYS
from gpukit.components.substrate import ProviderSetting, SdkExtra
from gpukit.providers.aws.regions import AWS_REGIONS, AWS_REGIONS_SOURCE

AWS_SDK = SdkExtra(module="pulumi_aws", extra="aws")

# us-west-2, us-gov-west-1, us-iso-east-1: the key and shape the AWS provider itself uses.
AWS_REGION = ProviderSetting(
    key="aws:region",
    attr="region",
    what="the region to build in",
    example="us-west-2",
    pattern=re.compile(r"[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-\d+"),
    shape="a region name like us-west-2",
    known=AWS_REGIONS,
    known_source=AWS_REGIONS_SOURCE,
)

_VPC_KEYS = frozenset(
    {
        "cluster.network.vpcId",
        "cluster.network.subnetIds",
        "cluster.network.zoneCount",
        "cluster.network.natGateways",
    }
)
_AWS_KEYS = _VPC_KEYS | {"cluster.tags"}

EKS_KEYS = (
    CLOUD_MACHINE_KEYS
    | _AWS_KEYS
    | {
        "cluster.adminPrincipalArns",
        "cluster.supportType",
        "cluster.logRetentionDays",
        "cluster.autoscaler",
        "cluster.podSecurity",
        "nodePools.nodeImage",
        "nodePools.sharing",
        "nodePools.zones",
        "nodePools.alternativeInstanceTypes",
        "nodePools.interconnect",
    }
)
K3S_EC2_KEYS = (
    CLOUD_MACHINE_KEYS
    | K3S_KEYS
    | _AWS_KEYS
    | {"cluster.network.publicSubnetIds", "nodePools.alternativeInstanceTypes", "cluster.adminPrincipalArns"}
)
REQUIRED_KEYS = CLOUD_MACHINE_REQUIRED

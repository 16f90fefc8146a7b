"""The AWS substrates: EKS with managed node groups, and k3s on EC2 instances.

Pure: building (build) imports pulumi_aws, and nothing else here does, so planning or validating a
stack on another cloud never needs the AWS SDK.
"""

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from gpukit.components.addons.batch.variant import BATCH, CLUSTER_AUTOSCALER_BATCH
from gpukit.components.addons.inference.variant import INFERENCE
from gpukit.components.addons.interconnect.variant import INTERCONNECT
from gpukit.components.addons.pod_security.variant import POD_SECURITY, LabelledNamespaces
from gpukit.components.addons.storage.variant import STORAGE
from gpukit.components.autoscaler.fallback import spot_fallback_findings
from gpukit.components.catalog.fabrics import FabricKind
from gpukit.components.errors import Problem
from gpukit.components.findings import Finding, Severity
from gpukit.components.k3s_substrates import K3sCloudSubstrate
from gpukit.components.node_software import GpuNodeSoftware
from gpukit.components.plan_fakes import PlanFakes
from gpukit.components.pools import GPU_TAINT_VALUE, PoolFacts, settle_fabric
from gpukit.components.pricing import Charge
from gpukit.components.spec import (
    ClusterConfig,
    GpuOperatorSpec,
    NodePoolSpec,
    Platform,
    Provider,
)
from gpukit.components.substrate import ResolvedCluster, Substrate
from gpukit.components.validate.k3s import machine_arches, validate_k3s_cloud, validate_k3s_versions
from gpukit.providers.aws.autoscaling import accelerator_label
from gpukit.providers.aws.catalog import AWS_CATALOG
from gpukit.providers.aws.charges import eks_charges, k3s_ec2_charges
from gpukit.providers.aws.config import AWS_REGION, AWS_SDK, EKS_KEYS, K3S_EC2_KEYS, REQUIRED_KEYS
from gpukit.providers.aws.eks.batch_variant import EksBatch
from gpukit.providers.aws.eks.images import eks_image
from gpukit.providers.aws.eks.inference_variant import EksInference
from gpukit.providers.aws.eks.interconnect_variant import EksInterconnect
from gpukit.providers.aws.eks.karpenter_findings import karpenter_findings
from gpukit.providers.aws.eks.shared_storage.variant import EksSharedStorage
from gpukit.providers.aws.eks.software import eks_gpu_node_software
from gpukit.providers.aws.fakes import AwsFakes
from gpukit.providers.aws.k3s.images import DLAMI_DRIVER_BRANCH
from gpukit.providers.aws.k3s.nfs_variant import Ec2Nfs
from gpukit.providers.aws.k3s.spot_drain_values import spot_drain_findings
from gpukit.providers.aws.karpenter_validation import uses_karpenter, validate_karpenter_pools
from gpukit.providers.aws.limits import EKS_LIMITS
from gpukit.providers.aws.offerings import offered_zone_ids
from gpukit.providers.aws.quotas import quota_findings
from gpukit.providers.aws.tags import tag_problems
from gpukit.providers.aws.validation import (
    CONTROL_PLANE_LOGS,
    DEFAULT_LOG_RETENTION_DAYS,
    K3S_VPC_PREFIXES,
    validate_admin_principals,
    validate_alternatives,
    validate_aws_network,
    validate_eks_cluster,
    validate_eks_operator,
    validate_eks_pools,
    validate_public_subnets,
)


def aws_pool_facts(base: PoolFacts, pool: NodePoolSpec) -> PoolFacts:
    """A pool on EC2 machines (EKS and k3s alike): with its alternative instance types and, on GPU
    pools, the Cluster Autoscaler's GPU label, on the nodes and so in the scale-from-zero templates."""
    alternatives = tuple(
        AWS_CATALOG.pool_instance(name, pool.get("gpu"))
        for name in pool.get("alternative_instance_types", [])
    )
    facts = replace(
        base, alternative_instances=alternatives, labels={**base.labels, **accelerator_label(base)}
    )
    return settle_fabric(facts, pool)


if TYPE_CHECKING:
    import pulumi

    from gpukit.components.handle import ClusterHandle


class EksSubstrate(Substrate):
    platform = Platform.EKS
    provider = Provider.AWS
    name = "eks"
    title = "eks"
    where = "platform eks"
    builds_machines = True
    sdk = AWS_SDK
    settings = (AWS_REGION,)
    accepts = EKS_KEYS
    requires = REQUIRED_KEYS
    catalog = AWS_CATALOG
    gpu_taint_value = GPU_TAINT_VALUE
    limits = EKS_LIMITS
    fabrics = frozenset({FabricKind.EFA})
    addon_variants = MappingProxyType(
        {
            STORAGE: EksSharedStorage(),
            BATCH: EksBatch(),
            POD_SECURITY: LabelledNamespaces("EKS"),
            INTERCONNECT: EksInterconnect(),
            INFERENCE: EksInference(),
        }
    )

    def pool_facts(self, pool: NodePoolSpec) -> PoolFacts:
        return aws_pool_facts(super().pool_facts(pool), pool)

    def validate(self, args: ClusterConfig, pools_ok: bool) -> list[Problem]:
        problems: list[Problem] = []
        validate_eks_cluster(args["cluster"], problems)
        if pools_ok:
            validate_eks_pools(args["cluster"], args["node_pools"], problems)
            validate_karpenter_pools(args["cluster"], args["node_pools"], problems)
        problems.extend(tag_problems(args["cluster"].get("tags", {})))
        return problems

    def validate_operator(self, operator: GpuOperatorSpec) -> list[Problem]:
        return validate_eks_operator(operator)

    def gpu_node_software(self, cluster: ResolvedCluster) -> GpuNodeSoftware:
        return eks_gpu_node_software(cluster.pools)

    def preinstalled_driver_branch(self, cluster: ResolvedCluster, pool: PoolFacts) -> int | None:
        return eks_image(pool.node_image, pool.instance.arch, pool.is_gpu).driver_branch

    def newer_driver_setting(self, cluster: ResolvedCluster) -> str | None:
        # validate_eks_operator: `driver: operator` needs an Ubuntu EKS image gpukit does not build.
        return (
            "wait for an EKS NVIDIA image with a newer driver (EKS ships the driver; gpukit has no "
            "driver: operator on EKS yet)"
        )

    def charges(self, cluster: ResolvedCluster) -> list[Charge]:
        return eks_charges(cluster)

    def findings(self, cluster: ResolvedCluster) -> list[Finding]:
        """The pools Karpenter owns, spot pools without an on-demand fallback (Cluster Autoscaler), the
        GPU quotas `pulumi up` reads, and zones no sourced table vouches for (the plan cannot ask EC2,
        `pulumi up` does)."""
        region = cluster.spec["region"]
        zones = [
            Finding(
                Severity.INFO,
                f"gpukit:nodePools[{i}].zones",
                f"whether each of {', '.join(pool.zones)} offers {', '.join(types)} is not known offline; "
                "`pulumi up` asks EC2 (DescribeInstanceTypeOfferings) and stops before creating anything "
                "if one does not",
            )
            for i, pool in enumerate(cluster.pools)
            if pool.is_gpu and pool.zones
            for types in [pool.instance_type_names]
            if any(offered_zone_ids(region, t) is None for t in types)
        ]
        karpenter = uses_karpenter(cluster.spec)
        unpinned = [
            Finding(
                Severity.INFO,
                f"gpukit:nodePools[{i}].zones",
                f"left out: the VPC's zones that offer {', '.join(pool.instance_type_names)}, one node group "
                "each (as many as maxNodes allows), asked of EC2 when `pulumi up` runs; pin AZ IDs to choose",
            )
            for i, pool in enumerate(cluster.pools)
            if pool.is_gpu and not pool.zones and not karpenter and pool.fabric is None
        ]
        fallback = [] if karpenter else spot_fallback_findings(cluster.pools)
        days = cluster.spec.get("log_retention_days", DEFAULT_LOG_RETENTION_DAYS)
        logs = Finding(
            Severity.INFO,
            "gpukit:cluster.logRetentionDays",
            f"CloudWatch Logs ingests the control plane's {len(CONTROL_PLANE_LOGS)} log types "
            f"({', '.join(CONTROL_PLANE_LOGS)}) and keeps them {days} days, billed per GB ingested and "
            "stored (not in the plan's totals): the audit log grows with every API request",
        )
        return [*karpenter_findings(cluster), *fallback, *quota_findings(cluster), *zones, *unpinned, logs]

    def next_steps(self, cluster: ResolvedCluster) -> list[str]:
        return [f"# or: aws eks update-kubeconfig --name {cluster.name} --region {cluster.spec['region']}"]

    def plan_fakes(self, config: Mapping[str, Any]) -> PlanFakes:
        return AwsFakes(config)

    def build(self, name: str, cluster: ResolvedCluster, parent: "pulumi.Resource") -> "ClusterHandle":
        from gpukit.providers.aws.eks.cluster import build_eks

        return build_eks(name, cluster, parent)


class K3sEc2Substrate(K3sCloudSubstrate):
    provider = Provider.AWS
    name = "k3s-aws"
    autoscaler_provider = "aws"
    title = "k3s on aws"
    where = "k3s on aws"
    sdk = AWS_SDK
    settings = (AWS_REGION,)
    accepts = K3S_EC2_KEYS
    catalog = AWS_CATALOG
    addon_variants = MappingProxyType({STORAGE: Ec2Nfs(), BATCH: CLUSTER_AUTOSCALER_BATCH})

    def pool_facts(self, pool: NodePoolSpec) -> PoolFacts:
        """With the pool's alternative instance types (spot pools draw on more capacity pools)."""
        return aws_pool_facts(super().pool_facts(pool), pool)

    def validate(self, args: ClusterConfig, pools_ok: bool) -> list[Problem]:
        problems: list[Problem] = []
        cluster = args["cluster"]
        validate_k3s_versions(
            cluster, problems, machine_arches(args["node_pools"] if pools_ok else None, self.catalog)
        )
        validate_aws_network(cluster, problems, vpc_prefixes=K3S_VPC_PREFIXES, min_subnets=1, who="k3s")
        problems.extend(tag_problems(cluster.get("tags", {})))
        validate_admin_principals(cluster.get("admin_principal_arns", []), problems)
        validate_public_subnets(cluster, problems)
        validate_k3s_cloud(cluster, args["node_pools"] if pools_ok else None, self.catalog, problems)
        for i, pool in enumerate(args["node_pools"] if pools_ok else []):
            validate_alternatives(i, pool, problems)
        return problems

    def preinstalled_driver_branch(self, cluster: ResolvedCluster, pool: PoolFacts) -> int | None:
        return DLAMI_DRIVER_BRANCH

    def findings(self, cluster: ResolvedCluster) -> list[Finding]:
        return [
            *super().findings(cluster),
            *spot_drain_findings(cluster.pools),
            *spot_fallback_findings(cluster.pools),
            *quota_findings(cluster),
        ]

    def charges(self, cluster: ResolvedCluster) -> list[Charge]:
        return k3s_ec2_charges(cluster)

    def plan_fakes(self, config: Mapping[str, Any]) -> PlanFakes:
        return AwsFakes(config)

    def build(self, name: str, cluster: ResolvedCluster, parent: "pulumi.Resource") -> "ClusterHandle":
        from gpukit.providers.aws.k3s.cluster import build_k3s_ec2

        return build_k3s_ec2(name, cluster, parent)

"""EksCluster: an EKS control plane, its node pools and the AWS-side add-ons, for GpuCluster."""

from typing import Optional, TypedDict

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from gpukit.components.api_access import is_internal, needs_public_endpoint, public_cidrs
from gpukit.components.autoscaler.provisioning import takes_provisioning_requests
from gpukit.components.handle import ClusterHandle
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import Capacity, ClusterSpec, SupportType
from gpukit.components.substrate import ResolvedCluster
from gpukit.providers.aws.efa import vpc_cni_version_problem
from gpukit.providers.aws.eks.cluster_autoscaler import ClusterAutoscaler
from gpukit.providers.aws.eks.creator import CREATOR_TAG, cluster_creator
from gpukit.providers.aws.eks.efa_network import efa_networks
from gpukit.providers.aws.eks.karpenter import Karpenter
from gpukit.providers.aws.eks.karpenter_objects import KarpenterEfa
from gpukit.providers.aws.eks.kubeconfig import eks_kubeconfig
from gpukit.providers.aws.eks.node_group import EksNodePool
from gpukit.providers.aws.eks.pod_identity_role import pod_identity_role
from gpukit.providers.aws.eks.scaling import current_desired_size, current_desired_sizes, scaling
from gpukit.providers.aws.eks.shared_storage.context import EksStorageContext, gpu_zones
from gpukit.providers.aws.eks.storage import DEFAULT_STORAGE_CLASS, EksStorage
from gpukit.providers.aws.eks.zone_groups import GroupPlan, ZoneError, group_plans
from gpukit.providers.aws.iam_policies import (
    CLUSTER_ADMIN_ACCESS_POLICY,
    CLUSTER_ROLE_POLICIES,
    NODE_ROLE_POLICIES,
    VPC_CNI_POLICIES,
    VPC_CNI_SERVICE_ACCOUNT,
    assume_role_policy,
    kms_key_policy,
    secrets_encryption_policy,
)
from gpukit.providers.aws.karpenter_validation import uses_karpenter
from gpukit.providers.aws.offerings import EKS_UNSUPPORTED_AZ_IDS, unsupported_subnets, zones_not_offering
from gpukit.providers.aws.provider import cluster_provider, cluster_tags, expiry_tags
from gpukit.providers.aws.quotas import enforce_quotas
from gpukit.providers.aws.validation import (
    CONTROL_PLANE_LOGS,
    DEFAULT_LOG_RETENTION_DAYS,
    principal_is_caller,
    principal_key,
)
from gpukit.providers.aws.vpc import cluster_vpc, reused_subnet_zones

TYPE_TOKEN = "gpukit:index:EksCluster"
# EKS add-ons gpukit manages, so their versions follow the cluster's Kubernetes minor (EKS user guide,
# "Amazon EKS add-ons"): the network plugin and kube-proxy must run before nodes can become Ready,
# CoreDNS needs nodes to run on.
VPC_CNI_ADDON = "vpc-cni"
NODE_NETWORK_ADDONS = (VPC_CNI_ADDON, "kube-proxy")
DNS_ADDON = "coredns"


class EksClusterArgs(TypedDict):
    cluster: ResolvedCluster
    """The validated cluster (Python-only: this component is built by GpuCluster)."""


class EksCluster(pulumi.ComponentResource):
    cluster_name: pulumi.Output[str]
    endpoint: pulumi.Output[str]
    kubeconfig: pulumi.Output[str]
    handle: ClusterHandle

    def __init__(self, name: str, args: EksClusterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        spec = args["cluster"].spec
        cluster_name = spec["name"]
        region = spec["region"]
        version = spec["kubernetes_version"]

        provider = cluster_provider(name, spec, self)
        child = pulumi.ResourceOptions(parent=self, provider=provider)
        invoke = pulumi.InvokeOptions(parent=self, provider=provider)
        identity = aws.get_caller_identity(opts=invoke)
        partition = aws.get_partition(opts=invoke).partition

        # --- network: nodes and the control plane's interfaces in private subnets
        pools = args["cluster"].pools
        enforce_quotas(args["cluster"], invoke)  # before anything: a GPU quota of 0 would hang the run
        vpc_id, subnet_ids, subnets_by_zone, plans = _network(
            name, spec, pools, pulumi.ResourceOptions(parent=self, providers={"aws": provider}), invoke
        )

        # --- envelope encryption of Secrets
        key = aws.kms.Key(
            f"{name}-secrets-key",
            description=f"EKS Secrets envelope encryption for {cluster_name}",
            enable_key_rotation=True,
            deletion_window_in_days=30,
            policy=kms_key_policy(identity.account_id, partition),
            opts=child,
        )
        aws.kms.Alias(
            f"{name}-secrets-key-alias",
            name=f"alias/eks/{cluster_name}",
            target_key_id=key.key_id,
            opts=child,
        )

        # --- control plane role
        cluster_role = aws.iam.Role(
            f"{name}-cluster-role",
            assume_role_policy=assume_role_policy("eks.amazonaws.com", tag_session=True),
            description=f"EKS control plane of {cluster_name}",
            opts=child,
        )
        cluster_grants: list[pulumi.Resource] = [
            aws.iam.RolePolicyAttachment(
                f"{name}-cluster-{arn.rsplit('/', 1)[-1]}", role=cluster_role.name, policy_arn=arn, opts=child
            )
            for arn in CLUSTER_ROLE_POLICIES
        ]
        cluster_grants.append(
            aws.iam.RolePolicy(
                f"{name}-cluster-kms",
                role=cluster_role.id,
                policy=key.arn.apply(secrets_encryption_policy),
                opts=child,
            )
        )

        # --- control-plane logs: gpukit's own group, with a retention, made before the cluster so EKS
        # never creates an unmanaged one that keeps events forever (EKS user guide, "Send control plane
        # logs to CloudWatch Logs": the group is /aws/eks/<cluster>/cluster); removed on destroy.
        log_group = aws.cloudwatch.LogGroup(
            f"{name}-control-plane-logs",
            name=f"/aws/eks/{cluster_name}/cluster",
            retention_in_days=spec.get("log_retention_days", DEFAULT_LOG_RETENTION_DAYS),
            opts=child,
        )

        # Private ranges reach the API through the private endpoint (inside the VPC, peering or VPN);
        # the public endpoint exists only for public ranges, and admits only those.
        access = spec["api_access_cidrs"]
        public = public_cidrs(access)
        support = spec.get("support_type", SupportType.STANDARD)
        # Asked once: the creator tag and the node groups' sizes are read only from a cluster that exists.
        exists = cluster_name in aws.eks.get_clusters(opts=invoke).names
        creator = cluster_creator(cluster_name, exists, identity.arn, invoke)
        cluster = aws.eks.Cluster(
            f"{name}-eks",
            # Fixed: IAM conditions and autoscaler discovery are keyed on it. No delete_before_replace:
            # a replaced control plane is a new, empty cluster; created first, it fails on the name
            # before the old one (and its node groups) are deleted.
            name=cluster_name,
            role_arn=cluster_role.arn,
            version=version,
            vpc_config={
                "subnet_ids": subnet_ids,
                "endpoint_private_access": True,
                "endpoint_public_access": needs_public_endpoint(access),
                "public_access_cidrs": public or None,
            },
            # Explicit: STANDARD ends in an automatic upgrade when the minor leaves standard support;
            # EXTENDED keeps the minor 12 more months at $0.60 instead of $0.10 per hour.
            upgrade_policy={"support_type": support.value.upper()},
            access_config={
                "authentication_mode": "API",
                "bootstrap_cluster_creator_admin_permissions": True,
            },
            enabled_cluster_log_types=CONTROL_PLANE_LOGS,
            encryption_config={"provider": {"key_arn": key.arn}, "resources": ["secrets"]},
            # Written at creation, never updated: the creator owns EKS's own admin entry (creator.py).
            tags={CREATOR_TAG: creator},
            opts=pulumi.ResourceOptions(
                parent=self,
                provider=provider,
                depends_on=[*cluster_grants, log_group],
                ignore_changes=[f'tags["{CREATOR_TAG}"]'],
            ),
        )
        _private_api_access(name, cluster, access, child)
        _admin_entries(name, cluster, spec.get("admin_principal_arns", []), creator, child)

        # --- nodes
        node_role = aws.iam.Role(
            f"{name}-node-role",
            assume_role_policy=assume_role_policy("ec2.amazonaws.com"),
            description=f"EKS nodes of {cluster_name}",
            opts=child,
        )
        node_grants = [
            aws.iam.RolePolicyAttachment(
                f"{name}-node-{arn.rsplit('/', 1)[-1]}", role=node_role.name, policy_arn=arn, opts=child
            )
            for arn in NODE_ROLE_POLICIES
        ]
        pod_identity_agent, node_network = _node_network(name, cluster, version, provider, self, invoke)
        efa = efa_networks(
            name,
            pools,
            vpc_id=vpc_id,
            cluster_security_group=cluster.vpc_config.cluster_security_group_id,
            opts=child,
        )
        sizes = current_desired_sizes(cluster_name, exists, invoke)
        # Karpenter launches the GPU pools' nodes itself: they get no node group (the zone plans above
        # still check their pinned zones against the VPC).
        node_pools: list[tuple[PoolFacts, EksNodePool]] = []
        for pool, groups in zip(pools, plans, strict=True):
            if pool.is_gpu and uses_karpenter(spec):
                continue
            for group in groups:
                node_pool = EksNodePool(
                    f"{name}-{pool.name}{group.resource_suffix}",
                    {
                        "cluster_name": cluster.name,
                        "autoscaler_cluster_name": cluster_name,
                        "node_role_arn": node_role.arn,
                        "subnet_ids": (
                            [s for zone in group.zone_ids for s in _zone_subnets(subnets_by_zone, zone, pool)]
                            if group.zone_ids
                            else subnet_ids
                        ),
                        "kubernetes_version": version,
                        "pool": pool,
                        "name_prefix": group.name_prefix,
                        "scaling": scaling(
                            group.min_size, group.max_size, current_desired_size(group.name_prefix, sizes)
                        ),
                        "instance_tags": expiry_tags(spec),
                        "wait_for": [*node_grants, *node_network],
                        "efa": efa.get(pool.name),
                    },
                    opts=pulumi.ResourceOptions(parent=self, providers={"aws": provider}),
                )
                node_pools.append((pool, node_pool))
        system_pools: list[pulumi.Resource] = [
            node_pool for pool, node_pool in node_pools if not pool.is_gpu and pool.min_nodes >= 1
        ]

        # --- access from Pulumi
        rendered: pulumi.Output[str] = pulumi.Output.all(
            cluster.name, cluster.endpoint, cluster.certificate_authority.data
        ).apply(lambda a: eks_kubeconfig(a[0], a[1], a[2], region))
        kubeconfig: pulumi.Output[str] = pulumi.Output.secret(rendered)
        kubernetes = k8s.Provider(
            f"{name}-k8s",
            kubeconfig=kubeconfig,
            # Never fall back to the operator's ~/.kube/config or $KUBECONFIG.
            opts=pulumi.ResourceOptions(parent=self),
        )

        # --- add-ons on the system pools
        _addon(name, DNS_ADDON, cluster, version, provider, self, invoke, system_pools)
        in_cluster = pulumi.ResourceOptions(
            parent=self,
            providers={"aws": provider, "kubernetes": kubernetes},
            depends_on=[pod_identity_agent, *system_pools],
        )
        storage = EksStorage(
            f"{name}-storage",
            {"cluster_name": cluster.name, "volume_tags": expiry_tags(spec)},
            opts=in_cluster,
        )
        api_extensions, autoscaler_node_roles = _autoscaler(
            name,
            args["cluster"],
            subnets=[s for zone in sorted(subnets_by_zone) for s in subnets_by_zone[zone]],
            security_group_id=cluster.vpc_config.cluster_security_group_id,
            account=(identity.account_id, partition),
            gpu_groups=[
                (node_pool.autoscaling_group_name, pool.capacity == Capacity.SPOT)
                for pool, node_pool in node_pools
                if pool.is_gpu
            ],
            efa={
                pool.name: KarpenterEfa(efa[pool.name], zone, _zone_subnets(subnets_by_zone, zone, pool))
                for pool, groups in zip(pools, plans, strict=True)
                if pool.name in efa
                for zone in groups[0].zone_ids
            },
            opts=in_cluster,
        )

        self.cluster_name = cluster.name
        self.endpoint = cluster.endpoint
        self.kubeconfig = kubeconfig
        self.handle = ClusterHandle(
            name=cluster.name,
            kubeconfig=kubeconfig,
            kubernetes=kubernetes,
            system_ready=system_pools,
            api_extensions=api_extensions,
            default_storage=[storage],
            storage_summary=f"{DEFAULT_STORAGE_CLASS} (EBS CSI add-on, encrypted gp3, WaitForFirstConsumer, "
            "default)",
            # For gpukit:storage.shared (the storage add-on's EKS variant, shared_storage/variant.py): file
            # systems in the node subnets, open to the cluster security group the nodes carry.
            substrate_state=EksStorageContext(
                cluster_name=cluster_name,
                region=region,
                partition=partition,
                eks_cluster_name=cluster.name,
                vpc_id=vpc_id,
                subnet_by_zone={zone: subnets[0] for zone, subnets in sorted(subnets_by_zone.items())},
                node_security_group_id=cluster.vpc_config.cluster_security_group_id,
                node_role_arns=[node_role.arn, *autoscaler_node_roles],
                aws_provider=provider,
                wait_for=[pod_identity_agent, *system_pools],
                gpu_zones=gpu_zones(pools),
                tags=cluster_tags(spec),
                ephemeral="expires_at" in spec,
            ),
        )
        self.register_outputs(
            {
                "cluster_name": self.cluster_name,
                "endpoint": self.endpoint,
                "kubeconfig": self.kubeconfig,
                "storage_class": storage.storage_class,
            }
        )


def _zone_subnets(
    subnets_by_zone: dict[str, list[pulumi.Input[str]]], zone: str, pool: PoolFacts
) -> list[pulumi.Input[str]]:
    """The subnets a pool's nodes in `zone` launch into: every private subnet gpukit knows there, or on an
    EFA pool only the first (a reused VPC may have several in a zone; EFA is set up within one subnet,
    which is all the fact sheet's sources confirm)."""
    subnets = subnets_by_zone[zone]
    return subnets[:1] if pool.fabric is not None else subnets


def _network(
    name: str,
    spec: ClusterSpec,
    pools: tuple[PoolFacts, ...],
    opts: pulumi.ResourceOptions,
    invoke: pulumi.InvokeOptions,
) -> tuple[
    pulumi.Input[str], pulumi.Input[list[str]], dict[str, list[pulumi.Input[str]]], list[list[GroupPlan]]
]:
    """The VPC's id (with a subnet in every pinned zone when gpukit makes it), its private subnets by AZ
    ID, and each pool's node groups; a pinned zone the VPC cannot serve fails the run, naming the key."""
    pinned = list(dict.fromkeys(z for pool in pools for z in pool.zones))
    offered = _check_offerings(pools, invoke)  # before the VPC: a wrong pin must not leave half a network
    _check_efa_cni(pools, spec["kubernetes_version"], invoke)
    vpc = cluster_vpc(name, spec, opts, pinned, EKS_UNSUPPORTED_AZ_IDS)
    subnets_by_zone: dict[str, list[pulumi.Input[str]]]
    if vpc.private_subnet_by_zone_id is not None:
        subnets_by_zone = {zone: [subnet] for zone, subnet in vpc.private_subnet_by_zone_id.items()}
    else:
        reused = reused_subnet_zones(spec["network"]["subnet_ids"], invoke)
        refused = unsupported_subnets(reused)
        if refused:
            raise pulumi.RunError(refused)
        subnets_by_zone = {zone: list[pulumi.Input[str]](ids) for zone, ids in reused.items()}
    try:
        plans = [
            group_plans(i, pool, spec["region"], sorted(subnets_by_zone), offered)
            for i, pool in enumerate(pools)
        ]
    except ZoneError as err:
        raise pulumi.RunError(str(err)) from None
    return vpc.vpc_id, vpc.private_subnet_ids, subnets_by_zone, plans


def _check_efa_cni(pools: tuple[PoolFacts, ...], version: str, invoke: pulumi.InvokeOptions) -> None:
    """With EFA pools, the VPC CNI EKS installs for `version` must run EFA-only interfaces, asked
    before anything is created (the add-on's version is EKS's default for the minor)."""
    efa = [i for i, pool in enumerate(pools) if pool.fabric is not None]
    if not efa:
        return
    cni = aws.eks.get_addon_version(addon_name=VPC_CNI_ADDON, kubernetes_version=version, opts=invoke)
    problem = vpc_cni_version_problem(cni.version)
    if problem:
        raise pulumi.RunError(f"gpukit:nodePools[{efa[0]}].interconnect: {problem}")


def _check_offerings(pools: tuple[PoolFacts, ...], invoke: pulumi.InvokeOptions) -> dict[str, set[str]]:
    """Every zone a GPU pool pins offers every instance type of the pool, asked of EC2 before anything
    is created: gpukit has no sourced offline table (offerings.py), and a node group in a zone without
    its type would sit at CREATE_FAILED. (`gpukit plan` cannot ask EC2; it says so per pool.) Returns
    EC2's answer (instance type -> AZ IDs), which places the GPU pools that name no zones."""
    pinned = [(i, pool) for i, pool in enumerate(pools) if pool.is_gpu and pool.zones]
    types = sorted({t for pool in pools if pool.is_gpu for t in pool.instance_type_names})
    if not types:
        return {}
    answer = aws.ec2.get_instance_type_offerings(
        location_type="availability-zone-id",
        filters=[{"name": "instance-type", "values": types}],
        opts=invoke,
    )
    offered: dict[str, set[str]] = {}
    for instance_type, zone in zip(answer.instance_types, answer.locations, strict=True):
        offered.setdefault(instance_type, set()).add(zone)
    problems = [
        f"gpukit:nodePools[{i}].zones: {zone} does not offer {instance_type} (EC2 offers it in "
        f"{', '.join(sorted(offered.get(instance_type, set()))) or 'no zone of this region'})"
        for i, pool in pinned
        for zone, instance_type in zones_not_offering(pool.instance_type_names, pool.zones, offered)
    ]
    if problems:
        raise pulumi.RunError("; ".join(problems))
    return offered


def _autoscaler(
    name: str,
    resolved: ResolvedCluster,
    *,
    subnets: list[pulumi.Input[str]],
    security_group_id: pulumi.Input[str],
    account: tuple[str, str],
    gpu_groups: list[tuple[pulumi.Output[str], bool]],
    efa: dict[str, KarpenterEfa],
    opts: pulumi.ResourceOptions,
) -> tuple[list[pulumi.Resource], list[pulumi.Output[str]]]:
    """What scales the GPU pools: Karpenter (its NodePools are the GPU pools) or the Cluster Autoscaler
    (over the pools' managed node groups). Returns what installs the ProvisioningRequest API, where a
    queued pool needs it (ClusterHandle.api_extensions), and the node roles it launches nodes with
    (Karpenter's own)."""
    spec = resolved.spec
    if uses_karpenter(spec):
        karpenter = Karpenter(
            f"{name}-karpenter",
            {
                "cluster_name": spec["name"],
                "region": spec["region"],
                "account_id": account[0],
                "partition": account[1],
                "pools": resolved.pools,
                "subnet_ids": subnets,
                "security_group_id": security_group_id,
                "tags": cluster_tags(spec),
                "efa": efa,
            },
            opts=opts,
        )
        return [], [karpenter.node_role_arn]
    queued = takes_provisioning_requests(resolved.pools)
    autoscaler = ClusterAutoscaler(
        f"{name}-autoscaler",
        {
            "cluster_name": spec["name"],
            "region": spec["region"],
            "kubernetes_version": spec["kubernetes_version"],
            "spot_gpu_groups": [group for group, spot in gpu_groups if spot],
            "other_gpu_groups": sum(1 for _, spot in gpu_groups if not spot),
            "provisioning_requests": queued,
        },
        opts=opts,
    )
    return ([autoscaler] if queued else []), []


def _private_api_access(
    name: str, cluster: "aws.eks.Cluster", access: list[str], opts: pulumi.ResourceOptions
) -> None:
    """The private endpoint answers only what the cluster security group admits: the private ranges of
    apiAccessCidrs get HTTPS to it.

    One rule per range, named by the range, not by its place in the list: named by index, removing a
    range from the middle would turn rule i into a copy of rule i+1 while that still exists, and EC2
    refuses a duplicate rule (InvalidPermission.Duplicate; pulumi/pulumi-awsx#709 is the same failure)."""
    for cidr in (c for c in access if is_internal(c)):
        aws.vpc.SecurityGroupIngressRule(
            f"{name}-api-private-{cidr.replace('/', '-')}",
            security_group_id=cluster.vpc_config.cluster_security_group_id,
            cidr_ipv4=cidr,
            ip_protocol="tcp",
            from_port=443,
            to_port=443,
            description=f"Kubernetes API from {cidr} (apiAccessCidrs)",
            opts=opts,
        )


def _admin_entries(
    name: str,
    cluster: "aws.eks.Cluster",
    principals: list[str],
    creator_arn: str,
    opts: pulumi.ResourceOptions,
) -> None:
    """Cluster-admin access entries. The creator's own entry is EKS's
    (bootstrap_cluster_creator_admin_permissions): a second one for the same principal would fail, so
    it is skipped (creator.py).

    Entries are named by their principal, not by list position: a principal's ARN cannot change in
    place (a replacement), and a replacement entry for a principal that another index still holds is
    refused by EKS (ResourceInUseException), so by index, removing or reordering principals failed.
    The alias adopts entries that earlier versions named `<name>-admin-<i>`."""
    for i, principal in enumerate(principals):
        if principal_is_caller(principal, creator_arn):
            continue
        key = principal_key(principal)
        entry = aws.eks.AccessEntry(
            f"{name}-admin-{key}",
            cluster_name=cluster.name,
            principal_arn=principal,
            type="STANDARD",
            opts=pulumi.ResourceOptions.merge(
                opts, pulumi.ResourceOptions(aliases=[pulumi.Alias(name=f"{name}-admin-{i}")])
            ),
        )
        aws.eks.AccessPolicyAssociation(
            f"{name}-admin-{key}-policy",
            cluster_name=cluster.name,
            principal_arn=entry.principal_arn,
            policy_arn=CLUSTER_ADMIN_ACCESS_POLICY,
            access_scope={"type": "cluster"},
            opts=pulumi.ResourceOptions.merge(
                opts, pulumi.ResourceOptions(aliases=[pulumi.Alias(name=f"{name}-admin-{i}-policy")])
            ),
        )


def _node_network(  # noqa: PLR0917 (a private helper of EksCluster)
    name: str,
    cluster: "aws.eks.Cluster",
    version: str,
    provider: pulumi.ProviderResource,
    parent: pulumi.Resource,
    invoke: pulumi.InvokeOptions,
) -> "tuple[aws.eks.Addon, list[aws.eks.Addon]]":
    """The Pod Identity agent, then the add-ons every node needs before it is Ready (the VPC CNI, on
    its own Pod Identity role, and kube-proxy). The agent comes before any node: the VPC CNI takes its
    credentials through it, not from the node role. DaemonSet add-ons are active on a cluster without
    nodes."""
    agent = aws.eks.Addon(
        f"{name}-pod-identity-agent",
        cluster_name=cluster.name,
        addon_name="eks-pod-identity-agent",
        resolve_conflicts_on_create="OVERWRITE",
        resolve_conflicts_on_update="PRESERVE",
        opts=pulumi.ResourceOptions(parent=parent, provider=provider),
    )
    cni_role, cni_grants = pod_identity_role(
        f"{name}-vpc-cni",
        description=f"VPC CNI (aws-node) of EKS cluster {name}",
        parent=parent,
        managed_policy_arns=VPC_CNI_POLICIES,
        provider=provider,
    )
    cni_identity: list[aws.eks.AddonPodIdentityAssociationArgsDict] = [
        {"role_arn": cni_role.arn, "service_account": VPC_CNI_SERVICE_ACCOUNT}
    ]
    addons = [
        _addon(
            name,
            VPC_CNI_ADDON,
            cluster,
            version,
            provider,
            parent,
            invoke,
            [agent, *cni_grants],
            cni_identity,
        ),
        *(
            _addon(name, addon, cluster, version, provider, parent, invoke, [])
            for addon in NODE_NETWORK_ADDONS
            if addon != VPC_CNI_ADDON
        ),
    ]
    return agent, addons


def _addon(  # noqa: PLR0917 (a private helper of EksCluster)
    name: str,
    addon: str,
    cluster: "aws.eks.Cluster",
    version: str,
    provider: pulumi.ProviderResource,
    parent: pulumi.Resource,
    invoke: pulumi.InvokeOptions,
    depends_on: list[pulumi.Resource],
    pod_identity: "list[aws.eks.AddonPodIdentityAssociationArgsDict] | None" = None,
) -> "aws.eks.Addon":
    """An EKS-managed add-on at EKS's default version for the cluster's minor, so a Kubernetes upgrade
    in config also upgrades it. OVERWRITE on create adopts the copy EKS installs with a new cluster."""
    default = aws.eks.get_addon_version(addon_name=addon, kubernetes_version=version, opts=invoke)
    return aws.eks.Addon(
        f"{name}-{addon}",
        cluster_name=cluster.name,
        addon_name=addon,
        addon_version=default.version,
        resolve_conflicts_on_create="OVERWRITE",
        resolve_conflicts_on_update="PRESERVE",
        pod_identity_associations=pod_identity,
        opts=pulumi.ResourceOptions(parent=parent, provider=provider, depends_on=depends_on),
    )


def build_eks(name: str, cluster: ResolvedCluster, parent: pulumi.Resource) -> ClusterHandle:
    """EksSubstrate.build."""
    eks = EksCluster(
        name,
        {"cluster": cluster},
        opts=pulumi.ResourceOptions(parent=parent),
    )
    return eks.handle

"""EKS's side of the interconnect add-on: what a pod on an EFA pool requests and sets, and the findings
only EKS makes (providers/aws/efa.py holds the facts; the resources are eks/efa_network.py's, the
launch templates' and the EC2NodeClasses'). The one-zone and one-layout rules are every fabric's
(components/pools.py fabric_conflicts)."""

from gpukit.components.addons.interconnect.variant import FabricUse, InterconnectVariant
from gpukit.components.findings import Finding, Severity
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import NodeImage
from gpukit.components.substrate import ResolvedCluster
from gpukit.providers.aws.efa import (
    EFA_ONLY_MIN_VPC_CNI,
    EFA_RESOURCE,
    HUGEPAGES_PER_POD,
    HUGEPAGES_RESOURCE,
    RDMA_READ_TYPES,
    efa_nccl_env,
)
from gpukit.providers.aws.karpenter_validation import uses_karpenter


def _huge_pages(cluster: ResolvedCluster, pool: PoolFacts) -> str | None:
    """Why a pod on this EFA pool cannot request huge pages, or None where it can: AL2023 nodes have
    5128 pre-allocated (providers/aws/efa.py), which the Cluster Autoscaler's templates advertise."""
    if pool.node_image is not NodeImage.AL2023:
        return "Bottlerocket nodes pre-allocate no huge pages (EKS user guide, node-efa: set vm.nr_hugepages)"
    if uses_karpenter(cluster.spec):
        return (
            "Karpenter plans every node with hugepages-2Mi: 0 (Karpenter docs, NodeClaims), so a pod "
            "requesting them would never get a node"
        )
    return None


class EksInterconnect(InterconnectVariant):
    def use(self, cluster: ResolvedCluster, pool: PoolFacts) -> FabricUse:
        assert pool.fabric is not None  # the add-on asks only for fabric pools
        requests = {EFA_RESOURCE: str(pool.fabric.interfaces)}
        env = efa_nccl_env(pool.instance.name)
        notes: tuple[str, ...] = ()
        no_huge_pages = _huge_pages(cluster, pool)
        if no_huge_pages is None:
            requests[HUGEPAGES_RESOURCE] = HUGEPAGES_PER_POD
        else:
            env["FI_EFA_USE_HUGE_PAGE"] = "0"
            notes = (f"no huge pages: {no_huge_pages}; the EFA provider is told to use ordinary pages",)
        zone = pool.zones[0] if pool.zones else "the first VPC zone EC2 says offers it, at `pulumi up`"
        placement = (
            f"one zone ({zone}), a cluster placement group, 1 ENA + {pool.fabric.interfaces} EFA-only "
            "interfaces in a security group open to itself"
        )
        # AWS's EKS tests require `via NET/.../GDRDMA` on the types EC2 runs GPUDirect RDMA reads on.
        gpudirect = pool.instance.name in RDMA_READ_TYPES
        return FabricUse(requests=requests, env=env, placement=placement, notes=notes, gpudirect=gpudirect)

    def findings(self, cluster: ResolvedCluster) -> list[Finding]:
        efa = [(i, pool) for i, pool in enumerate(cluster.pools) if pool.fabric is not None]
        if not efa:
            return []
        floor = ".".join(map(str, EFA_ONLY_MIN_VPC_CNI))
        found = [
            Finding(
                Severity.INFO,
                f"gpukit:nodePools[{efa[0][0]}].interconnect",
                f"EFA-only interfaces need VPC CNI {floor} or later: `pulumi up` checks the version EKS "
                f"picks for Kubernetes {cluster.spec['kubernetes_version']} before creating anything",
            )
        ]
        found += [
            Finding(
                Severity.INFO,
                f"gpukit:nodePools[{i}].zones",
                f"left out on an EFA pool: its one zone is the first of the VPC's zones that EC2 says offers "
                f"{pool.instance.name}, asked when `pulumi up` runs; pin one AZ ID to choose",
            )
            for i, pool in efa
            if not pool.zones
        ]
        return found

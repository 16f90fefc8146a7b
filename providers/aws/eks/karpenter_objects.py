"""The Karpenter objects of an EKS cluster, as pure functions: one EC2NodeClass and one NodePool per
GPU pool (Karpenter v1 API, chart 1.14.1; every rendered object is checked against that release's CRD
schemas, tests/reference/karpenter-v1.14.1/).

Why these values:
- One EC2NodeClass per GPU pool, not one shared: the root volume is sized per pool (`diskSizeGb`), and an
  EC2NodeClass has one set of block device mappings. Each is named after its pool, as is its NodePool.
- AMI: the `al2023` alias, pinned. Karpenter picks the AL2023 variant per instance type (NVIDIA for GPU
  instances; Karpenter docs, "NodeClasses": amiSelectorTerms alias) from the EKS optimized AMI release
  named by the pin. AWS recommends pins over `@latest` in production: `@latest` rolls every node onto
  each new AMI as it is published (Karpenter docs, "Managing AMIs"). v20260714 is the newest release in
  awslabs/amazon-eks-ami's CHANGELOG (read 2026-12): AL2023 x86_64 NVIDIA AMIs for Kubernetes 1.34,
  1.35 and 1.36 with NVIDIA driver 580.159.03 (kmod-nvidia-latest-dkms), the R580 branch the managed
  node groups' AL2023_x86_64_NVIDIA images run (providers/aws/eks/images.py).
  Bottlerocket GPU pools: the `bottlerocket` alias, pinned to v1.66.0 (Karpenter resolves
  /aws/service/bottlerocket/aws-k8s-<minor>-nvidia/<arch>/1.66.0/image_id from SSM; its
  amifamily/bottlerocket.go trims the `v`). Bottlerocket's "GPU Driver Versions" page for 1.66.0
  (bottlerocket.dev/en/os/1.66.x/version-information/gpu-drivers/1.66.0/, read 2026-12) lists
  aws-k8s-1.34-nvidia, 1.35-nvidia and 1.36-nvidia with NVIDIA driver 580.178.04: R580, as the managed
  node groups' BOTTLEROCKET_x86_64_NVIDIA images, for every Kubernetes minor gpukit supports.
- IMDSv2 only with a hop limit of 1 and encrypted gp3 root volumes: as the managed node groups' launch
  templates (providers/aws/eks/node_group.py).
- Subnets and security groups by ID (the cluster's private subnets and its cluster security group, which
  EKS gives managed node group nodes), so nothing has to be tagged for discovery.
- NodePool requirements: the pool's instance types (`node.kubernetes.io/instance-type`), its zones as
  AZ IDs (`topology.k8s.aws/zone-id`, a label Karpenter sets and schedules on: Karpenter docs,
  "Scheduling", well-known labels), and capacity types: spot pools allow spot and on-demand, and Karpenter
  launches spot while spot capacity exists and on-demand only when it does not (Karpenter docs,
  "NodePools": "If a NodePool is compatible with multiple capacity types, Karpenter will prioritize
  `reserved` capacity, followed by `spot`, then finally `on-demand`").
- `limits`: nodes = maxNodes (Karpenter docs, "NodePools" > spec.limits: `limits.nodes` caps the node
  count) and cpu = maxNodes x the pool's vCPUs (all its instance types have the same vCPUs on EKS), the
  same ceiling in the resource Karpenter has always counted. Not nvidia.com/gpu: on a time-sliced or
  MPS pool a node advertises GPUs x replicas, so a GPU limit would not count nodes. Karpenter checks
  limits eventually consistently, so a rapid scale-out may overrun them briefly (same page).
- Disruption: WhenEmpty after 10 minutes (the Cluster Autoscaler's scale-down-unneeded-time on EKS), and
  nodes never expire (`expireAfter: Never`). WhenEmptyOrUnderutilized would evict running GPU pods to
  repack them onto fewer or cheaper nodes, which kills a training step that did not checkpoint; an empty
  GPU node is the only one worth removing. Expiry is a forceful disruption that a pod's
  `karpenter.sh/do-not-disrupt: "true"` annotation does not stop; consolidation and drift it does stop
  (Karpenter docs, "Disruption"). So a training pod that asks not to be disturbed is never evicted by
  Karpenter (spot interruptions aside: EC2 takes spot machines back regardless).
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpukit.components.pools import PoolFacts
from gpukit.components.spec import Capacity, NodeImage
from gpukit.providers.aws.efa import EfaNetwork, efa_layout, node_class_interfaces
from gpukit.providers.aws.eks.images import eks_image
from gpukit.providers.aws.eks.labels import pool_labels

NODE_POOL_API = "karpenter.sh/v1"
NODE_CLASS_API = "karpenter.k8s.aws/v1"
AMI_ALIAS = "al2023@v20260714"
BOTTLEROCKET_AMI_ALIAS = "bottlerocket@v1.66.0"
AMI_ALIASES: dict[NodeImage, str] = {
    NodeImage.AL2023: AMI_ALIAS,
    NodeImage.BOTTLEROCKET: BOTTLEROCKET_AMI_ALIAS,
}
ZONE_ID_LABEL = "topology.k8s.aws/zone-id"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type"
NODE_POOL_LABEL = "karpenter.sh/nodepool"
DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt"
CONSOLIDATE_AFTER = "10m"


@dataclass(frozen=True)
class KarpenterEfa:
    """Where an EFA pool's NodePool launches: its placement group and security groups, its one zone
    (pinned, or the first of the VPC's zones that EC2 says offers the type) and that zone's subnets."""

    network: EfaNetwork
    zone_id: str
    subnet_ids: Sequence[Any]


def capacity_types(pool: PoolFacts) -> list[str]:
    """Spot pools: spot first, on-demand when spot has no capacity; on-demand pools: on-demand only."""
    return ["spot", "on-demand"] if pool.capacity == Capacity.SPOT else ["on-demand"]


def node_pool_limits(pool: PoolFacts) -> dict[str, str]:
    return {"nodes": str(pool.max_nodes), "cpu": str(pool.max_nodes * pool.instance.vcpu)}


def ec2_node_class_spec(
    pool: PoolFacts,
    *,
    role: Any,
    subnet_ids: Sequence[Any],
    security_group_ids: Sequence[Any],
    tags: Mapping[str, str],
    efa: KarpenterEfa | None = None,
) -> dict[str, Any]:
    """The EC2NodeClass of a GPU pool. `role` is the Karpenter node role's name; ids may be Outputs.
    An EFA pool's class also names its interfaces (providers/aws/efa.py: with them set, Karpenter
    launches that layout whether or not a pod asks for EFA, and advertises one vpc.amazonaws.com/efa
    per EFA-only interface), its placement group, its zone's subnets and the EFA security group."""
    image = eks_image(pool.node_image, pool.instance.arch, pool.is_gpu)
    network: dict[str, Any] = {}
    if efa is not None and pool.fabric is not None:
        subnet_ids, security_group_ids = efa.subnet_ids, efa.network.security_groups
        network = {
            "networkInterfaces": node_class_interfaces(efa_layout(pool.fabric.interfaces)),
            "placementGroupSelector": {"name": efa.network.placement_group},
        }
    return {
        "role": role,
        "amiSelectorTerms": [{"alias": AMI_ALIASES[pool.node_image]}],
        "subnetSelectorTerms": [{"id": subnet} for subnet in subnet_ids],
        "securityGroupSelectorTerms": [{"id": group} for group in security_group_ids],
        **network,
        "metadataOptions": {
            "httpEndpoint": "enabled",
            "httpProtocolIPv6": "disabled",
            "httpTokens": "required",
            "httpPutResponseHopLimit": 1,
        },
        "blockDeviceMappings": [
            {
                "deviceName": image.data_device,
                "rootVolume": True,
                "ebs": {
                    "volumeSize": f"{pool.disk_size_gb}Gi",
                    "volumeType": "gp3",
                    "encrypted": True,
                    "deleteOnTermination": True,
                },
            }
        ],
        "tags": {**tags, "gpukit:pool": pool.name},
    }


def node_pool_spec(pool: PoolFacts, efa_zone: str | None = None) -> dict[str, Any]:
    """The NodePool of a GPU pool: what it may launch, the nodes' labels and taints, its ceiling and
    when it gives nodes back. `efa_zone`: an EFA pool's one zone."""
    requirements: list[dict[str, Any]] = [
        {"key": INSTANCE_TYPE_LABEL, "operator": "In", "values": list(pool.instance_type_names)},
        {"key": CAPACITY_TYPE_LABEL, "operator": "In", "values": capacity_types(pool)},
    ]
    zones = [efa_zone] if efa_zone else list(pool.zones)
    if zones:
        requirements.append({"key": ZONE_ID_LABEL, "operator": "In", "values": zones})
    return {
        "template": {
            # The same labels as a managed node group of the pool gets (gpukit's pool and GPU labels,
            # the accelerator label and the GPU Operator's sharing labels): the device plugin reads its
            # sharing entry from the node's label, so a node is shared as configured from its first
            # minute.
            "metadata": {"labels": pool_labels(pool)},
            "spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": pool.name},
                "taints": [{"key": t.key, "value": t.value, "effect": t.effect} for t in pool.taints],
                "requirements": requirements,
                "expireAfter": "Never",
            },
        },
        "limits": node_pool_limits(pool),
        "disruption": {
            "consolidationPolicy": "WhenEmpty",
            "consolidateAfter": CONSOLIDATE_AFTER,
            # Karpenter's default, stated so plans show it: at most 10% of the pool's nodes (at least
            # one) are being removed at a time.
            "budgets": [{"nodes": "10%"}],
        },
    }


def karpenter_objects(
    pools: Sequence[PoolFacts],
    *,
    role: Any,
    subnet_ids: Sequence[Any],
    security_group_ids: Sequence[Any],
    tags: Mapping[str, str],
    efa: Mapping[str, KarpenterEfa] | None = None,
) -> list[dict[str, Any]]:
    """Every Karpenter object of a cluster, as Kubernetes objects: per GPU pool its EC2NodeClass, then
    its NodePool. `efa`: the EFA pools' placement, by pool name."""
    objects: list[dict[str, Any]] = []
    for pool in pools:
        if not pool.is_gpu:
            continue
        placed = (efa or {}).get(pool.name)
        node_class = ec2_node_class_spec(
            pool,
            role=role,
            subnet_ids=subnet_ids,
            security_group_ids=security_group_ids,
            tags=tags,
            efa=placed,
        )
        objects.append(
            {
                "apiVersion": NODE_CLASS_API,
                "kind": "EC2NodeClass",
                "metadata": {"name": pool.name},
                "spec": node_class,
            }
        )
        objects.append(
            {
                "apiVersion": NODE_POOL_API,
                "kind": "NodePool",
                "metadata": {"name": pool.name},
                "spec": node_pool_spec(pool, placed.zone_id if placed else None),
            }
        )
    return objects

"""The typed shape of a gpukit cluster: enums for closed sets and the nested Args TypedDicts.

These are the types `GpuClusterArgs` (components/cluster.py) is made of. They use only what the
Pulumi schema analyzer accepts for multi-language components: TypedDict, `str` Enums, no unions.
Field names are the snake_case forms of the stack config keys (`minNodes` -> `min_nodes`), which is
how validation messages map a field back to the line of `stacks/Pulumi.<env>.yaml` to edit.
"""

from enum import Enum
from typing import NotRequired, TypedDict


class Platform(str, Enum):
    EKS = "eks"
    GKE = "gke"
    K3S = "k3s"


class Provider(str, Enum):
    AWS = "aws"
    GCP = "gcp"
    SSH = "ssh"


class Capacity(str, Enum):
    ON_DEMAND = "on-demand"
    SPOT = "spot"


class Provisioning(str, Enum):
    STANDARD = "standard"
    """Nodes start for pending pods, as many as the pods need."""
    QUEUED = "queued"
    """A gang's nodes are asked for all at once, through a ProvisioningRequest Kueue makes before it
    admits the gang (GKE's queued provisioning; the Cluster Autoscaler's best-effort atomic scale-up)."""


class Interconnect(str, Enum):
    AUTO = "auto"
    """The machine's fast fabric (EFA, GPUDirect), set up where gpukit builds it for the substrate."""
    NONE = "none"
    """The ordinary node and pod network only."""


class DriverMode(str, Enum):
    PREINSTALLED = "preinstalled"
    """The node image ships the NVIDIA driver and container toolkit (EKS AL2023/Bottlerocket NVIDIA)."""
    OPERATOR = "operator"
    """The GPU Operator installs the driver as a container on a plain image."""


class NodeImage(str, Enum):
    AL2023 = "al2023"
    BOTTLEROCKET = "bottlerocket"


class ReleaseChannel(str, Enum):
    RAPID = "rapid"
    REGULAR = "regular"
    STABLE = "stable"


class GkeDriverVersion(str, Enum):
    DEFAULT = "default"
    """GKE's default driver for the node version (its most tested one)."""
    LATEST = "latest"
    """The newest driver GKE offers for the node version."""


class NodeRole(str, Enum):
    SERVER = "server"
    """k3s server: control plane (and workloads); 1, or an odd number for HA with embedded etcd."""
    AGENT = "agent"


class PodSecurityLevel(str, Enum):
    """The Pod Security Standard enforced by default: on k3s in every namespace without its own label; on
    EKS and GKE in the `default` namespace (components/addons/pod_security/)."""

    BASELINE = "baseline"
    """No host namespaces, host paths, privileged containers or added capabilities (the default)."""
    RESTRICTED = "restricted"
    """Baseline, plus non-root, no privilege escalation, all capabilities dropped, a seccomp profile."""


class NatGateways(str, Enum):
    SINGLE = "single"
    """One NAT gateway for the VPC: cheapest; private subnets lose egress if its zone fails."""
    PER_ZONE = "per-zone"
    """One NAT gateway per zone: survives a zone outage, costs one gateway per zone."""


class SharingMode(str, Enum):
    """How a GPU pool's GPUs are shared between pods (components/sharing.py)."""

    NONE = "none"
    TIME_SLICING = "time-slicing"
    MPS = "mps"
    MIG = "mig"


class MigStrategy(str, Enum):
    """How MIG instances are advertised: `single` as nvidia.com/gpu, `mixed` as nvidia.com/mig-<profile>."""

    SINGLE = "single"
    MIXED = "mixed"


class SupportType(str, Enum):
    """EKS: the support policy of the cluster's Kubernetes version (the cluster's upgrade policy)."""

    STANDARD = "standard"
    """14 months of standard support per minor, then EKS upgrades the control plane itself."""
    EXTENDED = "extended"
    """12 more months on a minor once its standard support ends, at six times the hourly price."""


class Autoscaler(str, Enum):
    """EKS: what scales the GPU pools (providers/aws/eks/karpenter.py, cluster_autoscaler.py)."""

    KARPENTER = "karpenter"
    """Karpenter: one NodePool per GPU pool, nodes launched straight from EC2 (no node group)."""
    CLUSTER_AUTOSCALER = "cluster-autoscaler"
    """The Kubernetes Cluster Autoscaler over one managed node group per pool and zone."""


class StorageKind(str, Enum):
    """The backend of a shared volume (components/addons/storage/backends.py holds what each one is)."""

    AUTO = "auto"
    """gpukit picks the backend from the substrate, the volume's role and throughput (the plan says why)."""
    EFS = "efs"
    FSX_LUSTRE = "fsx-lustre"
    S3 = "s3"
    FILESTORE = "filestore"
    GCS_FUSE = "gcs-fuse"
    MANAGED_LUSTRE = "managed-lustre"
    NFS = "nfs"


class StorageRole(str, Enum):
    """What a shared volume is for: it drives `kind: auto`."""

    DATASETS = "datasets"
    """Read by many pods at once, mostly read."""
    CHECKPOINTS = "checkpoints"
    """Written by training, read back on another node after a reclaim: needs full POSIX writes."""
    MODEL_CACHE = "model-cache"
    """Model weights written once, read by every replica."""


DEFAULT_ZONE_COUNT = 3
"""Zones of a new VPC when `zoneCount` is not set (capped by what the region offers)."""


class NetworkSpec(TypedDict):
    cidr: NotRequired[str]
    """CIDR of a new VPC (/16 to /20). Exclusive with `vpc_id`."""
    zone_count: NotRequired[int]
    """Availability zones for a new VPC (2 to 6, default 3, capped by what the region has)."""
    nat_gateways: NotRequired[NatGateways]
    """NAT gateway layout for a new VPC (default `single`)."""
    vpc_id: NotRequired[str]
    """AWS: an existing VPC to reuse. Requires `subnet_ids`."""
    subnet_ids: NotRequired[list[str]]
    """AWS: existing private subnets (two zones at least) for the control plane ENIs and the nodes."""
    public_subnet_ids: NotRequired[list[str]]
    """k3s on aws, reused VPC: public subnets for the internet-facing API load balancer."""
    pods_cidr: NotRequired[str]
    """GCP, new network: the subnet's secondary range for pods (default derived from `cidr`)."""
    gpu_networks_cidr: NotRequired[str]
    """GKE: the block GPUDirect pools' extra VPC subnets come from (providers/gcp/gke/gpu_networks.py)."""
    services_cidr: NotRequired[str]
    """GCP, new network: the subnet's secondary range for services (default derived from `cidr`)."""
    network_id: NotRequired[str]
    """GCP: an existing VPC network to reuse (`projects/P/global/networks/N` or its name)."""
    subnetwork_id: NotRequired[str]
    """GCP: the existing subnetwork in the cluster's region (with two secondary ranges)."""
    pods_range_name: NotRequired[str]
    """GCP, reused subnetwork: the name of its secondary range for pods."""
    services_range_name: NotRequired[str]
    """GCP, reused subnetwork: the name of its secondary range for services."""


class BastionSpec(TypedDict):
    address: str
    user: str
    port: NotRequired[int]
    host_key: NotRequired[str]
    """Its SSH host key: a known_hosts line or `<type> <base64>`."""


class HostSpec(TypedDict):
    address: str
    """How gpukit reaches the host over SSH (IP or DNS name); also its node IP unless NATed."""
    user: str
    port: NotRequired[int]
    """SSH port (default 22)."""
    host_key: NotRequired[str]
    """Its SSH host key: a known_hosts line or `<type> <base64>` (required unless the cluster sets
    `insecure_ignore_host_keys`)."""
    bastion: NotRequired[BastionSpec]
    """A jump host to reach `address` through."""


class ClusterSpec(TypedDict):
    name: str
    """Cluster name: lowercase letters, digits and hyphens, at most 32 characters."""
    platform: Platform
    region: NotRequired[str]
    """The cloud region, from the substrate's provider key (`aws:region`, `gcp:region`); "" on existing
    hosts."""
    kubernetes_version: str
    """Kubernetes minor version, quoted: "1.35"."""
    network: NotRequired[NetworkSpec]
    """Cloud platforms only (required there)."""
    api_access_cidrs: NotRequired[list[str]]
    """Cloud platforms only (required there): who may reach the API; empty means private only."""
    k3s_version: NotRequired[str]
    """k3s: the exact k3s release (default: gpukit's pin for `kubernetes_version`)."""
    api_address: NotRequired[str]
    """k3s: the address clients use for the API (default: the first server host's address)."""
    insecure_ignore_host_keys: NotRequired[bool]
    """k3s over SSH: let hosts and bastions without `host_key` through, unchecked (default false)."""
    traefik: NotRequired[bool]
    """k3s: keep k3s's packaged traefik ingress controller (default false: disabled)."""
    pod_security: NotRequired[PodSecurityLevel]
    """k3s: the Pod Security Standard enforced by default (baseline)."""
    k3s_sha256: NotRequired[dict[str, str]]
    """k3s: architecture -> SHA-256 of the k3s binary, for releases gpukit has no sum pinned for."""
    provider: NotRequired[Provider]
    """Only for `platform: k3s`; implied for eks (aws) and gke (gcp)."""
    project: NotRequired[str]
    """Google Cloud project (from `gcp:project`)."""
    zone: NotRequired[str]
    """GKE: a zonal cluster in this zone of `region` (default: a regional cluster)."""
    release_channel: NotRequired[ReleaseChannel]
    """GKE release channel (default `regular`)."""
    deletion_protection: NotRequired[bool]
    """GKE: refuse `pulumi destroy` of the cluster (default true; set false for ephemeral stacks)."""
    admin_principal_arns: NotRequired[list[str]]
    """IAM roles/users given cluster-admin through EKS access entries (the deployer always is)."""
    tags: NotRequired[dict[str, str]]
    """Extra tags put on every cloud resource."""
    expires_at: NotRequired[str]
    """Derived from `gpukit:ephemeral.expiresAt` (never set in the cluster section): the expiry every
    cloud resource is tagged / labelled with (components/ephemeral.py)."""
    support_type: NotRequired[SupportType]
    """EKS: the cluster's support policy (default `standard`)."""
    log_retention_days: NotRequired[int]
    """EKS: days the control-plane log group keeps events (default 30)."""
    autoscaler: NotRequired[Autoscaler]
    """EKS: what scales the GPU pools (default `karpenter`)."""


class GpuArchitecture(str, Enum):
    """How a stack names the architecture of a GPU model gpukit's catalog does not hold."""

    VOLTA = "volta"
    TURING = "turing"
    AMPERE = "ampere"
    ADA = "ada"
    HOPPER = "hopper"
    BLACKWELL = "blackwell"


class GpuSpec(TypedDict):
    model: str
    """A GPU model from the catalog (components/catalog/gpus.py), spelled as nvidia-smi or people
    write it ("NVIDIA GeForce RTX 4090", "rtx4090", "4090"); over SSH also a model it does not hold,
    with `memory_gb` and `architecture`."""
    count: int
    """GPUs per node."""
    memory_gb: NotRequired[int]
    """SSH hosts, a model the catalog does not hold: memory per GPU in GB."""
    architecture: NotRequired[GpuArchitecture]
    """SSH hosts, a model the catalog does not hold: its architecture."""
    compute_capability: NotRequired[str]
    """SSH hosts, a model the catalog does not hold: `major.minor` (optional, shown in the plan)."""


class MigSpec(TypedDict):
    strategy: NotRequired[MigStrategy]
    """Default `single`; one strategy per cluster (the Operator's `mig.strategy` is cluster-wide)."""
    profile: NotRequired[str]
    """A MIG profile of the pool's GPU model; every GPU of the pool is cut into as many as fit
    (the MIG manager's stock `all-<profile>` config). Exclusive with `layout`."""
    layout: NotRequired[dict[str, int]]
    """Instances per profile on every GPU (a custom mig-parted config). Exclusive with `profile`."""


class SharingSpec(TypedDict):
    mode: SharingMode
    replicas: NotRequired[int]
    """time-slicing and mps: pods per GPU (2 to 48)."""
    mig: NotRequired[MigSpec]
    """mode mig: the profile the pool's GPUs are cut into."""


class NodePoolSpec(TypedDict):
    name: str
    instance_type: NotRequired[str]
    """Cloud pools (required there): GPU model and count come from the catalog."""
    min_nodes: NotRequired[int]
    """Cloud pools (required there)."""
    max_nodes: NotRequired[int]
    """Cloud pools (required there)."""
    role: NotRequired[NodeRole]
    """k3s: server or agent (default agent)."""
    schedulable: NotRequired[bool]
    """k3s server pool: run workloads on the servers although the cluster has agents (default false:
    servers carry CriticalAddonsOnly=true:NoExecute whenever there are agent pools)."""
    hosts: NotRequired[list[HostSpec]]
    """provider ssh (required there): the existing machines of this pool."""
    capacity: NotRequired[Capacity]
    """`on-demand` (default) or `spot`."""
    alternative_instance_types: NotRequired[list[str]]
    """k3s on aws: more instance types the pool's Auto Scaling group may launch, with the same GPUs
    per node as `instance_type` (spot pools draw on more capacity pools this way)."""
    disk_size_gb: NotRequired[int]
    """Root volume size in GiB (default 100 for GPU pools, 50 otherwise)."""
    node_image: NotRequired[NodeImage]
    """EKS node image family (default `al2023`)."""
    gpu: NotRequired[GpuSpec]
    """GPUs per node: attaches them where the machine type does not fix them (GCP N1 + T4), and
    must match the catalog where it does."""
    zones: NotRequired[list[str]]
    """GKE: zones of the cluster's region for this pool (default: every zone there that offers the
    pool's GPU, or the cluster's zones for CPU pools)."""
    compact_placement: NotRequired[bool]
    """GKE: a compact placement policy for the pool (one zone, supported machines only)."""
    sharing: NotRequired[SharingSpec]
    """GPU pools: how the pool's GPUs are shared between pods (default: whole GPUs)."""
    provisioning: NotRequired[Provisioning]
    """GPU pools: `standard` (default) or `queued` (a gang's nodes all at once, with gpukit:batch)."""
    interconnect: NotRequired[Interconnect]
    """GPU pools: `auto` (the machine's fast fabric where gpukit sets it up; the default) or `none`."""


class GpuOperatorSpec(TypedDict):
    chart_version: NotRequired[str]
    """Default v26.7.0 (filled in by validation, so every resolved cluster has it)."""
    driver: NotRequired[DriverMode]
    """Default preinstalled (filled in by validation)."""
    gke_driver_version: NotRequired[GkeDriverVersion]
    """GKE with `driver: preinstalled`: which GKE-installed driver (default `default`)."""


class WorkloadsSpec(TypedDict):
    cuda_version: NotRequired[str]
    """Newest CUDA version the cluster's images are built for; checked against each pool's driver."""


class EphemeralSpec(TypedDict):
    expires_at: NotRequired[str]
    """RFC 3339 UTC (`2026-12-01T15:30:00Z`), set by `gpukit ephemeral up`."""


class BudgetSpec(TypedDict):
    max_hourly_cost: NotRequired[float]
    """USD per hour at list prices with every pool at max nodes; unset: no limit."""
    allow_unpriced: NotRequired[bool]
    """Accept a lower-bound cost when a pool has no price in the region (default false: refuse)."""


class NfsSpec(TypedDict):
    """An NFS volume's server: an export you name (`server` + `path`), or one of the cluster's own SSH
    hosts gpukit makes the server (`host`); neither on k3s over aws/gcp: a small VM gpukit makes."""

    server: NotRequired[str]
    path: NotRequired[str]
    host: NotRequired[str]
    """The `address` of a host listed in one of the cluster's pools (k3s over SSH)."""


class SharedVolumeSpec(TypedDict):
    """One shared (ReadWriteMany) volume of `gpukit:storage.shared`."""

    name: str
    kind: StorageKind
    role: StorageRole
    size_gb: int
    """GiB. Elastic backends (efs, s3, gcs-fuse) grow as written: there it is the size costs are shown for."""
    throughput_mbps: NotRequired[int]
    """MB/s the volume must deliver; picks the backend (auto) and tier (unset: the backend's first)."""
    tier: NotRequired[str]
    """A backend's performance tier by name (components/addons/storage/backends.py lists each one's)."""
    bucket: NotRequired[str]
    """s3 and gcs-fuse: an existing bucket the volume mounts (required there)."""
    nfs: NotRequired[NfsSpec]
    zone: NotRequired[str]
    """fsx-lustre: the AZ ID its one file system lives in; unset: next to the biggest GPU pool."""


class StorageSpec(TypedDict):
    shared: NotRequired[list[SharedVolumeSpec]]


class VerificationSpec(TypedDict):
    enabled: NotRequired[bool]
    """Run one verification Job per GPU pool at `pulumi up` (default false; ephemeral stacks set it)."""
    timeout_minutes: NotRequired[int]
    """How long each pool's Job may take, 5 to 120 (default 20)."""
    nccl: NotRequired[bool]
    """Run a 2-node NCCL all-reduce over the fabric of every fabric pool with maxNodes >= 2 at
    `pulumi up` (default false; components/addons/interconnect/nccl_check.py)."""


class QueueQuotaSpec(TypedDict):
    """One GPU quota of a queue: `count` units of `resource` on a pool, or on every pool of a GPU model
    (split over them by their capacity at max nodes; components/addons/batch/queues.py)."""

    pool: NotRequired[str]
    gpu_model: NotRequired[str]
    resource: NotRequired[str]
    """What a pod requests: nvidia.com/gpu, or nvidia.com/mig-<profile> on mixed-MIG pools; unset: the
    pool's one resource."""
    count: int
    """Units of `resource`: whole GPUs, time-sliced or MPS shares, or MIG instances."""
    borrowing_limit: NotRequired[int]
    """How many more units the queue may borrow from its cohort (needs `cohort`); unset: no limit."""


class QueueSpec(TypedDict):
    """One team's queue of `gpukit:batch.queues`: a ClusterQueue, and a LocalQueue in each namespace."""

    name: str
    namespaces: list[str]
    quotas: NotRequired[list[QueueQuotaSpec]]
    """Unset: the whole GPU capacity at max nodes."""
    cohort: NotRequired[str]
    priority_class: NotRequired[str]
    """A name of `gpukit:batch.priorityClasses`: the default priority of the queue's workloads."""


class PriorityClassSpec(TypedDict):
    name: str
    value: int


class GangSchedulingSpec(TypedDict):
    """Kueue's waitForPodsReady (always on in Kueue v0.19)."""

    timeout_minutes: NotRequired[int]
    """Minutes an admitted workload may take to get all its pods running (default 30)."""
    block_admission: NotRequired[bool]
    """Admit nothing else while one admitted workload waits for its pods (default true)."""


class TrainingOperatorSpec(TypedDict):
    enabled: NotRequired[bool]
    """Kubeflow Trainer v2 with JobSet; default true."""


class BatchSpec(TypedDict):
    enabled: NotRequired[bool]
    queues: NotRequired[list[QueueSpec]]
    priority_classes: NotRequired[list[PriorityClassSpec]]
    gang_scheduling: NotRequired[GangSchedulingSpec]
    training_operator: NotRequired[TrainingOperatorSpec]
    topology_aware: NotRequired[bool]
    """Kueue topology-aware scheduling on every GPU pool (default false)."""


class InferenceMetricsSpec(TypedDict):
    enabled: NotRequired[bool]
    """Default: `inference.enabled`."""
    retention_days: NotRequired[int]
    """The in-cluster Prometheus's retention, 1 to 90 (default 15)."""


class InferenceAutoscalingSpec(TypedDict):
    enabled: NotRequired[bool]
    """KEDA; default: `inference.enabled`."""


class InferenceGatewaySpec(TypedDict):
    enabled: NotRequired[bool]
    """Default: `inference.enabled` where the substrate has a gateway gpukit builds."""
    class_name: NotRequired[str]
    """The Gateway's GatewayClass; default: the substrate's (EKS `envoy-gateway`, GKE `gke-l7-rilb`)."""
    allowed_cidrs: NotRequired[list[str]]
    """Client ranges the Gateway admits; [] (the default): the cluster's network only."""


class InferenceSpec(TypedDict):
    enabled: NotRequired[bool]
    metrics: NotRequired[InferenceMetricsSpec]
    autoscaling: NotRequired[InferenceAutoscalingSpec]
    gateway: NotRequired[InferenceGatewaySpec]


class ClusterConfig(TypedDict):
    """A whole stack's gpukit config, typed: one field per `gpukit:` section, in snake_case.

    GpuClusterArgs (components/cluster.py) is this plus `ssh_private_key`, which it takes as a
    `pulumi.Input` (this module stays free of Pulumi, so `import gpukit` does too): everything below the
    component (validation, the resolved cluster, substrates and add-ons) reads the config under this
    name, so nothing there imports the component (providers/ssh/config.py reads the key).
    """

    cluster: ClusterSpec
    node_pools: list[NodePoolSpec]
    gpu_operator: NotRequired[GpuOperatorSpec]
    """Default: chart v26.7.0, driver preinstalled."""
    workloads: NotRequired[WorkloadsSpec]
    budget: NotRequired[BudgetSpec]
    """A cost limit checked before anything is created (preflight error when the stack exceeds it)."""
    storage: NotRequired[StorageSpec]
    """Shared ReadWriteMany volumes (components/addons/storage/): each a StorageClass `shared-<name>`."""
    verification: NotRequired[VerificationSpec]
    """One Job per GPU pool that proves a pod gets what the pool promises; `pulumi up` waits for it."""
    batch: NotRequired[BatchSpec]
    """Queued batch and training (components/addons/batch/): Kueue, its queues, and Kubeflow Trainer."""
    inference: NotRequired[InferenceSpec]
    """Metrics and pod autoscaling for serving (components/addons/inference/)."""
    ephemeral: NotRequired[EphemeralSpec]
    """`gpukit ephemeral up`'s expiry, tagged / labelled on every cloud resource."""

"""Where a substrate keeps its metrics: the inference add-on's per-substrate fact
(Substrate.addon_variants["inference"]).

- EKS and k3s (this default, and EKS's EksInference in providers/aws/eks/inference_variant.py): an
  in-cluster Prometheus (kube-prometheus-stack) on a volume of the cluster's default StorageClass; KEDA
  queries it over the cluster network, without credentials.
- GKE (providers/gcp/gke/inference_variant.py): Google Cloud Managed Service for Prometheus, which GKE
  runs itself (managed collection); KEDA queries its Prometheus API with a Google service account
  through workload identity, and nothing of the store runs in the cluster but GKE's collectors.
"""

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpukit.components.addons.inference.names import IN_CLUSTER_PROMETHEUS_URL
from gpukit.components.findings import Finding
from gpukit.components.pricing import Charge
from gpukit.components.substrate import ResolvedCluster

if TYPE_CHECKING:
    import pulumi

    from gpukit.components.addons.base import BuildContext
    from gpukit.components.errors import Problem
    from gpukit.components.spec import ClusterSpec

INFERENCE = "inference"
"""The add-on's name: its key in Substrate.addon_variants."""


@dataclass(frozen=True)
class VolumePrice:
    """What the in-cluster store's volume costs here, or why gpukit cannot say."""

    usd_per_gb_month: float | None
    note: str
    """`EBS gp3 in us-east-1, $0.08/GB-month`, or why unpriced."""
    billed: bool = True
    """Whether the volume is billed apart from the nodes (a cloud disk) at all."""


@dataclass(frozen=True)
class StoreAccess:
    """What a managed store's variant built so KEDA can query it (in-cluster: nothing)."""

    keda_values: dict[str, Any]
    """Chart values for KEDA's operator identity (`podIdentity.gcp`), Pulumi inputs inside."""
    waits: "tuple[pulumi.Resource, ...]" = ()
    """What KEDA's release waits for (the identity's IAM binding)."""


class InferenceVariant:
    """The default: an in-cluster Prometheus on the default StorageClass, which on k3s is local-path
    (a volume on one node's disk)."""

    managed_store: bool = False
    store: str = "in-cluster Prometheus"
    node_local_volume: bool = True
    """The default StorageClass keeps a volume on one node's disk (k3s's local-path): if that machine is
    replaced, the Prometheus pod cannot follow its volume (findings.py says so)."""
    volume_class: str = "the default StorageClass (k3s's local-path)"
    usd_per_million_samples: float | None = None
    """A managed store's list price per million samples ingested (its first, dearest tier: an upper
    bound); None where the store is in the cluster or gpukit has no sourced price."""
    keda_pod_identity: str = ""
    """The KEDA pod identity provider a managed store is queried with (`gcp`: the operator's Kubernetes
    service account acts as a Google one); empty where the store wants no credentials."""
    managed_retention: str = ""
    """How long a managed store keeps samples, in words (`24 months`); empty for the in-cluster one."""
    zonal_volume: bool = False
    """The volume lives in one zone (EBS): the Prometheus pod can run only on a node of that zone."""
    network_policy_enforced: bool = True
    """Whether the cluster's CNI enforces the NetworkPolicy that keeps the in-cluster Prometheus's API
    to gpukit's own namespaces (k3s's embedded network policy controller does)."""

    gateway_classes: tuple[str, ...] = ()
    """The GatewayClasses gpukit builds the inference Gateway on here, the default first; empty where it
    builds none yet (k3s: the default variant)."""
    gateway_classes_refused: tuple[tuple[str, str], ...] = ()
    """Classes the platform offers that gpukit does not build on yet, each with why."""
    gateway_implementation: str = ""
    """Who programs the Gateway, in words (the report's)."""
    runs_envoy_gateway: bool = False
    """gpukit installs Envoy Gateway (pinned) and the standard Gateway API CRDs; False where the platform
    runs its own controller and CRDs (GKE)."""

    def gateway_cidrs_problem(self, cidrs: list[str]) -> str | None:
        """Why `gateway.allowedCidrs` cannot be honoured here, or None."""
        return None

    def gateway_network_problem(self, cluster: "ClusterSpec") -> "Problem | None":
        """Why the cluster's network cannot take what the Gateway needs (GKE: the proxy-only subnet's
        range overlaps another), or None."""
        return None

    def envoy_service(self, cluster: ResolvedCluster, cidrs: list[str]) -> dict[str, Any]:
        """The EnvoyProxy's `envoyService`: the load balancer in front of the proxies."""
        return {}

    def gateway_scope(self, cluster: ResolvedCluster, cidrs: list[str]) -> str:
        """Who can reach the Gateway, in words (the report's)."""
        return ""

    def gateway_charge(self, cluster: ResolvedCluster, cidrs: list[str]) -> Charge | None:
        """The Gateway's load balancer, per hour at list price; None where nothing is billed for it."""
        return None

    def gateway_findings(self, cluster: ResolvedCluster) -> list[Finding]:
        """What the plan must say about the Gateway here (GKE: a network gpukit did not create)."""
        return []

    def query_url(self, cluster: ResolvedCluster) -> str:
        """The Prometheus HTTP API KEDA's Prometheus scaler queries (its `serverAddress`)."""
        return IN_CLUSTER_PROMETHEUS_URL

    def keda_platform_values(self) -> dict[str, Any]:
        """KEDA chart values the platform needs (GKE: the ports its control plane may reach)."""
        return {}

    def retention_fixed(self) -> str | None:
        """Why `metrics.retentionDays` cannot be set here (the store keeps what it keeps), or None."""
        return None

    def volume_price(self, cluster: ResolvedCluster) -> VolumePrice:
        return VolumePrice(
            None,
            "on a node's own disk (local-path): no separate volume charge; the disk is the node's",
            billed=False,
        )

    def build_access(self, ctx: "BuildContext") -> StoreAccess | None:
        """The identity and grants KEDA queries a managed store with; None for an in-cluster store."""
        return None

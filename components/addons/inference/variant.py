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

from gpukit.components.addons.inference.gateway_names import (
    ENVOY_GATEWAY_CLASS,
    ENVOY_GATEWAY_NAMESPACE,
    GATEWAY_NODE_PORT,
    GATEWAY_PORT,
    GatewayTarget,
    envoy_proxy_service,
)
from gpukit.components.addons.inference.gateway_ranges import admitted_ranges, network_scope, system_nodes
from gpukit.components.addons.inference.names import IN_CLUSTER_PROMETHEUS_URL
from gpukit.components.api_access import is_internal
from gpukit.components.findings import Finding
from gpukit.components.k3s.host_scripts import POD_CIDR
from gpukit.components.pricing import Charge
from gpukit.components.substrate import ResolvedCluster, Substrate

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
    """The default, k3s's: an in-cluster Prometheus on the default StorageClass, which on k3s is
    local-path (a volume on one node's disk); the Gateway is Envoy Gateway's, its proxies answering on a
    fixed node port of the nodes without GPUs (gpukit's k3s runs no service load balancer: ServiceLB
    is off), held to the admitted ranges by an Envoy client-address policy and, on EC2 and Compute
    Engine, by the cloud firewall gpukit opens for that port (providers/aws/k3s/security.py,
    providers/gcp/k3s/firewall.py)."""

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

    gateway_classes: tuple[str, ...] = (ENVOY_GATEWAY_CLASS,)
    """The GatewayClasses gpukit builds the inference Gateway on here, the default first; empty where it
    builds none."""
    gateway_classes_refused: tuple[tuple[str, str], ...] = ()
    """Classes the platform offers that gpukit does not build on yet, each with why."""
    gateway_implementation: str = f"Envoy Gateway v1.9.0 on node port {GATEWAY_NODE_PORT}"
    """Who programs the Gateway, in words (the report's)."""
    runs_envoy_gateway: bool = True
    """gpukit installs Envoy Gateway (pinned) and the standard Gateway API CRDs; False where the platform
    runs its own controller and CRDs (GKE)."""
    gateway_client_policy: bool = True
    """Envoy itself admits only the admitted ranges (a SecurityPolicy on the Gateway): where nothing in
    front of the proxies does (k3s's node port)."""
    gateway_health_check_policies: bool = False
    """The platform's load balancer health-checks each backend Service on `/` unless a policy says
    otherwise (GKE's HealthCheckPolicy): the inference check gives its backends one."""

    def gateway_check_target(self) -> GatewayTarget:
        """Where the inference check's pod reaches the Gateway: Envoy Gateway's proxies through their
        Service inside the cluster (gateway_names.envoy_proxy_service). Through the node port on k3s
        that is the same Service; on EKS an NLB's instance targets drop a client that is itself a
        target (client IP preserved: no hairpin), so a pod cannot count on reaching it. Of the NLB,
        `pulumi up` knows only that the Gateway became Programmed: the NLB exists (its address is
        assigned) and the proxies are available; whether its targets are healthy and its rules admit
        a client outside the cluster is not checked."""
        host = f"{envoy_proxy_service()}.{ENVOY_GATEWAY_NAMESPACE}.svc.cluster.local"
        return GatewayTarget(host, GATEWAY_PORT)

    def gateway_client_ranges(self, cluster: ResolvedCluster, cidrs: list[str]) -> list[str]:
        """Who Envoy's client-address policy admits: the admitted ranges, and the cluster's own pods
        (k3s's pod network, which a VPC's range leaves out), which reach the Gateway's Service inside the
        cluster."""
        return list(dict.fromkeys([*admitted_ranges(cluster, cidrs), POD_CIDR]))

    def gateway_cidrs_problem(self, substrate: "Substrate", cidrs: list[str]) -> str | None:
        """Why `gateway.allowedCidrs` cannot be honoured here, or None. k3s on a cloud: the nodes answer
        on private addresses only (gpukit puts no load balancer in front of the node port)."""
        public = [c for c in cidrs if not is_internal(c)]
        if substrate.builds_machines and public:
            return (
                f"{', '.join(public)} lie outside private address space, and on {substrate.title} the "
                f"Gateway answers on node port {GATEWAY_NODE_PORT} of machines reached at private "
                "addresses (no load balancer of gpukit's in front): list private ranges (the VPC, a VPN, "
                "a peered network)"
            )
        return None

    def gateway_network_problem(self, cluster: "ClusterSpec") -> "Problem | None":
        """Why the cluster's network cannot take what the Gateway needs (GKE: the proxy-only subnet's
        range overlaps another), or None."""
        return None

    def envoy_service(self, cluster: ResolvedCluster, cidrs: list[str]) -> dict[str, Any]:
        """The EnvoyProxy's `envoyService`: what is in front of the proxies. Here a NodePort Service on a
        fixed port (a strategic-merge patch of the Service's port 80, merged on `port`); `Local` keeps
        the client's address for the client-address policy and answers on the nodes that run a proxy."""
        return {
            "type": "NodePort",
            "externalTrafficPolicy": "Local",
            "patch": {
                "type": "StrategicMerge",
                "value": {"spec": {"ports": [{"port": GATEWAY_PORT, "nodePort": GATEWAY_NODE_PORT}]}},
            },
        }

    def gateway_scope(self, cluster: ResolvedCluster, cidrs: list[str]) -> str:
        """Who can reach the Gateway, in words (the report's)."""
        firewall = " and the cloud firewall" if cluster.substrate.builds_machines else ""
        return (
            f"node port {GATEWAY_NODE_PORT} of the nodes of {system_nodes(cluster)} that run a proxy, "
            f"{network_scope(cluster, cidrs)} (Envoy's client-address policy{firewall})"
        )

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

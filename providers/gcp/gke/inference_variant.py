"""GKE's metrics store, the inference add-on's variant there (Substrate.addon_variants): Google Cloud
Managed Service for Prometheus with managed collection (the cluster's monitoring_config switches it on:
providers/gcp/gke/cluster.py), fed by gpukit's monitors (monitors.py: a ClusterPodMonitoring for workloads,
a PodMonitoring for the GPU Operator's DCGM exporter where it runs). It keeps samples 24 months
("Data is retained for 24 months", https://cloud.google.com/stackdriver/docs/managed-prometheus) and
bills per sample ingested.

KEDA queries its Prometheus API (https://monitoring.googleapis.com/v1/projects/<project>/location/
global/prometheus) as a Google service account of its own, which holds only roles/monitoring.viewer on
the project and which the KEDA operator's Kubernetes service account impersonates through workload
identity (KEDA's `podIdentity.gcp`; its Prometheus scaler then signs with Google's OAuth transport).
No key is made: nothing a pod can read grants it.

The inference Gateway is GKE's own controller's (the cluster's Gateway API channel: gateway.py), on
`gke-l7-rilb`, the regional internal Application Load Balancer: reachable from the VPC (and networks
routed into it) only. Its Envoy proxies live in a proxy-only subnet, which gpukit adds to a network it
creates, with the firewall rule that lets them and the health checks reach the nodes
(providers/gcp/proxy_only.py). The external classes are refused until gpukit can hold them to
`allowedCidrs`: a Cloud Armor policy, attached per backend Service (GCPBackendPolicy), not per Gateway,
so a route to a Service without one would be open to the internet."""

from typing import TYPE_CHECKING, Any

from gpukit.components.addons.inference.gateway_names import GATEWAY_PORT, GatewayTarget
from gpukit.components.addons.inference.names import KEDA_NAMESPACE, KEDA_OPERATOR_SERVICE_ACCOUNT
from gpukit.components.addons.inference.variant import InferenceVariant, StoreAccess, VolumePrice
from gpukit.components.errors import Problem
from gpukit.components.findings import Finding, Severity
from gpukit.components.names import fit_name
from gpukit.components.pricing import Charge
from gpukit.components.spec import ClusterSpec
from gpukit.components.substrate import ResolvedCluster, Substrate
from gpukit.providers.gcp.catalog import FORWARDING_RULE_PER_HOUR
from gpukit.providers.gcp.gke.iam import ACCOUNT_ID_MAX
from gpukit.providers.gcp.gke.shared_storage.state import GkeStorageState
from gpukit.providers.gcp.ranges import overlaps, proxy_only_range, subnet_ranges

if TYPE_CHECKING:
    from gpukit.components.addons.base import BuildContext

KEDA_ROLE = "roles/monitoring.viewer"
GMP_USD_PER_MILLION_SAMPLES = 0.06
"""Google Cloud Observability pricing (https://cloud.google.com/stackdriver/pricing, Cloud Monitoring:
"Metrics ingested by using Google Cloud Managed Service for Prometheus"): $0.06 per million samples for
the first 50 billion a month, less beyond; gpukit prices every sample at the first tier, an upper bound.
⚠ The tiers were read from a guide quoting the page (faun.dev, "Google Cloud Managed Service for
Prometheus"); the pricing page's own row was not in the snapshot gpukit could read."""
WORKLOAD_IDENTITY_ROLE = "roles/iam.workloadIdentityUser"
INTERNAL_GATEWAY_CLASS = "gke-l7-rilb"
_EXTERNAL_WHY = (
    "an external class needs a Cloud Armor policy on every backend Service to admit only "
    "`allowedCidrs`, which gpukit does not make yet"
)


def gmp_query_url(project: str) -> str:
    return f"https://monitoring.googleapis.com/v1/projects/{project}/location/global/prometheus"


def keda_account_id(cluster_name: str) -> str:
    """`<cluster>-keda`, cut and hashed where the cluster's name is too long for 30 characters."""
    return fit_name(cluster_name, "-keda", ACCOUNT_ID_MAX)


def keda_member(project: str) -> str:
    """The KEDA operator's Kubernetes service account as an IAM member of the cluster's workload pool."""
    return f"serviceAccount:{project}.svc.id.goog[{KEDA_NAMESPACE}/{KEDA_OPERATOR_SERVICE_ACCOUNT}]"


class GkeInference(InferenceVariant):
    managed_store = True
    store = "Google Cloud Managed Service for Prometheus (managed collection)"
    node_local_volume = False
    volume_class = ""
    usd_per_million_samples = GMP_USD_PER_MILLION_SAMPLES
    managed_retention = "24 months"
    keda_pod_identity = "gcp"
    gateway_classes = (INTERNAL_GATEWAY_CLASS,)
    gateway_classes_refused = (
        ("gke-l7-regional-external-managed", _EXTERNAL_WHY),
        ("gke-l7-global-external-managed", _EXTERNAL_WHY),
        ("gke-l7-gxlb", _EXTERNAL_WHY),
    )
    gateway_implementation = "GKE's managed Gateway controller"
    runs_envoy_gateway = False
    gateway_client_policy = False
    gateway_health_check_policies = True

    def gateway_check_target(self) -> GatewayTarget:
        """The regional internal load balancer's own address (the Gateway's status): pods are VPC
        addresses of the region, which it admits."""
        return GatewayTarget("", GATEWAY_PORT)

    def gateway_cidrs_problem(self, substrate: Substrate, cidrs: list[str]) -> str | None:
        return (
            f"GKE's internal class {INTERNAL_GATEWAY_CLASS} admits the cluster's VPC and networks routed "
            "into it, and gpukit builds no external class yet (Cloud Armor per backend Service); remove the "
            f"key, got {len(cidrs)} range(s)"
        )

    def gateway_network_problem(self, cluster: ClusterSpec) -> Problem | None:
        network = cluster.get("network", {})
        if "cidr" not in network:
            return None  # a network you bring: findings say what it needs
        try:
            ranges = subnet_ranges(network["cidr"], network.get("pods_cidr"), network.get("services_cidr"))
            proxy = proxy_only_range(network["cidr"])
        except ValueError:
            return None  # the network's own checks name the malformed range
        # The proxy-only range is named last, so each pair with it has it second.
        clash = [a for a, b in overlaps(ranges, proxy) if b == "proxy-only"]
        if not clash:
            return None
        return Problem(
            "gpukit:cluster.network",
            f"the inference Gateway's proxy-only subnet takes {proxy} (the last /23 of the network's second "
            f"quarter), which the {', '.join(clash)} range overlaps; move `podsCidr`/`servicesCidr` off it, "
            "or set `gpukit:inference.gateway.enabled: false`",
        )

    def gateway_scope(self, cluster: ResolvedCluster, cidrs: list[str]) -> str:
        return "regional internal Application Load Balancer: the VPC and networks routed into it"

    def gateway_charge(self, cluster: ResolvedCluster, cidrs: list[str]) -> Charge:
        rate = FORWARDING_RULE_PER_HOUR
        return Charge(
            "internal Application Load Balancer forwarding rule (inference gateway; proxy instances and "
            "data not included)",
            rate,
            rate,
        )

    def gateway_findings(self, cluster: ResolvedCluster) -> list[Finding]:
        network = cluster.spec.get("network", {})
        if "network_id" not in network:
            return []
        return [
            Finding(
                Severity.WARNING,
                "gpukit:inference.gateway",
                f"{INTERNAL_GATEWAY_CLASS} needs an active proxy-only subnet (purpose "
                f"REGIONAL_MANAGED_PROXY) in {cluster.spec.get('region', 'the region')} of the network you "
                "bring, and a firewall rule admitting it and the health-check ranges (35.191.0.0/16, "
                "130.211.0.0/22) to the nodes; gpukit makes both only in a network it creates, and "
                "cannot see yours offline: without them the "
                "Gateway is never programmed",
                fix="create them in the network (gcloud compute networks subnets create ... "
                "--purpose=REGIONAL_MANAGED_PROXY --role=ACTIVE), or let gpukit create the network "
                "(`cluster.network.cidr`)",
            )
        ]

    def keda_platform_values(self) -> dict[str, Any]:
        """GKE's firewall lets the control plane reach nodes and pods on 443 and 10250 only ("Add
        firewall rules for specific use cases", GKE docs; KEDA's cluster page names 6443 for Google
        Cloud): the metrics API server and the admission webhooks listen on 10250 in their pods' own
        network namespaces, so the API server reaches both without a firewall rule of gpukit's."""
        return {"service": {"portHttpsTarget": 10250}, "webhooks": {"port": 10250}}

    def query_url(self, cluster: ResolvedCluster) -> str:
        return gmp_query_url(cluster.spec.get("project", ""))

    def retention_fixed(self) -> str | None:
        return (
            f"GKE's metrics store, Managed Service for Prometheus, keeps samples {self.managed_retention} "
            "whatever is set; "
            "gpukit runs no Prometheus of its own there"
        )

    def volume_price(self, cluster: ResolvedCluster) -> VolumePrice:
        return VolumePrice(None, "no volume: the store is Google's", billed=False)

    def build_access(self, ctx: "BuildContext") -> StoreAccess:
        """Under the GkeCluster component, on the stack's gcp provider, like the cluster's other IAM."""
        # Lazy: building imports pulumi_gcp, which planning another cloud's stack never needs.
        import pulumi
        import pulumi_gcp as gcp

        state = ctx.handle.substrate_state
        if not isinstance(state, GkeStorageState):
            raise TypeError(f"the GKE build keeps a GkeStorageState; got {type(state).__name__}")
        child = pulumi.ResourceOptions(parent=state.component, provider=state.gcp_provider)
        account = gcp.serviceaccount.Account(
            f"{ctx.name}-keda",
            account_id=keda_account_id(state.cluster_name),
            display_name=f"KEDA of {state.cluster_name}: reads Managed Prometheus (gpukit)",
            opts=child,
        )
        viewer = gcp.projects.IAMMember(
            f"{ctx.name}-keda-monitoring-viewer",
            project=state.project,
            role=KEDA_ROLE,
            member=account.email.apply(lambda email: f"serviceAccount:{email}"),
            opts=child,
        )
        # The workload pool exists once the cluster does (its workload_identity_config).
        impersonate = gcp.serviceaccount.IAMMember(
            f"{ctx.name}-keda-workload-identity",
            service_account_id=account.name,
            role=WORKLOAD_IDENTITY_ROLE,
            member=keda_member(state.project),
            opts=pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(depends_on=state.after)),
        )
        identity = {"podIdentity": {"gcp": {"enabled": True, "gcpIAMServiceAccount": account.email}}}
        return StoreAccess(identity, waits=(viewer, impersonate))

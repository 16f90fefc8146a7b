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
No key is made: nothing a pod can read grants it."""

from typing import TYPE_CHECKING, Any

from gpukit.components.addons.inference.names import KEDA_NAMESPACE, KEDA_OPERATOR_SERVICE_ACCOUNT
from gpukit.components.addons.inference.variant import InferenceVariant, StoreAccess, VolumePrice
from gpukit.components.names import fit_name
from gpukit.components.substrate import ResolvedCluster
from gpukit.providers.gcp.gke.iam import ACCOUNT_ID_MAX
from gpukit.providers.gcp.gke.shared_storage.state import GkeStorageState

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

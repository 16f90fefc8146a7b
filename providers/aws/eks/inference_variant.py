"""EKS's metrics store, the inference add-on's variant there (Substrate.addon_variants): the in-cluster
Prometheus on the cluster's default StorageClass, encrypted gp3 EBS (providers/aws/eks/storage.py),
priced at the gp3 rate of the region the cluster charges are list prices of (us-east-1). An EBS volume
is zonal: a replaced node's Prometheus comes back on a node of the same zone with its history, where
the system pool has a node in that zone (it spans the cluster's zones).

The inference Gateway: Envoy Gateway (pinned chart, components/addons/inference/charts.py), its proxies
behind a Network Load Balancer that EKS's own service controller (the AWS cloud provider in the control
plane) makes for their LoadBalancer Service: gpukit installs no AWS Load Balancer Controller, and the
ALB that controller's Gateway support makes has no InferencePool support (the fact sheet, §3.2). The
in-tree controller makes an NLB for `service.beta.kubernetes.io/aws-load-balancer-type: nlb`, internal
for `...-internal: "true"`, in the subnets tagged `kubernetes.io/role/internal-elb` (private) or
`.../elb` (public), which gpukit's VPC has (providers/aws/network.py); and it admits clients by rules
it adds to the nodes' security group from `loadBalancerSourceRanges`, 0.0.0.0/0 when the list is
empty ("Network Load Balancer support on AWS", the Kubernetes Service documentation). So the list is
always set: the VPC's range (or private space in a VPC gpukit did not make) for an internal NLB,
`allowedCidrs` otherwise."""

from typing import Any

from gpukit.components.addons.inference.gateway_names import ENVOY_GATEWAY_CLASS
from gpukit.components.addons.inference.gateway_ranges import admitted_ranges, network_scope
from gpukit.components.addons.inference.settings import gateway_spec
from gpukit.components.addons.inference.variant import InferenceVariant, VolumePrice
from gpukit.components.addons.storage.rates import server_disk_rate
from gpukit.components.api_access import is_internal, needs_public_endpoint
from gpukit.components.findings import Finding, Severity
from gpukit.components.pricing import Charge
from gpukit.components.substrate import ResolvedCluster, Substrate
from gpukit.providers.aws.catalog import NETWORK_LOAD_BALANCER_PER_HOUR

NLB_TYPE = "service.beta.kubernetes.io/aws-load-balancer-type"
NLB_INTERNAL = "service.beta.kubernetes.io/aws-load-balancer-internal"


class EksInference(InferenceVariant):
    node_local_volume = False
    zonal_volume = True
    # The VPC CNI enforces no NetworkPolicy unless its network policy agent is on, which gpukit leaves
    # off (as the storage add-on's EKS variant says).
    network_policy_enforced = False
    volume_class = "the default StorageClass (encrypted gp3 EBS, one zone)"
    gateway_classes = (ENVOY_GATEWAY_CLASS,)
    gateway_implementation = "Envoy Gateway v1.9.0 behind a Network Load Balancer"
    runs_envoy_gateway = True
    # The NLB's source ranges hold it (the nodes' security group); the client-address policy would only
    # repeat them.
    gateway_client_policy = False

    def gateway_cidrs_problem(self, substrate: Substrate, cidrs: list[str]) -> str | None:
        return None  # any range: a public one makes the NLB internet-facing

    def envoy_service(self, cluster: ResolvedCluster, cidrs: list[str]) -> dict[str, Any]:
        annotations = {NLB_TYPE: "nlb"}
        if not needs_public_endpoint(cidrs):
            annotations[NLB_INTERNAL] = "true"
        return {
            "type": "LoadBalancer",
            "annotations": annotations,
            "loadBalancerSourceRanges": admitted_ranges(cluster, cidrs),
            # Envoy Gateway's default, stated: the client's address reaches the proxy and the security
            # group's rules see it.
            "externalTrafficPolicy": "Local",
        }

    def gateway_scope(self, cluster: ResolvedCluster, cidrs: list[str]) -> str:
        scheme = "internet-facing" if needs_public_endpoint(cidrs) else "internal"
        return f"{scheme} NLB, {network_scope(cluster, cidrs)}"

    def gateway_findings(self, cluster: ResolvedCluster) -> list[Finding]:
        """Private ranges beside public ones: the NLB is internet-facing, so a client inside the VPC or
        a network routed into it reaches it through a NAT's public address, never from its own."""
        cidrs = gateway_spec(cluster.args).get("allowed_cidrs", [])
        private = [c for c in cidrs if is_internal(c)]
        if not private or not needs_public_endpoint(cidrs):
            return []
        return [
            Finding(
                Severity.WARNING,
                "gpukit:inference.gateway.allowedCidrs",
                f"{', '.join(private)} never match: a public range makes the NLB internet-facing, and a "
                "client in the VPC (or a network routed into it) reaches an internet-facing NLB from a "
                "NAT's public address",
                fix="list the NAT gateways' public addresses instead, or only private ranges (an internal "
                "NLB)",
            )
        ]

    def gateway_charge(self, cluster: ResolvedCluster, cidrs: list[str]) -> Charge:
        rate = NETWORK_LOAD_BALANCER_PER_HOUR
        return Charge("Network Load Balancer (inference gateway; NLCU use not included)", rate, rate)

    def volume_price(self, cluster: ResolvedCluster) -> VolumePrice:
        # At the catalog's home region's list price, like every cluster charge (the plan says which).
        region = cluster.substrate.catalog.price_basis.region
        rate = server_disk_rate("gp3", region)
        if rate is None:
            return VolumePrice(None, f"gpukit has no sourced gp3 price in {region or 'this region'}")
        return VolumePrice(
            rate.usd_per_gb_month,
            f"gp3 ${rate.usd_per_gb_month:.2f}/GB-month ({region} list price, the plan's price basis)",
        )

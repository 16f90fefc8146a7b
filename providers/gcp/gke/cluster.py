"""GkeCluster: a GKE Standard cluster, its node pools, storage and a Kubernetes provider, for GpuCluster."""

from typing import Optional, TypedDict

import pulumi
import pulumi_gcp as gcp
import pulumi_kubernetes as k8s

from gpukit.components.addons.inference.settings import inference_settings, metrics_enabled
from gpukit.components.api_access import unreachable_private_api
from gpukit.components.handle import ClusterHandle
from gpukit.components.spec import DriverMode, ReleaseChannel
from gpukit.components.substrate import ResolvedCluster
from gpukit.providers.gcp.apis import GKE_APIS
from gpukit.providers.gcp.gke.gateway import gateway_api_config
from gpukit.providers.gcp.gke.gpu_network import GkeGpuNetworks
from gpukit.providers.gcp.gke.gpu_networks import GpuVpc, gpu_vpcs, network_objects, pool_subnets
from gpukit.providers.gcp.gke.gpu_software import gke_driver_version
from gpukit.providers.gcp.gke.iam import NODE_ROLES, node_service_account_id
from gpukit.providers.gcp.gke.interconnect_variant import gpu_block, pool_compact
from gpukit.providers.gcp.gke.kubeconfig import dns_endpoint_of, gke_kubeconfig
from gpukit.providers.gcp.gke.monitoring import monitoring_config
from gpukit.providers.gcp.gke.network_objects import GkeNetworkObjects
from gpukit.providers.gcp.gke.node_pool import GkeNodePool
from gpukit.providers.gcp.gke.secrets_key import GkeSecretsKey
from gpukit.providers.gcp.gke.shared_storage.state import GkeStorageState
from gpukit.providers.gcp.gke.shared_storage.tables import cluster_addons, storage_apis
from gpukit.providers.gcp.gke.shared_storage.volumes import gke_shared_volumes
from gpukit.providers.gcp.gke.storage import GkeStorage
from gpukit.providers.gcp.labels import cluster_labels, expiry_labels
from gpukit.providers.gcp.network import PODS_RANGE, SERVICES_RANGE, GcpNetwork, GcpNetworkArgs
from gpukit.providers.gcp.placement import cluster_location, pool_zones
from gpukit.providers.gcp.provider import cluster_provider
from gpukit.providers.gcp.quotas import enforce_quotas, gke_quota_needs
from gpukit.providers.gcp.ranges import proxy_only_range, subnet_ranges

TYPE_TOKEN = "gpukit:index:GkeCluster"


class GkeClusterArgs(TypedDict):
    cluster: ResolvedCluster
    """The validated cluster (Python-only: this component is built by GpuCluster)."""


class GkeCluster(pulumi.ComponentResource):
    cluster_name: pulumi.Output[str]
    endpoint: pulumi.Output[str]
    kubeconfig: pulumi.Output[str]
    handle: ClusterHandle

    def __init__(self, name: str, args: GkeClusterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        resolved = args["cluster"]
        spec = resolved.spec
        cluster_name, project, region = spec["name"], spec.get("project", ""), spec["region"]
        location = cluster_location(spec)
        operator = resolved.operator
        driver = operator["driver"]
        driver_version = gke_driver_version(operator)

        shared = gke_shared_volumes(resolved)
        shared_kinds = {v.kind for v in shared}
        provider, apis = cluster_provider(name, spec, self, GKE_APIS + storage_apis(shared_kinds))
        child = pulumi.ResourceOptions(parent=self, provider=provider)
        # Before the cluster: a GPU quota of 0 would leave node pools and verification waiting. The
        # read goes through the provider that waits for the project's APIs (Cloud Quotas among them).
        enforce_quotas(
            resolved, gke_quota_needs(resolved), pulumi.InvokeOptions(parent=self, provider=provider)
        )
        secrets_key = GkeSecretsKey(
            f"{name}-secrets",
            {"project": project, "region": region, "apis": apis},
            opts=pulumi.ResourceOptions(parent=self, providers={"gcp": provider}),
        )

        node_sa = gcp.serviceaccount.Account(
            f"{name}-nodes",
            account_id=node_service_account_id(cluster_name),
            display_name=f"GKE nodes of {cluster_name} (gpukit)",
            opts=child,
        )
        grants = [
            gcp.projects.IAMMember(
                f"{name}-nodes-{role.rsplit('/', 1)[-1].replace('.', '-')}",
                project=project,
                role=role,
                member=node_sa.email.apply(lambda email: f"serviceAccount:{email}"),
                opts=child,
            )
            for role in NODE_ROLES
        ]

        network = spec["network"]
        network_id, subnetwork_id, pods_range, services_range, proxy_only = _cluster_network(
            name, resolved, self, provider, node_sa.email
        )

        # GPUDirect pools' extra VPCs (gpu_networks.py): before the pools, which attach them.
        gpu_vpcs_planned, gpu_networks = _gpu_networks(name, resolved, self, provider)

        cidrs = spec["api_access_cidrs"]
        # A private API in a network this stack makes: Pulumi reaches it over GKE's DNS-based
        # endpoint instead (IAM-checked, from anywhere), since no route into the new network exists.
        dns_endpoint = unreachable_private_api(cidrs, network.get("cidr")) is not None
        cluster = gcp.container.Cluster(
            f"{name}-gke",
            # No delete_before_replace: a replaced cluster is a new, empty one; created first, it fails
            # on the name before the old one (and its node pools) are deleted.
            name=cluster_name,
            location=location,
            network=network_id,
            subnetwork=subnetwork_id,
            min_master_version=spec["kubernetes_version"],
            release_channel={"channel": spec.get("release_channel", ReleaseChannel.REGULAR).value.upper()},
            # The default pool is removed once the cluster exists; it still boots briefly, so it uses
            # the same locked-down service account as every other pool.
            remove_default_node_pool=True,
            initial_node_count=1,
            node_config={
                "service_account": node_sa.email,
                "oauth_scopes": ["https://www.googleapis.com/auth/cloud-platform"],
                "workload_metadata_config": {"mode": "GKE_METADATA"},
            },
            ip_allocation_policy={
                "cluster_secondary_range_name": pods_range,
                "services_secondary_range_name": services_range,
            },
            private_cluster_config={
                "enable_private_nodes": True,  # nodes have internal addresses only
                "enable_private_endpoint": not cidrs,  # no CIDRs: the API is reachable only inside the VPC
            },
            # Always stated: the block is optional and computed, so leaving it out after the DNS endpoint
            # was opened would keep it open (the provider keeps the last value).
            control_plane_endpoints_config={"dns_endpoint_config": {"allow_external_traffic": dns_endpoint}},
            master_authorized_networks_config={
                "cidr_blocks": [
                    {"cidr_block": c, "display_name": f"gpukit-{i}"} for i, c in enumerate(cidrs)
                ],
            },
            workload_identity_config={"workload_pool": f"{project}.svc.id.goog"},
            datapath_provider="ADVANCED_DATAPATH",  # Dataplane V2 (eBPF, network policy built in)
            # The GPU NICs' networks need it (and Dataplane V2); set only then, as Google's blueprints do.
            enable_multi_networking=True if gpu_networks is not None else None,
            enable_shielded_nodes=True,
            # The shared volumes' CSI drivers only when a volume needs one (tables.py storage_addons).
            addons_config=cluster_addons(shared_kinds),
            # GKE-managed GPU nodes export DCGM metrics only when the cluster asks for them; the
            # inference add-on's store is managed collection (providers/gcp/gke/inference_variant.py).
            monitoring_config=monitoring_config(
                driver == DriverMode.PREINSTALLED and any(p.is_gpu for p in resolved.pools),
                metrics_enabled(resolved.args),
            ),
            # The inference Gateway's CRDs and controller are GKE's (gateway.py).
            gateway_api_config=gateway_api_config(inference_settings(resolved).gateway),
            # Secrets in etcd encrypted with the stack's own rotating Cloud KMS key (secrets_key.py).
            database_encryption={"state": "ENCRYPTED", "key_name": secrets_key.key_id},
            deletion_protection=spec.get("deletion_protection", True),
            opts=pulumi.ResourceOptions(
                parent=self, provider=provider, depends_on=[*grants, secrets_key.grant, *proxy_only]
            ),
        )

        system_pools: list[pulumi.Resource] = []
        pool_specs = resolved.args["node_pools"]
        for pool, pool_spec in zip(resolved.pools, pool_specs, strict=True):
            node_pool = GkeNodePool(
                f"{name}-{pool.name}",
                {
                    "cluster": cluster.id,
                    "location": location,
                    "service_account": node_sa.email,
                    "pool": pool,
                    "zones": pool_zones(spec, pool),
                    "driver": driver,
                    "gke_driver_version": driver_version,
                    "compact_placement": pool_compact(pool_spec, pool),
                    "resource_labels": cluster_labels(spec),
                    "extra_networks": (
                        [gpu_networks.subnets[s.k8s_network] for _, s in pool_subnets(pool, gpu_vpcs_planned)]
                        if gpu_networks is not None
                        else []
                    ),
                },
                opts=pulumi.ResourceOptions(parent=self, providers={"gcp": provider}),
            )
            if not pool.is_gpu and pool.min_nodes >= 1:
                system_pools.append(node_pool)

        context = f"gke_{project}_{location}_{cluster_name}"
        rendered: pulumi.Output[str]
        if dns_endpoint:
            rendered = cluster.control_plane_endpoints_config.apply(
                lambda c: gke_kubeconfig(context, dns_endpoint_of(c), None)
            )
        else:
            rendered = pulumi.Output.all(cluster.endpoint, cluster.master_auth.cluster_ca_certificate).apply(
                lambda a: gke_kubeconfig(context, a[0], a[1])
            )
        kubeconfig: pulumi.Output[str] = pulumi.Output.secret(rendered)
        kubernetes = k8s.Provider(
            f"{name}-k8s", kubeconfig=kubeconfig, opts=pulumi.ResourceOptions(parent=self)
        )

        if gpu_networks is not None:
            GkeNetworkObjects(
                f"{name}-gpu-network-objects",
                {"objects": network_objects(gpu_vpcs_planned)},
                opts=pulumi.ResourceOptions(
                    parent=self, providers={"kubernetes": kubernetes}, depends_on=[cluster, gpu_networks]
                ),
            )

        storage = GkeStorage(
            f"{name}-storage",
            {
                "hyperdisk": any(p.instance.hyperdisk_only for p in resolved.pools),
                "disk_labels": expiry_labels(spec),
            },
            opts=pulumi.ResourceOptions(
                parent=self, providers={"kubernetes": kubernetes}, depends_on=system_pools
            ),
        )

        self.cluster_name = cluster.name
        self.endpoint = cluster.endpoint
        self.kubeconfig = kubeconfig
        self.handle = ClusterHandle(
            name=cluster.name,
            kubeconfig=kubeconfig,
            kubernetes=kubernetes,
            system_ready=system_pools,
            storage_summary=storage.summary,
            # For the storage add-on's GKE variant (shared_storage/variant.py): the volumes need this
            # cluster's network, node identity and CSI add-ons.
            substrate_state=GkeStorageState(
                component=self,
                cluster_name=cluster_name,
                project=project,
                region=region,
                network_id=network_id,
                node_service_account=node_sa.email,
                gcp_provider=provider,
                after=[cluster, *system_pools],
            ),
        )
        self.register_outputs(
            {
                "cluster_name": self.cluster_name,
                "endpoint": self.endpoint,
                "kubeconfig": self.kubeconfig,
            }
        )


def _cluster_network(
    name: str,
    resolved: ResolvedCluster,
    parent: pulumi.Resource,
    provider: pulumi.ProviderResource,
    nodes_account: pulumi.Input[str],
) -> tuple[pulumi.Input[str], pulumi.Input[str], str, str, list[pulumi.Resource]]:
    """The network, subnetwork and range names the cluster uses: the ones given (a network you bring),
    or a new GcpNetwork, with the inference Gateway's proxy-only subnet where the Gateway is on (and it,
    for the cluster to depend on)."""
    spec = resolved.spec
    network = spec["network"]
    if "network_id" in network:
        return (
            network["network_id"],
            network["subnetwork_id"],
            network["pods_range_name"],
            network["services_range_name"],
            [],
        )
    args: GcpNetworkArgs = {
        "cluster_name": spec["name"],
        "region": spec["region"],
        "ranges": subnet_ranges(network["cidr"], network.get("pods_cidr"), network.get("services_cidr")),
    }
    if inference_settings(resolved).gateway:
        args["proxy_only"] = proxy_only_range(network["cidr"])
        args["proxy_targets"] = [nodes_account]
    vpc = GcpNetwork(
        f"{name}-network", args, opts=pulumi.ResourceOptions(parent=parent, providers={"gcp": provider})
    )
    proxy = [vpc.proxy_only_subnet] if vpc.proxy_only_subnet is not None else []
    return vpc.network_id, vpc.subnetwork_id, PODS_RANGE, SERVICES_RANGE, proxy


def _gpu_networks(
    name: str, resolved: ResolvedCluster, parent: pulumi.Resource, provider: pulumi.ProviderResource
) -> tuple[tuple[GpuVpc, ...], GkeGpuNetworks | None]:
    """The GPU VPCs the cluster's GPUDirect pools need, and the component that makes them (None: none)."""
    spec = resolved.spec
    vpcs = gpu_vpcs(
        spec["name"],
        gpu_block(spec),
        resolved.pools,
        {p.name: pool_zones(spec, p) for p in resolved.pools if p.fabric is not None},
    )
    if not vpcs:
        return vpcs, None
    made = GkeGpuNetworks(
        f"{name}-gpu-networks",
        {
            "project": spec.get("project", ""),
            "region": spec["region"],
            "block": gpu_block(spec),
            "vpcs": vpcs,
        },
        opts=pulumi.ResourceOptions(parent=parent, providers={"gcp": provider}),
    )
    return vpcs, made


def build_gke(name: str, cluster: ResolvedCluster, parent: pulumi.Resource) -> ClusterHandle:
    """GkeSubstrate.build."""
    gke = GkeCluster(
        name,
        {"cluster": cluster},
        opts=pulumi.ResourceOptions(parent=parent),
    )
    return gke.handle

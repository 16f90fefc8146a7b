"""k3s on Compute Engine: what Google Cloud builds in the shared k3s-on-cloud flow
(components/k3s/cloud_flow.py).

A new VPC with Cloud NAT (or a reused network), firewall rules that admit only the cluster's own
machines and apiAccessCidrs, join secrets in Secret Manager each readable by one role's service
account, servers at static addresses, and one regional managed instance group per agent pool.
"""

from dataclasses import dataclass, replace
from typing import Any

import pulumi
import pulumi_gcp as gcp

from gpukit.components.addons.inference.settings import gateway_node_port_ranges
from gpukit.components.api_access import needs_public_endpoint
from gpukit.components.k3s.cloud_flow import K3sServers
from gpukit.components.k3s.cloud_init import CloudNode
from gpukit.components.k3s.pki import K3sPki
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import NodeRole
from gpukit.components.substrate import ResolvedCluster
from gpukit.providers.gcp.k3s.agent_pool import K3sGceAgentPool, base_instance_name
from gpukit.providers.gcp.k3s.autoscaler import gce_autoscaler_values, is_spot, zone_groups
from gpukit.providers.gcp.k3s.autoscaler_iam import K3sGceAutoscalerAccess
from gpukit.providers.gcp.k3s.firewall import firewall_rules, node_tag, server_tag
from gpukit.providers.gcp.k3s.iam import MACHINE_CHECK, K3sGceJoinSecrets
from gpukit.providers.gcp.k3s.machine import gce_label_value, gce_labels
from gpukit.providers.gcp.k3s.machine_read_iam import K3sGceMachineReadAccess
from gpukit.providers.gcp.k3s.nfs_server import K3sGceNfsServer
from gpukit.providers.gcp.k3s.nfs_vm_facts import nfs_zone
from gpukit.providers.gcp.k3s.preemption import preemption_ready
from gpukit.providers.gcp.k3s.servers import K3sGceServers, server_name, server_zones
from gpukit.providers.gcp.labels import cluster_labels
from gpukit.providers.gcp.network import GcpNetwork
from gpukit.providers.gcp.quotas import enforce_quotas, k3s_quota_needs


@dataclass(frozen=True)
class GceNetwork:
    network_id: pulumi.Input[str]
    subnetwork_id: pulumi.Input[str]
    node_cidr: pulumi.Input[str]
    """The subnet's primary range (the nodes' addresses): a reused subnetwork's is looked up."""


class GceAdapter:
    """components.k3s.cloud_flow.K3sCloudAdapter for Compute Engine."""

    def __init__(
        self, parent: pulumi.ComponentResource, name: str, cluster: ResolvedCluster, provider: gcp.Provider
    ) -> None:
        self.name, self.cluster = name, cluster
        self.spec = cluster.spec
        self.with_gcp = pulumi.ResourceOptions(parent=parent, providers={"gcp": provider})
        self.child = pulumi.ResourceOptions(parent=parent, provider=provider)
        self.invoke = pulumi.InvokeOptions(parent=parent, provider=provider)
        # Resources with a fixed name: a replacement (another network) must delete the old one first,
        # or the new one's create fails on the name.
        self.fixed_name = pulumi.ResourceOptions(parent=parent, provider=provider, delete_before_replace=True)
        self.agent_pools: list[tuple[PoolFacts, K3sGceAgentPool]] = []
        self.server_account: pulumi.Output[str] | None = None
        self.secrets: K3sGceJoinSecrets | None = None
        self.server_zones: list[str] = []

    def network(self) -> GceNetwork:
        name, cluster_name = self.name, self.cluster.name
        # Before anything but the project's APIs: a GPU quota of 0 would leave the groups retrying in
        # silence (the read waits for the Cloud Quotas API through the provider).
        enforce_quotas(self.cluster, k3s_quota_needs(self.cluster), self.invoke)
        network = self.spec["network"]
        if "network_id" in network:
            found = GceNetwork(
                network["network_id"],
                network["subnetwork_id"],
                _subnetwork_range(network["subnetwork_id"], self.spec, self.child),
            )
        else:
            vpc = GcpNetwork(
                f"{name}-network",
                {"cluster_name": cluster_name, "region": self.spec["region"], "cidr": network["cidr"]},
                opts=self.with_gcp,
            )
            found = GceNetwork(vpc.network_id, vpc.subnetwork_id, network["cidr"])
        return found

    def _firewall(self, network: GceNetwork, secrets: K3sGceJoinSecrets) -> None:
        """The cluster's firewall rules (firewall.py), by the machines' service accounts."""
        accounts = secrets.service_accounts
        for rule in firewall_rules(
            self.spec.get("api_access_cidrs", []), gateway_node_port_ranges(self.cluster)
        ):
            gcp.compute.Firewall(
                f"{self.name}-{rule.name}",
                name=f"{self.cluster.name}-{rule.name}",
                network=network.network_id,
                description=f"{rule.description} (gpukit)",
                direction="INGRESS",
                allows=[{"protocol": rule.protocol, "ports": list(rule.ports)}],
                target_service_accounts=[accounts[role] for role in rule.targets],
                source_service_accounts=[accounts[role] for role in rule.sources] or None,
                source_ranges=list(rule.source_ranges) or None,
                opts=self.fixed_name,
            )

    def join_secrets(self, pki: K3sPki) -> K3sGceJoinSecrets:
        return K3sGceJoinSecrets(
            f"{self.name}-join",
            {
                "cluster_name": self.cluster.name,
                "project": self.spec.get("project", ""),
                "region": self.spec["region"],
                "server_files": pki.server_files,
                "agent_files": pki.agent_files,
            },
            opts=self.with_gcp,
        )

    def servers(
        self, pool: PoolFacts, node: CloudNode, network: GceNetwork, secrets: K3sGceJoinSecrets
    ) -> K3sServers:
        cluster_name = self.cluster.name
        self.server_zones = server_zones(self.spec, pool)
        self._firewall(network, secrets)  # the first step that knows both the network and the accounts
        self.secrets = secrets
        self._machine_read(pool, secrets.service_accounts[NodeRole.SERVER])
        return K3sGceServers(
            f"{self.name}-{pool.name}",
            {
                "cluster_name": cluster_name,
                "region": self.spec["region"],
                "pool": pool,
                "node": replace(node, machine_check=MACHINE_CHECK),
                "zones": server_zones(self.spec, pool),
                "subnetwork": network.subnetwork_id,
                # Static external addresses only when a client outside private address space may call
                # the API (203.0.113.0/24 in the example stack counts as public).
                "external": needs_public_endpoint(self.spec.get("api_access_cidrs", [])),
                "service_account": self._server_account(secrets),
                "secret_version": secrets.secret_versions[NodeRole.SERVER],
                "join_key": secrets.server_key,
                "tags": [node_tag(cluster_name), server_tag(cluster_name)],
                "disk_labels": {**cluster_labels(self.spec), **gce_labels(pool)},
                "waits": secrets.ready,
            },
            opts=self.with_gcp,
        )

    def _machine_read(self, server_pool: PoolFacts, account: pulumi.Output[str]) -> None:
        """The servers' node sync may ask Compute Engine about this cluster's machines only, by their
        names (machine_read_iam.py): the servers, and the machines of every agent group, whose names
        are known before the groups exist."""
        cluster_name = self.cluster.name
        servers = [server_name(cluster_name, server_pool.name, i) for i in range(server_pool.min_nodes)]
        prefixes = [
            f"{base_instance_name(group.name)}-"
            for pool in self.cluster.pools
            if pool.role != NodeRole.SERVER
            for group in zone_groups(cluster_name, pool, server_zones(self.spec, pool))
        ]
        K3sGceMachineReadAccess(
            f"{self.name}-machine-read",
            {
                "cluster_name": cluster_name,
                "project": self.spec.get("project", ""),
                "member": account.apply(lambda email: f"serviceAccount:{email}"),
                "server_names": servers,
                "group_prefixes": prefixes,
            },
            opts=self.with_gcp,
        )

    def _node_accounts(self) -> list[pulumi.Input[str]]:
        """The service accounts of every machine of the cluster (servers, then agents)."""
        assert self.secrets is not None  # the flow makes the servers before any NFS server
        return [self.secrets.service_accounts[NodeRole.SERVER], self.secrets.service_accounts[NodeRole.AGENT]]

    def _server_account(self, secrets: K3sGceJoinSecrets) -> pulumi.Output[str]:
        self.server_account = secrets.service_accounts[NodeRole.SERVER]
        return self.server_account

    def agent_pool(
        self,
        pool: PoolFacts,
        node: CloudNode,
        network: GceNetwork,
        secrets: K3sGceJoinSecrets,
        servers: K3sServers,
    ) -> None:
        made = K3sGceAgentPool(
            f"{self.name}-{pool.name}",
            {
                "cluster_name": self.cluster.name,
                "region": self.spec["region"],
                "pool": pool,
                "node": preemption_ready(node, pool),
                # GPU pools: only the zones that offer their accelerator; others the region's.
                "zones": server_zones(self.spec, pool),
                "subnetwork": network.subnetwork_id,
                "service_account": secrets.service_accounts[NodeRole.AGENT],
                "server_urls": servers.join_urls,
                "secret_version": secrets.secret_versions[NodeRole.AGENT],
                "tags": [node_tag(self.cluster.name)],
                "disk_labels": {**cluster_labels(self.spec), **gce_labels(pool)},
                "waits": [*secrets.ready, *servers.instances],
            },
            opts=self.with_gcp,
        )
        self.agent_pools.append((pool, made))

    def nfs_server(self, volume: str, size_gb: int, network: GceNetwork) -> K3sGceNfsServer:
        """A small VM in the servers' first zone, NFS open to the nodes' tag only (nfs_server.py)."""
        cluster_name = self.cluster.name
        return K3sGceNfsServer(
            f"{self.name}-nfs-{volume}",
            {
                "cluster_name": cluster_name,
                "volume": volume,
                "size_gb": size_gb,
                "region": self.spec["region"],
                "zone": nfs_zone(self.server_zones),
                "network": network.network_id,
                "subnetwork": network.subnetwork_id,
                "node_cidr": network.node_cidr,
                "node_service_accounts": self._node_accounts(),
                "labels": {"gpukit-shared-volume": gce_label_value(volume)},
            },
            opts=self.with_gcp,
        )

    def autoscaler_values(self) -> pulumi.Input[dict[str, Any]]:
        """The Cluster Autoscaler's GCE provider over every zonal group of the agent pools, with the
        servers' service account allowed to resize those groups only (autoscaler_iam.py)."""
        assert self.server_account is not None  # the flow makes the servers before the pools
        groups = [
            (g, is_spot(pool), url, gid) for pool, made in self.agent_pools for g, url, gid in made.groups
        ]
        K3sGceAutoscalerAccess(
            f"{self.name}-autoscaler-access",
            {
                "cluster_name": self.cluster.name,
                "project": self.spec.get("project", ""),
                "member": self.server_account.apply(lambda email: f"serviceAccount:{email}"),
                "group_ids": pulumi.Output.all(*[gid for *_, gid in groups]),
                "template_ids": pulumi.Output.all(*[made.template_id for _, made in self.agent_pools]),
            },
            opts=self.with_gcp,
        )
        version = self.spec["kubernetes_version"]
        return pulumi.Output.all(*[url for _, _, url, _ in groups]).apply(
            lambda urls: gce_autoscaler_values(
                version, [(g, spot, url) for (g, spot, _, _), url in zip(groups, urls, strict=True)]
            )
        )


def _subnetwork_range(subnetwork: str, spec: Any, opts: pulumi.ResourceOptions) -> pulumi.Output[str]:
    """A reused subnetwork's primary range: `name` or `projects/P/regions/R/subnetworks/NAME`."""
    parts = subnetwork.split("/")
    project = parts[1] if len(parts) == 6 else spec.get("project") or None
    region = parts[3] if len(parts) == 6 else spec["region"]
    found = gcp.compute.get_subnetwork_output(
        name=parts[-1],
        region=region,
        project=project,
        opts=pulumi.InvokeOptions(parent=opts.parent, provider=opts.provider),
    )
    return found.ip_cidr_range

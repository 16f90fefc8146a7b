"""K3sGceServers: the k3s servers of a cluster on Compute Engine, one VM each at a static address.

Servers are individual VMs, not a managed group: each keeps its internal address (and, when clients
outside the VPC may reach the API, an external one) for life, so the TLS SANs, the agents' join URL
and the kubeconfig never go stale. Each server joins through the others' addresses; the first starts
the cluster (embedded etcd with 3) only when none of them answers, so a replaced first server joins
the cluster instead of starting an empty one. They are spread over the region's zones.
"""

from dataclasses import replace
from functools import partial
from typing import Any, Optional, TypedDict, cast

import pulumi
import pulumi_gcp as gcp

from gpukit.components.k3s.cloud_init import CloudNode
from gpukit.components.k3s.host_scripts import API_PORT, server_join
from gpukit.components.k3s.names import CLOUD_HOSTNAME_MAX, url_host
from gpukit.components.names import fit_name
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import ClusterSpec
from gpukit.providers.gcp.catalog import region_zones
from gpukit.providers.gcp.gke.node_pool import disk_type
from gpukit.providers.gcp.k3s.iam import fetch_secrets_script, provider_id_script
from gpukit.providers.gcp.k3s.images import boot_image
from gpukit.providers.gcp.k3s.machine import (
    CLOUD_PLATFORM_SCOPE,
    gce_labels,
    guest_accelerators,
    instance_metadata,
    machine_type,
    scheduling,
    shielded_instance_config,
)
from gpukit.providers.gcp.k3s.startup_script import gce_startup_script
from gpukit.providers.gcp.network import GCE_NAME_MAX
from gpukit.providers.gcp.placement import pool_zones

TYPE_TOKEN = "gpukit:index:K3sGceServers"


def server_zones(cluster: ClusterSpec, pool: PoolFacts) -> list[str]:
    """Configured zones, else the region's zones that offer a GPU server's accelerator, else every
    zone of the region gpukit knows. Servers are placed round-robin over them."""
    zones = pool_zones(cluster, pool) or region_zones(cluster["region"])
    if not zones:  # validation refuses this (providers/gcp/validation.py); kept for use from Python
        raise ValueError(
            f"no zone known for region {cluster['region']}: set the server pool's `zones` "
            f"(e.g. [{cluster['region']}-a, {cluster['region']}-b, {cluster['region']}-c])"
        )
    return zones


def server_name(cluster_name: str, pool_name: str, index: int) -> str:
    """Server `index`'s instance name, also its hostname: short enough for the node name k3s adds an
    id to."""
    return fit_name(f"{cluster_name}-{pool_name}", f"-{index}", CLOUD_HOSTNAME_MAX)


def api_url(address: str) -> str:
    return f"https://{url_host(address)}:{API_PORT}"


class K3sGceServersArgs(TypedDict):
    cluster_name: str
    region: str
    pool: PoolFacts
    """The server pool (Python-only: built by K3sGceCluster)."""
    node: CloudNode
    """What every server runs; cluster-init and TLS SANs are set here per server."""
    zones: list[str]
    subnetwork: pulumi.Input[str]
    external: bool
    """Give each server a static external address (some API client range is public)."""
    service_account: pulumi.Input[str]
    secret_version: pulumi.Input[str]
    join_key: pulumi.Input[str]
    """The Cloud KMS key the servers decrypt their bundle with (K3sGceJoinSecrets.server_key)."""
    tags: list[str]
    disk_labels: dict[str, str]
    """Labels on the boot disks: a VM's labels do not reach the disks made with it."""
    waits: list[pulumi.Resource]
    """What must exist before a server boots (its secret, the grant to read it and the one to decrypt it)."""


class K3sGceServers(pulumi.ComponentResource):
    instances: list[gcp.compute.Instance]
    api_url: pulumi.Output[str]
    """https://<first server's external address, else its internal one>:6443."""
    join_urls: pulumi.Output[list[str]]
    """https://<server's static internal address>:6443 of every server: what machines join through."""

    def __init__(self, name: str, args: K3sGceServersArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        # Fixed names, and a static address held by one machine at a time: a replacement of an address
        # or a machine must delete the old one first, or the new one's create fails on the name.
        fixed_name = pulumi.ResourceOptions(parent=self, delete_before_replace=True)
        cluster, pool, region = args["cluster_name"], args["pool"], args["region"]
        count, zones = pool.min_nodes, args["zones"]
        prefix = f"{cluster}-{pool.name}"
        internal = [
            gcp.compute.Address(
                f"{name}-{i}-internal",
                name=fit_name(prefix, f"-{i}-internal", GCE_NAME_MAX),
                address_type="INTERNAL",
                subnetwork=args["subnetwork"],
                region=region,
                description=f"k3s server {i} of {cluster} (gpukit)",
                opts=fixed_name,
            )
            for i in range(count)
        ]
        external = [
            gcp.compute.Address(
                f"{name}-{i}-external",
                name=fit_name(prefix, f"-{i}-external", GCE_NAME_MAX),
                address_type="EXTERNAL",
                region=region,
                description=f"Kubernetes API of k3s server {i} of {cluster} (gpukit)",
                opts=fixed_name,
            )
            for i in range(count if args["external"] else 0)
        ]
        # Every server answers for every address (clients may use any), in a stable order.
        tls_sans = pulumi.Output.all(*[a.address for a in internal + external]).apply(
            lambda ips: tuple(sorted(set(ips)))
        )
        self.join_urls = pulumi.Output.all(*[a.address for a in internal]).apply(
            lambda ips: [api_url(ip) for ip in ips]
        )
        # The kubeconfig names the first server; the others' addresses are in the SANs too, so it can
        # be pointed at any of them.
        self.api_url = (external or internal)[0].address.apply(api_url)

        def startup_script(i: int, values: list[Any]) -> str:
            """Each server joins through the others; the first starts the cluster when none answers."""
            sans, join_urls, secret_version, join_key = values
            node = replace(args["node"], join=server_join(i, join_urls), tls_sans=sans)
            fetch = fetch_secrets_script(secret_version, join_key)
            return gce_startup_script(node, fetch, provider_id_script())

        self.instances = []
        for i in range(count):
            script = pulumi.Output.all(
                tls_sans, self.join_urls, args["secret_version"], args["join_key"]
            ).apply(partial(startup_script, i))
            interface: gcp.compute.InstanceNetworkInterfaceArgsDict = {
                "subnetwork": args["subnetwork"],
                "network_ip": internal[i].address,
            }
            if external:
                interface["access_configs"] = [{"nat_ip": external[i].address}]
            self.instances.append(
                gcp.compute.Instance(
                    f"{name}-{i}",
                    name=server_name(cluster, pool.name, i),
                    zone=zones[i % len(zones)],
                    machine_type=machine_type(pool),
                    boot_disk={
                        "initialize_params": {
                            "image": boot_image(pool, args["node"].driver),
                            "size": pool.disk_size_gb,
                            "type": disk_type(pool),
                            "labels": args["disk_labels"],
                        },
                    },
                    network_interfaces=[interface],
                    guest_accelerators=cast(
                        list[gcp.compute.InstanceGuestAcceleratorArgsDict], guest_accelerators(pool)
                    ),
                    scheduling=cast(gcp.compute.InstanceSchedulingArgsDict, scheduling(pool)),
                    shielded_instance_config=cast(
                        gcp.compute.InstanceShieldedInstanceConfigArgsDict, shielded_instance_config(pool)
                    ),
                    metadata=instance_metadata(script),
                    # Access is narrowed by the account's IAM roles, not by scopes.
                    service_account={"email": args["service_account"], "scopes": [CLOUD_PLATFORM_SCOPE]},
                    tags=args["tags"],
                    labels=gce_labels(pool),
                    allow_stopping_for_update=True,  # a machine type change stops and restarts it
                    opts=pulumi.ResourceOptions(
                        parent=self,
                        depends_on=args["waits"],
                        delete_before_replace=True,
                        # A new image, disk size or zone would replace the machine that holds the
                        # datastore, and every server at once (they do not depend on each other), which
                        # would start an empty cluster: they apply to servers created later instead, as
                        # on EC2. The startup script changes in place (it does nothing once joined).
                        ignore_changes=["bootDisk", "zone"],
                    ),
                )
            )
        self.register_outputs({"api_url": self.api_url, "join_urls": self.join_urls})

"""From pools of SSH hosts to the hosts K3sCluster runs commands on (pure, apart from the key)."""

from typing import Any

import pulumi

from gpukit.components.k3s.cluster import K3sHostArgs
from gpukit.components.k3s.names import node_name
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import BastionSpec, HostSpec, NodeRole
from gpukit.providers.ssh.host_keys import connection_host_key


def _endpoint(endpoint: HostSpec | BastionSpec, private_key: pulumi.Input[str]) -> dict[str, Any]:
    conn: dict[str, Any] = {
        "host": endpoint["address"],
        "user": endpoint["user"],
        "port": endpoint.get("port", 22),
        "private_key": private_key,
    }
    # Without host_key pulumi-command trusts whoever answers (see providers/ssh/host_keys.py).
    host_key = connection_host_key(endpoint)
    if host_key is not None:
        conn["host_key"] = host_key
    return conn


def connection(host: HostSpec, private_key: pulumi.Input[str]) -> dict[str, Any]:
    """A pulumi-command ConnectionArgs (as a dict), with the bastion as its `proxy`."""
    conn = _endpoint(host, private_key)
    bastion = host.get("bastion")
    if bastion is not None:
        conn["proxy"] = _endpoint(bastion, private_key)
    return conn


def k3s_hosts(pools: tuple[PoolFacts, ...], private_key: pulumi.Input[str]) -> list[K3sHostArgs]:
    """Every host of every pool, servers first (in config order), with its pool's labels and taints."""
    hosts: list[K3sHostArgs] = []
    for pool in pools:
        for host in pool.hosts:
            gpu = pool.gpu
            hosts.append(
                {
                    "node_name": node_name(pool.name, host["address"]),
                    "address": host["address"],
                    "role": pool.role,
                    "labels": dict(pool.labels),
                    "taints": [t.spec() for t in pool.taints],
                    "expect_gpus": pool.gpus_per_node,
                    "gpu_model": gpu.name if gpu else "",
                    "connection": connection(host, private_key),  # type: ignore[typeddict-item]
                }
            )
    return sorted(hosts, key=lambda h: h["role"] != NodeRole.SERVER)

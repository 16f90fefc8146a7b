"""Meaning checks of k3s on existing hosts (provider ssh): the API address, the SSH key, the hosts."""

import ipaddress
import re
from collections import Counter
from typing import TYPE_CHECKING

from gpukit.components.catalog.gpus import UnknownGpuModelError, gpu_model
from gpukit.components.config.schema import SSH_KEY
from gpukit.components.errors import Problem
from gpukit.components.k3s.names import node_name
from gpukit.components.spec import BastionSpec, ClusterSpec, HostSpec, NodePoolSpec, NodeRole
from gpukit.components.validate.common import CLUSTER, POOLS
from gpukit.components.validate.k3s import validate_k3s_versions, validate_schedulable

if TYPE_CHECKING:
    from gpukit.components.cluster import GpuClusterArgs

_HOSTNAME_RE = re.compile(
    r"^(?=.{1,253}$)([a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)*$"
)
_USER_RE = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")
MAX_GPUS_PER_HOST = 16


def _address_ok(address: str) -> bool:
    try:
        ipaddress.ip_address(address)
    except ValueError:
        return bool(_HOSTNAME_RE.match(address)) and not address.replace(".", "").isdigit()
    return True


def _check_endpoint(key: str, host: HostSpec | BastionSpec, problems: list[Problem]) -> None:
    if not _address_ok(host["address"]):
        problems.append(
            Problem(f"{key}.address", f"must be an IP address or DNS name; got {host['address']!r}")
        )
    if not _USER_RE.match(host["user"]):
        problems.append(Problem(f"{key}.user", f"must be a Unix user name; got {host['user']!r}"))
    port = host.get("port", 22)
    if not 1 <= port <= 65535:
        problems.append(Problem(f"{key}.port", f"must be 1 to 65535; got {port}"))


def validate_ssh_cluster(args: "GpuClusterArgs", pools_ok: bool) -> list[Problem]:
    """k3s on existing hosts (provider ssh)."""
    problems: list[Problem] = []
    cluster: ClusterSpec = args["cluster"]
    validate_k3s_versions(cluster, problems)
    api_address = cluster.get("api_address")
    if api_address is not None and not _address_ok(api_address):
        problems.append(
            Problem(f"{CLUSTER}.apiAddress", f"must be an IP address or DNS name; got {api_address!r}")
        )
    if "ssh_private_key" not in args:
        problems.append(
            Problem(
                SSH_KEY,
                "required for provider ssh: the private key gpukit logs in with "
                f"(pulumi config set --secret {SSH_KEY} < ~/.ssh/id_ed25519)",
            )
        )
    if pools_ok:
        _validate_hosts(args["node_pools"], problems)
        validate_schedulable(args["node_pools"], problems)
    return problems


def _validate_hosts(pools: list[NodePoolSpec], problems: list[Problem]) -> None:
    # DNS names are case-insensitive: `gpu1.lab` and `GPU1.lab` are one host.
    addresses: Counter[str] = Counter()
    names: dict[str, str] = {}
    servers = 0
    for i, pool in enumerate(pools):
        key = f"{POOLS}[{i}]"
        hosts = pool.get("hosts")
        if not hosts:
            problems.append(
                Problem(f"{key}.hosts", "required for provider ssh: one host or more {address, user}")
            )
            continue
        for j, host in enumerate(hosts):
            _check_endpoint(f"{key}.hosts[{j}]", host, problems)
            bastion = host.get("bastion")
            if bastion is not None:
                _check_endpoint(f"{key}.hosts[{j}].bastion", bastion, problems)
            addresses[host["address"].lower()] += 1
        if pool.get("role", NodeRole.AGENT) == NodeRole.SERVER:
            servers += len(hosts)
        gpu = pool.get("gpu")
        if gpu is not None:
            try:
                gpu_model(gpu["model"])
            except UnknownGpuModelError as err:
                hint = f"; did you mean {', '.join(err.suggestions)}?" if err.suggestions else ""
                problems.append(Problem(f"{key}.gpu.model", f"unknown GPU model {gpu['model']!r}{hint}"))
            if not 1 <= gpu["count"] <= MAX_GPUS_PER_HOST:
                problems.append(
                    Problem(f"{key}.gpu.count", f"must be 1 to {MAX_GPUS_PER_HOST}; got {gpu['count']}")
                )
    for i, pool in enumerate(pools):
        for j, host in enumerate(pool.get("hosts") or []):
            name = node_name(pool["name"], host["address"])
            if name in names and addresses[host["address"].lower()] == 1:
                problems.append(
                    Problem(
                        f"{POOLS}[{i}].hosts[{j}].address",
                        f"{host['address']!r} gives node name {name!r}, as {names[name]!r} does; "
                        "use addresses that differ in more than case and punctuation",
                    )
                )
            names.setdefault(name, host["address"])
            if addresses[host["address"].lower()] > 1:
                problems.append(
                    Problem(
                        f"{POOLS}[{i}].hosts[{j}].address",
                        f"{host['address']!r} is listed {addresses[host['address'].lower()]} times; "
                        "each host joins once",
                    )
                )
    if servers == 0:
        problems.append(Problem(POOLS, "no server host: give one pool role: server (1 host, or 3 for HA)"))
    elif servers % 2 == 0:
        problems.append(
            Problem(
                POOLS,
                f"{servers} server hosts: embedded etcd needs an odd number (1, or 3 or more for HA); "
                "an even number splits the vote",
            )
        )

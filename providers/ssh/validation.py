"""Meaning checks of k3s on existing hosts (provider ssh): the API address, the SSH key, the hosts and
their host keys."""

import re

from gpukit.components.addresses import address_refusal, same_host, unusable
from gpukit.components.config.schema import SSH_KEY
from gpukit.components.errors import Problem
from gpukit.components.k3s.names import node_name
from gpukit.components.spec import BastionSpec, ClusterConfig, ClusterSpec, HostSpec, NodePoolSpec, NodeRole
from gpukit.components.validate.common import CLUSTER, POOLS
from gpukit.components.validate.k3s import validate_k3s_versions, validate_schedulable
from gpukit.providers.ssh.gpus import MAX_GPUS_PER_HOST, validate_pool_gpu
from gpukit.providers.ssh.host_keys import parse_host_key

_USER_RE = re.compile(r"[a-z_][a-z0-9_-]{0,31}")
INSECURE_KEY = f"{CLUSTER}.insecureIgnoreHostKeys"


def _missing_host_key(key: str, endpoint: HostSpec | BastionSpec, behind: BastionSpec | None) -> Problem:
    port = endpoint.get("port", 22)
    scan = f"ssh-keyscan{f' -p {port}' if port != 22 else ''} -t ed25519 {endpoint['address']}"
    where = f" on the bastion {behind['address']}" if behind is not None else ""
    return Problem(
        f"{key}.hostKey",
        "required: the host's SSH public key, so that gpukit sends the cluster's CA keys and token to "
        f"this machine and no other. Get it with `{scan}`{where}, compare its fingerprint "
        f"(`{scan} | ssh-keygen -lf -`) with the one the host's own console shows "
        "(`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub`) rather than trusting the network, and "
        f"paste the line here; or set {INSECURE_KEY}: true to connect without checking (insecure)",
    )


def _check_endpoint(
    key: str,
    endpoint: HostSpec | BastionSpec,
    problems: list[Problem],
    insecure: bool,
    behind: BastionSpec | None = None,
) -> None:
    """An SSH host or bastion: its address, user, port and host key. `behind` is the bastion a host is
    reached through (None for a bastion, or a host reached directly)."""
    address = endpoint["address"]
    if (refused := address_refusal(address)) is not None:
        problems.append(Problem(f"{key}.address", refused))
    if not _USER_RE.fullmatch(endpoint["user"]):
        problems.append(Problem(f"{key}.user", f"must be a Unix user name; got {endpoint['user']!r}"))
    port = endpoint.get("port", 22)
    if not 1 <= port <= 65535:
        problems.append(Problem(f"{key}.port", f"must be 1 to 65535; got {port}"))
    host_key = endpoint.get("host_key")
    if host_key is None:
        if not insecure:
            problems.append(_missing_host_key(key, endpoint, behind))
        return
    parsed = parse_host_key(host_key, address, port)
    if isinstance(parsed, str):
        problems.append(Problem(f"{key}.hostKey", parsed))


def _check_host_address(key: str, address: str, problems: list[Problem]) -> None:
    reason = unusable(address)
    if reason is not None:
        problems.append(
            Problem(
                f"{key}.address",
                f"{address!r} {reason}: it must be the address the other hosts (and, for a server, "
                "kubectl and Pulumi) reach this host at",
            )
        )


def validate_ssh_cluster(args: ClusterConfig, pools_ok: bool) -> list[Problem]:
    """k3s on existing hosts (provider ssh)."""
    problems: list[Problem] = []
    cluster: ClusterSpec = args["cluster"]
    validate_k3s_versions(cluster, problems)
    api_address = cluster.get("api_address")
    if api_address is not None and (refused := address_refusal(api_address)) is not None:
        problems.append(Problem(f"{CLUSTER}.apiAddress", refused))
    elif api_address is not None and (reason := unusable(api_address)) is not None:
        problems.append(
            Problem(
                f"{CLUSTER}.apiAddress",
                f"{api_address!r} {reason}: kubectl, Pulumi and the certificate need the address a server "
                "(or a load balancer in front of the servers) is reached at from other machines",
            )
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
        _validate_hosts(args["node_pools"], problems, cluster.get("insecure_ignore_host_keys", False))
        validate_schedulable(args["node_pools"], problems)
    return problems


def _validate_hosts(pools: list[NodePoolSpec], problems: list[Problem], insecure: bool) -> None:
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
            bastion = host.get("bastion")
            _check_endpoint(f"{key}.hosts[{j}]", host, problems, insecure, bastion)
            _check_host_address(f"{key}.hosts[{j}]", host["address"], problems)
            if bastion is not None:
                _check_endpoint(f"{key}.hosts[{j}].bastion", bastion, problems, insecure)
        if pool.get("role", NodeRole.AGENT) == NodeRole.SERVER:
            servers += len(hosts)
        gpu = pool.get("gpu")
        if gpu is not None:
            validate_pool_gpu(f"{key}.gpu", gpu, problems)
            if not 1 <= gpu["count"] <= MAX_GPUS_PER_HOST:
                problems.append(
                    Problem(f"{key}.gpu.count", f"must be 1 to {MAX_GPUS_PER_HOST}; got {gpu['count']}")
                )
    # One host written twice would join twice: hosts compare as same_host spells them (`gpu1.lab` and
    # `GPU1.lab`, `2001:db8::1` and `2001:DB8:0::1` are one host).
    first: dict[str, tuple[str, str]] = {}  # same_host -> the key and address that list it first
    for i, pool in enumerate(pools):
        for j, host in enumerate(pool.get("hosts") or []):
            key, address = f"{POOLS}[{i}].hosts[{j}].address", host["address"]
            spelled = same_host(address)
            if spelled in first:
                other_key, other = first[spelled]
                problems.append(
                    Problem(
                        key, f"{address!r} is the host {other_key} lists ({other!r}); each host joins once"
                    )
                )
                continue
            first[spelled] = (key, address)
            name = node_name(pool["name"], address)
            if name in names:
                problems.append(
                    Problem(
                        key,
                        f"{address!r} gives node name {name!r}, as {names[name]!r} does; "
                        "use addresses that differ in more than case and punctuation",
                    )
                )
            names.setdefault(name, address)
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

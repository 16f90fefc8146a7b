"""Plan findings of k3s on existing hosts: host keys that are not checked, or checked in a way that
fails on modern servers. They are not config errors: the stack asked for them."""

from collections.abc import Iterator

from gpukit.components.findings import Finding, Severity
from gpukit.components.spec import BastionSpec, HostSpec, NodeRole
from gpukit.components.substrate import ResolvedCluster
from gpukit.components.validate.common import POOLS
from gpukit.providers.ssh.host_keys import parse_host_key
from gpukit.providers.ssh.validation import INSECURE_KEY


def _endpoints(cluster: ResolvedCluster) -> Iterator[tuple[str, str, HostSpec | BastionSpec]]:
    """(config key, what it is, host or bastion) for every SSH endpoint of the cluster."""
    for i, pool in enumerate(cluster.args["node_pools"]):
        for j, host in enumerate(pool.get("hosts", [])):
            key = f"{POOLS}[{i}].hosts[{j}]"
            yield key, host["address"], host
            bastion = host.get("bastion")
            if bastion is not None:
                yield f"{key}.bastion", f"bastion {bastion['address']}", bastion


def host_key_findings(cluster: ResolvedCluster) -> list[Finding]:
    findings: list[Finding] = []
    unchecked: list[str] = []
    for key, what, endpoint in _endpoints(cluster):
        text = endpoint.get("host_key")
        if text is None:
            unchecked.append(what)
            continue
        parsed = parse_host_key(text, endpoint["address"], endpoint.get("port", 22))
        # pulumi-command offers the server only the key's own type (HostKeyAlgorithms, see
        # host_keys.py); for ssh-rsa that is the SHA-1 signature OpenSSH 8.8+ refuses by default.
        if not isinstance(parsed, str) and parsed.key_type == "ssh-rsa":
            findings.append(
                Finding(
                    Severity.WARNING,
                    f"{key}.hostKey",
                    f"an ssh-rsa key: pulumi-command then asks {what} for SHA-1 `ssh-rsa` signatures, which "
                    "OpenSSH 8.8 and newer refuse by default, so the connection fails there; use the "
                    f"host's ed25519 key (`ssh-keyscan -t ed25519 {endpoint['address']}`)",
                    fix=f"set {key}.hostKey to the host's ed25519 key: the `ssh-ed25519 AAAA...` part of "
                    f"`ssh-keyscan -t ed25519 {endpoint['address']}`, checked against the host's own "
                    "/etc/ssh/ssh_host_ed25519_key.pub",
                )
            )
    if unchecked:
        findings.append(
            Finding(
                Severity.WARNING,
                INSECURE_KEY,
                f"SSH HOST KEYS ARE NOT CHECKED for {', '.join(unchecked)}: whoever answers at those "
                "addresses is sent the cluster's CA keys and join token; give each a hostKey and remove "
                f"{INSECURE_KEY}",
                fix=f"give each of {', '.join(unchecked)} a hostKey (`ssh-keyscan -t ed25519 <address>`, "
                f"checked against the host), then remove {INSECURE_KEY}",
            )
        )
    elif cluster.spec.get("insecure_ignore_host_keys"):
        findings.append(
            Finding(
                Severity.INFO,
                INSECURE_KEY,
                "set, but every host and bastion has a hostKey, and each is checked: remove the key",
            )
        )
    return findings


def fixed_size_findings(cluster: ResolvedCluster) -> list[Finding]:
    """Per agent pool: the hosts it lists are its size. gpukit installs no autoscaler here: it cannot
    make or stop machines it only reaches over SSH, so an idle GPU host keeps costing what it costs."""
    return [
        Finding(
            Severity.INFO,
            f"{POOLS}[{i}].hosts",
            f"pool {pool.name!r} is the {len(pool.hosts)} host(s) it lists and does not scale: machines "
            "you own are not started or stopped by gpukit (no cluster autoscaler on k3s over SSH); add "
            "or remove hosts in the stack to resize it",
        )
        for i, pool in enumerate(cluster.pools)
        if pool.role == NodeRole.AGENT
    ]

"""Workload pods kept off the storage servers: a NetworkPolicy in each workload namespace gpukit knows.

Why: a file server that trusts its clients by address (an NFS export to the nodes' subnet, a Filestore
instance open to its VPC) also admits any pod, because a pod's traffic leaves with its node's address
(k3s's flannel masquerades it) or its own VPC address (GKE). With a userspace NFS client in its image a
pod then reads and writes every volume, whatever claims it may make. Pods never need the servers
themselves: a volume is mounted by the CSI node plugin on the host's network and read through the
node's kernel, and a NetworkPolicy selects pods, not the host, so it never blocks a mount (csi-driver-nfs
and the Filestore CSI node plugins run with `hostNetwork: true`).

The policy allows all egress but to the servers: IPv4 anywhere except their addresses, any pod in any
namespace (a pod's address is matched by pod selectors, not ipBlock, in some implementations), and the
other ports of a server that also serves other things (storage_egress_policy). It is
a default, not a wall: policies add up, so a second policy in the namespace that allows all egress
undoes it (docs/shared-storage.md says so). Pure: the component (isolation_component.py) applies it.
"""

import ipaddress
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gpukit.components.addons.storage.nfs.exports import NFS_PORT
from gpukit.components.admission import MANAGED_LABELS, not_in_namespaces, pod_policy

if TYPE_CHECKING:
    from gpukit.components.addons.storage.volume import PlannedVolume

POLICY_NAME = "gpukit-no-storage-servers"


def address_literal(server: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The server as an IP address, or None for a DNS name (which no NetworkPolicy can name)."""
    try:
        return ipaddress.ip_address(server)
    except ValueError:
        return None


# NFS_PORT (2049) is where nfsd serves file data, for NFSv3 and v4 alike (RFC 7530: NFSv4 on 2049; NFSv3
# servers listen there by convention): a client kept off it reads no file, whatever mountd says.
PORT_RANGES_BUT_NFS = ((1, NFS_PORT - 1), (NFS_PORT + 1, 65535))


def _allow_all_but(cidr: str, servers: list[str]) -> dict[str, Any]:
    block: dict[str, Any] = {"cidr": cidr}
    if servers:
        block["except"] = servers
    return {"to": [{"ipBlock": block}]}


def _host(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    return f"{address}/{address.max_prefixlen}"


def _all_but_nfs(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> dict[str, Any]:
    """Every TCP and UDP port of a host but NFS's (NetworkPolicy `endPort` ranges, stable since
    Kubernetes 1.25, which k3s's kube-router implements: pkg/controllers/netpol/policy.go). Only servers
    that serve more than the volume get it, which are k3s's (an SSH host, the user's own export)."""
    return {
        "to": [{"ipBlock": {"cidr": _host(address)}}],
        "ports": [
            {"protocol": protocol, "port": low, "endPort": high}
            for protocol in ("TCP", "UDP")
            for low, high in PORT_RANGES_BUT_NFS
        ],
    }


def storage_egress_policy(
    namespace: str, servers: Sequence[tuple[str, bool]], allows: Sequence[tuple[str, int]] = ()
) -> dict[str, Any]:
    """The NetworkPolicy for `namespace`: its pods reach every address but the servers'.

    `servers`: (address, dedicated) pairs. A dedicated server (it serves only the volume) is left out
    whole; another (an SSH host of the cluster, which may be the k3s server whose API pods call, or the
    user's NAS) only on NFS's port, by a rule that allows its other ports. DNS names are left out (a
    policy cannot name them; the report says so). An IPv6 rule only where a server is IPv6: gpukit's
    clusters are IPv4 single-stack (k3s's default cluster CIDR, GKE VPC-native IPv4), and a rule for a
    family the cluster lacks only adds noise. `allows`: (CIDR, TCP port) pairs the platform says a
    policy must name although 0.0.0.0/0 covers them (the variant's `network_policy_allows`)."""
    found: dict[ipaddress.IPv4Address | ipaddress.IPv6Address, bool] = {}
    for server, dedicated in servers:
        address = address_literal(server)
        if address is not None:
            found[address] = found.get(address, False) or dedicated
    addresses = sorted(found, key=str)
    v4 = [_host(a) for a in addresses if a.version == 4]
    v6 = [_host(a) for a in addresses if a.version == 6]
    egress = [_allow_all_but("0.0.0.0/0", v4)]
    if v6:
        egress.append(_allow_all_but("::/0", v6))
    egress.append({"to": [{"namespaceSelector": {}}]})
    egress += [_all_but_nfs(a) for a in addresses if not found[a]]
    egress += [
        {"to": [{"ipBlock": {"cidr": cidr}}], "ports": [{"protocol": "TCP", "port": port}]}
        for cidr, port in allows
    ]
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": POLICY_NAME, "namespace": namespace, "labels": dict(MANAGED_LABELS)},
        "spec": {"podSelector": {}, "policyTypes": ["Egress"], "egress": egress},
    }


INLINE_NFS_POLICY = "gpukit-no-inline-nfs"
INLINE_NFS_LABEL = "gpukit.dev/inline-nfs"
"""A namespace labelled `gpukit.dev/inline-nfs: allowed` may mount NFS inline again."""
_NO_INLINE_NFS = "!has(object.spec.volumes) || object.spec.volumes.all(v, !has(v.nfs))"


def inline_nfs_policy() -> tuple[dict[str, Any], dict[str, Any]]:
    """A ValidatingAdmissionPolicy (GA since Kubernetes 1.30) and its binding that refuse pods with an
    inline `nfs` volume outside kube-system and namespaces labelled INLINE_NFS_LABEL: allowed.

    Why: the kubelet mounts an inline NFS volume itself, on the host's network with the node's address,
    which every export here admits (k3s: the nodes; Filestore: its VPC, as root), so the NetworkPolicy
    never sees it, and Pod Security `baseline` allows the volume type (only `restricted` limits volume
    types: Kubernetes "Pod Security Standards"). Any pod author could mount any volume's data. Every
    name or alias of a server would have to be listed to refuse only those, so all inline NFS is
    refused; claims of the `shared-<name>` classes are how pods mount the shared volumes (the CSI
    driver's, which an admission policy on pods does not touch)."""
    return pod_policy(
        INLINE_NFS_POLICY,
        [
            not_in_namespaces(["kube-system"]),
            {"key": INLINE_NFS_LABEL, "operator": "NotIn", "values": ["allowed"]},
        ],
        _NO_INLINE_NFS,
        "inline nfs volumes are refused (gpukit): the kubelet would mount them with the node's address, "
        "which the shared volumes' servers admit; use a claim of a shared-<name> StorageClass, or label "
        f"the namespace {INLINE_NFS_LABEL}=allowed",
    )


def isolation_lines(volumes: "Sequence[PlannedVolume]", network_policy: str, pod_access: str) -> list[str]:
    """The report's lines on what keeps pods off the volumes' backends (the variant's `network_policy`
    and `pod_access`: components/addons/storage/variant.py)."""
    trusting = [v for v in volumes if v.backend.trusts_addresses]
    lines: list[str] = []
    if trusting and network_policy:
        lines.append(
            f"  pods kept off the servers of {', '.join(v.name for v in trusting)}: NetworkPolicy "
            f"{POLICY_NAME} in default and the workload namespaces gpukit creates (batch's team namespaces; "
            f"enforced by {network_policy}); "
            "a namespace you create needs its own copy (docs/shared-storage.md)"
        )
        lines.append(
            f"  inline nfs volumes refused in every namespace but kube-system (admission policy "
            f"{INLINE_NFS_POLICY}; label a namespace {INLINE_NFS_LABEL}=allowed to mount NFS inline there)"
        )
        for v in trusting:
            server = (v.spec.get("nfs") or {}).get("server")
            if isinstance(server, str) and address_literal(server) is None:
                lines.append(
                    f"  {v.name}: server {server} is a DNS name, which a NetworkPolicy cannot name: pods are "
                    "not kept off it (give its address instead)"
                )
    elif trusting:
        lines.append(
            f"  {', '.join(v.name for v in trusting)}: any pod can reach the server (no NetworkPolicy is "
            "enforced here)"
        )
    if pod_access and any(not v.backend.trusts_addresses for v in volumes):
        lines.append(f"  pods and the backends: {pod_access}")
    return lines

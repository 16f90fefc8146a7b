"""GKE's side of the interconnect add-on: what a pod on a GPUDirect pool carries and sets, the checks of
the GPU networks' addresses and zones, and what the plan says gpukit leaves to the user (the networks
themselves are gpu_networks.py's; the node pools attach them).

What a pod needs, per fabric (the interfaces are gpukit's layout, gpu_networks.pod_interfaces):
- TCPX (a3-highgpu-8g): NCCL_GPUDIRECTTCPX_SOCKET_IFNAME over the 4 GPU NICs, NCCL_GPUDIRECTTCPX_CTRL_DEV
  and NCCL_SOCKET_IFNAME on eth0 (Google's GPUDirect-TCPX examples; dstack's and SkyPilot's a3-highgpu
  recipes set the same names).
- TCPXO (a3-megagpu-8g): NCCL_FASTRAK_CTRL_DEV / NCCL_SOCKET_IFNAME eth0, NCCL_FASTRAK_IFNAME over the 8
  GPU NICs, NCCL_CROSS_NIC=0, NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY=/dev/aperture_devices
  (container-engine-accelerators gpudirect-tcpxo/README.md, Jan 2026 release, and nccl-test-latest.yaml
  @992db8125755). The rest of its tuning comes from the plugin's own nccl-env-profile.sh, which
  changes with each plugin release, so gpukit does not copy it.
- RDMA (a3-ultragpu-8g, a4-highgpu-8g): NCCL_NET=gIB, then the gIB plugin's set_nccl_env.sh (Google's
  gpudirect-rdma/nccl-test.yaml; cluster-toolkit gke-a4 nccl-jobset-example.yaml).

What gpukit does not install, and why: Google's NCCL plugin installers (nccl-tcpx-installer,
nccl-tcpxo-installer, nccl-rdma-installer), the TCPX/TCPXO receive daemon and the NRI device injector
are privileged DaemonSets or sidecars whose images Google publishes by tag only
(us-docker.pkg.dev/gce-ai-infra/...:v1.0.15 and the like), and gpukit runs nothing privileged on a node
without a pinned digest. What cannot be added later is gpukit's: a node pool's extra networks are fixed
when it is created ("Set up multi-network support for Pods", limitations), so the VPCs, the node pools'
NICs and the Kubernetes networks come with the pool; the plugin is a DaemonSet the user applies (pinned
to a digest they resolved) or a layer of the training image, whenever they choose.
"""

import ipaddress

from gpukit.components.addons.base import ValidationScope
from gpukit.components.addons.interconnect.variant import FabricUse, InterconnectVariant
from gpukit.components.catalog.fabrics import FabricKind
from gpukit.components.errors import Problem
from gpukit.components.findings import Finding, Severity
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import ClusterSpec, NodePoolSpec
from gpukit.components.substrate import ResolvedCluster
from gpukit.providers.gcp.gke.compact_placement import supports_compact_placement
from gpukit.providers.gcp.gke.gpu_networks import (
    GPU_CIDR_PREFIXES,
    GPU_NETWORKS_CIDR_DEFAULT,
    block_overlaps,
    pod_annotations,
    rdma_zones,
    slice_capacity,
)
from gpukit.providers.gcp.placement import pool_zones
from gpukit.providers.gcp.ranges import subnet_ranges

KEY = "gpukit:cluster.network.gpuNetworksCidr"

_INSTALLERS = {
    FabricKind.GPUDIRECT_TCPX: (
        "Google's nccl-tcpx-installer DaemonSet, and the tcpgpudmarxd sidecar with the NRI device injector "
        "(container-engine-accelerators gpudirect-tcpx/)"
    ),
    FabricKind.GPUDIRECT_TCPXO: (
        "Google's nccl-tcpxo-installer DaemonSet, and the tcpgpudmarxd sidecar with the NRI device injector "
        "(container-engine-accelerators gpudirect-tcpxo/); the plugin's nccl-env-profile.sh has the tuning"
    ),
    FabricKind.GPUDIRECT_RDMA: (
        "Google's gIB plugin: its nccl-rdma-installer DaemonSet (container-engine-accelerators "
        "gpudirect-rdma/), or a training image that carries it (nccl-plugin-gib-diagnostic, the nccl-gib "
        "apt package); jobs then source /usr/local/gib/scripts/set_nccl_env.sh"
    ),
}
"""What drives each fabric's NICs, which gpukit does not install (the module's docstring says why)."""


def gpu_block(spec: ClusterSpec) -> str:
    """The block the GPU subnets come from (`cluster.network.gpuNetworksCidr`)."""
    return spec["network"].get("gpu_networks_cidr", GPU_NETWORKS_CIDR_DEFAULT)


def fabric_env(pool: PoolFacts) -> dict[str, str]:
    assert pool.fabric is not None
    nics = ",".join(f"eth{i}" for i in range(1, pool.fabric.interfaces + 1))
    if pool.fabric.kind is FabricKind.GPUDIRECT_TCPX:
        return {
            "NCCL_GPUDIRECTTCPX_SOCKET_IFNAME": nics,
            "NCCL_GPUDIRECTTCPX_CTRL_DEV": "eth0",
            "NCCL_SOCKET_IFNAME": "eth0",
        }
    if pool.fabric.kind is FabricKind.GPUDIRECT_TCPXO:
        return {
            "NCCL_FASTRAK_CTRL_DEV": "eth0",
            "NCCL_FASTRAK_IFNAME": nics,
            "NCCL_SOCKET_IFNAME": "eth0",
            "NCCL_CROSS_NIC": "0",
            "NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY": "/dev/aperture_devices",
        }
    return {"NCCL_NET": "gIB"}


def compact(pool: PoolFacts) -> bool:
    """Whether a fabric pool is placed compactly without asking: where GKE offers it for the machine
    (compact_placement.py) and the pool is not queued (flex-start pools take no placement policy)."""
    return supports_compact_placement(pool.instance) and not pool.queued


def pool_compact(spec: NodePoolSpec, pool: PoolFacts) -> bool:
    """Whether the node pool gets a compact placement policy: `compactPlacement` where given, else on a
    fabric pool where GKE offers it (what the node pool and the plan both use)."""
    return spec.get("compact_placement", pool.fabric is not None and compact(pool))


class GkeInterconnect(InterconnectVariant):
    def use(self, cluster: ResolvedCluster, pool: PoolFacts) -> FabricUse:
        assert pool.fabric is not None  # the add-on asks only for fabric pools
        zones = pool_zones(cluster.spec, pool)
        zone = zones[0] if zones else "?"
        extra = (
            f"1 extra gVNIC + {pool.fabric.interfaces} RDMA NICs in an RDMA-profile VPC"
            if pool.fabric.kind is FabricKind.GPUDIRECT_RDMA
            else f"{pool.fabric.interfaces} extra gVNICs, one VPC each"
        )
        spec = next(p for p in cluster.args["node_pools"] if p["name"] == pool.name)
        placed = pool_compact(spec, pool)
        placement = f"one zone ({zone}), {extra}"
        if placed:
            placement += ", compact placement"
        notes = [
            "not installed by gpukit (Google publishes its images by tag only): "
            + _INSTALLERS[pool.fabric.kind]
        ]
        if not placed:
            notes.append(
                "no compact placement policy (GKE documents it for A100, L4 and H100 machines, not with "
                "queued provisioning; or `compactPlacement: false`): a reservation of one block keeps the "
                "nodes close"
            )
        return FabricUse(
            requests={},
            annotations=pod_annotations(pool),
            env=fabric_env(pool),
            placement=placement,
            notes=tuple(notes),
            gpudirect=pool.fabric.kind is FabricKind.GPUDIRECT_RDMA,
        )

    def problems(self, scope: ValidationScope) -> list[Problem]:
        if scope.pools is None or not scope.substrate_checked:
            return []
        spec = scope.args["cluster"]
        fabric = [p for p in scope.pools if p.fabric is not None]
        problems: list[Problem] = []
        network = spec["network"]
        block = gpu_block(spec)
        try:
            parsed = ipaddress.IPv4Network(block)
        except ValueError:
            return [
                Problem(KEY, f"must be an IPv4 CIDR block like {GPU_NETWORKS_CIDR_DEFAULT}; got {block!r}")
            ]
        low, high = GPU_CIDR_PREFIXES
        if not low <= parsed.prefixlen <= high:
            return [
                Problem(
                    KEY, f"must be a /{low} to /{high} (32 subnets, one per GPU NIC network); got {block!r}"
                )
            ]
        if not fabric:
            return []
        if "cidr" in network:
            ranges = subnet_ranges(network["cidr"], network.get("pods_cidr"), network.get("services_cidr"))
            named = {
                f"node range {ranges.nodes}": ranges.nodes,
                f"pod range {ranges.pods}": ranges.pods,
                f"service range {ranges.services}": ranges.services,
            }
            problems += [
                Problem(
                    KEY,
                    f"{block} overlaps the cluster subnet's {what}: a node's GPU NICs sit in subnets that "
                    "must not overlap its primary one; pick another block (192.168.0.0/16 and 172.16.0.0/12 "
                    "are private)",
                )
                for what in block_overlaps(block, named)
            ]
        # TCPX and TCPXO pools share the vpc<i> subnets; RDMA pools have their own.
        per_kind: dict[str, int] = {}
        for pool in fabric:
            assert pool.fabric is not None
            rdma = pool.fabric.kind is FabricKind.GPUDIRECT_RDMA
            shared = "GPUDirect RDMA" if rdma else "GPUDirect-TCPX / TCPXO"
            per_kind[shared] = per_kind.get(shared, 0) + pool.max_nodes
        capacity = slice_capacity(block)
        for kind, nodes in per_kind.items():
            if nodes > capacity:
                problems.append(
                    Problem(
                        KEY,
                        f"each GPU subnet of {block} holds {capacity} nodes, and the {kind} pools' "
                        f"maxNodes add up to {nodes}: use a larger block",
                    )
                )
        zones_of = {p.name: pool_zones(spec, p) for p in fabric}
        zones = rdma_zones(fabric, zones_of)
        if len(zones) > 1:
            for i, pool in enumerate(scope.pools):
                if pool.fabric is not None and pool.fabric.kind is FabricKind.GPUDIRECT_RDMA:
                    problems.append(
                        Problem(
                            f"gpukit:nodePools[{i}].zones",
                            f"the cluster's GPUDirect RDMA pools sit in {', '.join(zones)}, and gpukit makes "
                            "one RDMA network per cluster (an RDMA network profile is zonal): pin every "
                            "a3-ultragpu-8g / a4-highgpu-8g pool to one zone, or set `interconnect: none` "
                            "on those elsewhere",
                        )
                    )
        return problems

    def findings(self, cluster: ResolvedCluster) -> list[Finding]:
        fabric = [(i, p) for i, p in enumerate(cluster.pools) if p.fabric is not None]
        if not fabric:
            return []
        found: list[Finding] = []
        for i, pool in fabric:
            assert pool.fabric is not None
            found.append(
                Finding(
                    Severity.WARNING,
                    f"gpukit:nodePools[{i}].interconnect",
                    f"pool {pool.name!r} gets its {pool.fabric.kind.display} NICs and networks, but not the "
                    "NCCL plugin that drives them (Google publishes its images by tag only, and they run "
                    "privileged): until a job brings it, NCCL between its nodes runs over TCP on eth0",
                    fix="install, pinned to image digests you resolved: " + _INSTALLERS[pool.fabric.kind],
                )
            )
            if not pool.zones:
                zones = pool_zones(cluster.spec, pool)
                found.append(
                    Finding(
                        Severity.INFO,
                        f"gpukit:nodePools[{i}].zones",
                        f"left out on a {pool.fabric.kind.display} pool: it goes to "
                        f"{zones[0] if zones else 'no zone'}, the first zone of {cluster.spec['region']} "
                        f"gpukit knows offers {pool.instance.accelerator_type}; pin one zone to choose",
                    )
                )
        if "network_id" in cluster.spec["network"]:
            found.append(
                Finding(
                    Severity.INFO,
                    KEY,
                    f"gpukit makes the GPU NICs' VPCs from {gpu_block(cluster.spec)} beside the reused "
                    "network; the block must not overlap the reused subnet's node, pod and service ranges "
                    "(GKE refuses the node pool otherwise)",
                )
            )
        return found

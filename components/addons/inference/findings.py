"""Preflight findings of the inference add-on: the KEDA release against the cluster's Kubernetes, a
metrics volume that cannot follow its pod to another machine, a store with nowhere to run, a Gateway
open to the whole internet, and what the substrate's gateway needs of a network gpukit did not make."""

from gpukit.components.addons.inference.charts import KEDA, KEDA_TESTED_MINORS
from gpukit.components.addons.inference.gateway_ranges import system_nodes
from gpukit.components.addons.inference.names import KEY, MONITORING_NAMESPACE, PROMETHEUS_FULLNAME
from gpukit.components.addons.inference.settings import InferenceSettings
from gpukit.components.api_access import covers_public_internet
from gpukit.components.findings import Finding, Severity
from gpukit.components.spec import NodeRole
from gpukit.components.substrate import ResolvedCluster


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


def _zonal_volume(cluster: ResolvedCluster, settings: InferenceSettings) -> list[Finding]:
    """The store's volume stays in the zone it was made in: a Prometheus pod whose only node is replaced
    in another zone waits (Pending) for a node of the volume's zone. Said where the pools without GPUs
    keep fewer than two nodes, one of which would be in another zone to fall back on."""
    steady = sum(p.min_nodes for p in cluster.pools if not p.is_gpu)
    if steady >= 2:
        return []
    return [
        Finding(
            Severity.INFO,
            f"{KEY}.metrics",
            f"the in-cluster Prometheus keeps its {settings.size.volume_gib} GiB volume in one zone and the "
            f"pools without GPUs keep {steady} node: if that node is replaced in another zone, Prometheus "
            "stays Pending (its history kept) until a node of those pools runs in the volume's zone",
        )
    ]


def inference_findings(cluster: ResolvedCluster, settings: InferenceSettings) -> list[Finding]:
    found: list[Finding] = []
    minor = _minor(cluster.spec["kubernetes_version"])
    if settings.autoscaling and minor not in KEDA_TESTED_MINORS:
        found.append(
            Finding(
                Severity.INFO,
                f"{KEY}.autoscaling",
                f"KEDA {KEDA.version} is tested on Kubernetes {', '.join(KEDA_TESTED_MINORS)} "
                f"(https://keda.sh/docs/2.22/operate/cluster/); this cluster runs {minor}. KEDA 2.21 is "
                "tested on 1.34 to 1.36; gpukit pins 2.20.2, whose chart and CRDs it has checked",
            )
        )
    if settings.in_cluster_store and settings.variant.node_local_volume:
        claim = (
            f"prometheus-{PROMETHEUS_FULLNAME}-prometheus-db-prometheus-{PROMETHEUS_FULLNAME}-prometheus-0"
        )
        found.append(
            Finding(
                Severity.WARNING,
                f"{KEY}.metrics",
                f"the in-cluster Prometheus keeps its {settings.size.volume_gib} GiB volume on one node's "
                f"disk (the default StorageClass is local-path), a node of {system_nodes(cluster)}: if that "
                "machine is replaced, its history is gone and the pod stays Pending on the old node's volume",
                fix=f"after replacing that machine: kubectl -n {MONITORING_NAMESPACE} delete pvc {claim}",
            )
        )
    if settings.in_cluster_store and settings.variant.zonal_volume:
        found += _zonal_volume(cluster, settings)
    if settings.gateway:
        found += settings.variant.gateway_findings(cluster)
        if covers_public_internet(settings.gateway_cidrs):
            found.append(
                Finding(
                    Severity.WARNING,
                    f"{KEY}.gateway.allowedCidrs",
                    "admits the whole internet: every model server routed through the Gateway answers anyone "
                    "who finds its address, and its HTTP listener has no TLS or authentication of gpukit's",
                    fix="list the ranges your clients come from",
                )
            )
    if settings.metrics or settings.autoscaling or settings.gateway:
        steady = [p for p in cluster.pools if not p.is_gpu and p.min_nodes >= 1]
        if not steady:
            found.append(
                Finding(
                    Severity.WARNING,
                    KEY,
                    "no pool without GPUs keeps a node running, and the metrics store, KEDA and the "
                    "gateway's proxies do not tolerate the GPU pools' taints (they would keep a GPU node "
                    "from scaling in): they wait for such a node",
                    fix="add a pool without GPUs with minNodes >= 1",
                )
            )
    found += _servers_keep_their_boot_policy(cluster)
    return found


def _servers_keep_their_boot_policy(cluster: ResolvedCluster) -> list[Finding]:
    """k3s on a cloud with no pool without GPUs but its servers: the add-on's pods run on the servers,
    which admit pods of the namespaces their admission policy names (components/k3s/host_scripts.py
    server_policy). That policy is written at a server's first boot only (its user data): a server
    that booted before these namespaces were named refuses their pods. gpukit cannot see offline when
    a server booted, so it says so."""
    servers = [p for p in cluster.pools if p.role is NodeRole.SERVER]
    agents = [p for p in cluster.pools if not p.is_gpu and p.role is not NodeRole.SERVER]
    if not cluster.substrate.builds_machines or not servers or agents or not cluster.system_namespaces:
        return []
    pools = ", ".join(p.name for p in servers)
    return [
        Finding(
            Severity.INFO,
            KEY,
            f"the metrics store, KEDA and the Gateway's proxies run on the servers (pool {pools}), which "
            f"admit pods of {', '.join(cluster.system_namespaces)} only where they first booted with this "
            "config: a server created before `gpukit:inference` was on keeps the admission policy it "
            "booted with (its user data applies at first boot) and refuses those pods",
            fix="on a cluster whose servers predate gpukit:inference, add a pool without GPUs (agents) for "
            "them, or replace the servers one at a time",
        )
    ]

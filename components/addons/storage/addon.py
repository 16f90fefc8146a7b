"""The storage add-on: `gpukit:storage.shared`, ReadWriteMany volumes for datasets, checkpoints and model
caches, each a StorageClass `shared-<name>`, built by the substrate's storage variant (variant.py); and
in the plan, the cluster's default StorageClass beside them."""

from typing import TYPE_CHECKING, Any

from gpukit.components.addons.base import Addon, BuildContext, Built, Unpriced, ValidationScope
from gpukit.components.addons.storage.built import BuiltVolume
from gpukit.components.addons.storage.isolation import isolation_lines
from gpukit.components.addons.storage.plan import planned_volumes
from gpukit.components.addons.storage.report import shared_storage_document, shared_storage_lines
from gpukit.components.addons.storage.usage import spans_zones, usage_findings
from gpukit.components.addons.storage.validate import validate_storage
from gpukit.components.addons.storage.variant import STORAGE, StorageVariant, storage_variant
from gpukit.components.errors import Problem
from gpukit.components.findings import Finding
from gpukit.components.handle import ClusterHandle
from gpukit.components.pricing import Charge
from gpukit.components.substrate import ResolvedCluster

if TYPE_CHECKING:
    import pulumi


class StorageAddon(Addon):
    name = STORAGE
    section = "storage"

    def problems(self, scope: ValidationScope) -> list[Problem]:
        """The neutral checks, then the substrate's own, which read the keys it requires (so only where
        its own checks ran, as before storage was an add-on)."""
        substrate = scope.substrate
        if substrate is None or "storage" not in scope.args:
            return []
        region = scope.args["cluster"].get("region", "")
        problems = validate_storage(scope.args["storage"], substrate, region)
        if scope.substrate_checked:
            problems += storage_variant(substrate).problems(scope)
        return problems

    def wanted(self, cluster: ResolvedCluster) -> bool:
        return bool(cluster.args.get("storage", {}).get("shared"))

    def findings(self, cluster: ResolvedCluster) -> list[Finding]:
        volumes = planned_volumes(cluster)
        variant = storage_variant(cluster.substrate)
        return variant.findings(cluster, volumes) + usage_findings(
            volumes, spans_zones(cluster, variant), variant.zone_notes
        )

    def charges(self, cluster: ResolvedCluster) -> list[Charge]:
        return [
            Charge(f"shared volume {v.name} ({v.kind.value}, {v.size_gb} GiB)", hourly, hourly)
            for v in planned_volumes(cluster)
            if (hourly := v.usd_per_hour) is not None
        ]

    def unpriced(self, cluster: ResolvedCluster) -> Unpriced | None:
        # A bucket bills its stored bytes (the plan shows its rate), not an hourly charge: not "unpriced".
        names = tuple(
            v.name for v in planned_volumes(cluster) if v.usd_per_hour is None and not v.bills_stored_bytes
        )
        if not names:
            return None
        return Unpriced(
            "shared volume(s)",
            names,
            "gpukit has no sourced list price for their backend",
            "storage backends",
        )

    def report(self, cluster: ResolvedCluster, handle: ClusterHandle) -> list[str]:
        volumes = planned_volumes(cluster)
        variant = storage_variant(cluster.substrate)
        return [
            "",
            f"Storage: {handle.storage_summary}",
            *shared_storage_lines(volumes),
            *isolation_lines(volumes, variant.network_policy, variant.pod_access),
        ]

    def document(self, cluster: ResolvedCluster, handle: ClusterHandle) -> dict[str, Any]:
        volumes = planned_volumes(cluster)
        # Only where the stack declares shared volumes: plans without them stay as they were.
        return {
            "storage": handle.storage_summary,
            **({"sharedStorage": shared_storage_document(volumes)} if volumes else {}),
        }

    def build(self, ctx: BuildContext) -> Built:
        """The substrate's variant builds every volume; each must come back built (validation refused
        kinds the substrate does not build, so a missing one is a variant's bug, said here)."""
        volumes = planned_volumes(ctx.cluster)
        built = storage_variant(ctx.cluster.substrate).build(ctx, volumes)
        missing = sorted({v.name for v in volumes} - {b.name for b in built})
        if missing:
            raise RuntimeError(
                f"substrate {ctx.cluster.substrate.name!r} built no shared volume {', '.join(missing)}"
            )
        isolate(ctx, storage_variant(ctx.cluster.substrate), built)
        return Built(ready=tuple(resource for volume in built for resource in volume.resources))


DEFAULT_WORKLOAD_NAMESPACES = ("default",)
"""Where workloads start without a namespace of their own (and the example claims live)."""


def workload_namespaces(ctx: BuildContext) -> list[tuple[str, list["pulumi.Resource"]]]:
    """`default`, and every namespace an earlier add-on created for workloads (batch's teams), each with
    what its policy waits for."""
    found: dict[str, list[pulumi.Resource]] = {n: [] for n in DEFAULT_WORKLOAD_NAMESPACES}
    for built in ctx.built.values():
        for namespace, resource in built.workload_namespaces:
            found.setdefault(namespace, [resource])
    return list(found.items())


def isolate(ctx: BuildContext, variant: StorageVariant, built: list[BuiltVolume]) -> None:
    """Pods kept off the volumes' servers where the substrate's CNI enforces NetworkPolicy."""
    servers = [server for volume in built for server in volume.servers]
    if not variant.network_policy or not servers:
        return
    from gpukit.components.addons.storage.isolation_component import StorageServerIsolation

    StorageServerIsolation(
        f"{ctx.name}-storage-isolation",
        {
            "servers": servers,
            "namespaces": workload_namespaces(ctx),
            "allows": variant.network_policy_allows,
        },
        opts=ctx.in_cluster(ctx.handle.system_ready),
    )


STORAGE_ADDON = StorageAddon()

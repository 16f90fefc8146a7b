"""The storage add-on: `gpukit:storage.shared`, ReadWriteMany volumes for datasets, checkpoints and model
caches, each a StorageClass `shared-<name>`, built by the substrate's storage variant (variant.py); and
in the plan, the cluster's default StorageClass beside them."""

from typing import Any

from gpukit.components.addons.base import Addon, BuildContext, Built, Unpriced, ValidationScope
from gpukit.components.addons.storage.plan import planned_volumes
from gpukit.components.addons.storage.report import shared_storage_document, shared_storage_lines
from gpukit.components.addons.storage.usage import spans_zones, usage_findings
from gpukit.components.addons.storage.validate import validate_storage
from gpukit.components.addons.storage.variant import STORAGE, storage_variant
from gpukit.components.errors import Problem
from gpukit.components.findings import Finding
from gpukit.components.handle import ClusterHandle
from gpukit.components.pricing import Charge
from gpukit.components.substrate import ResolvedCluster


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
        return ["", f"Storage: {handle.storage_summary}", *shared_storage_lines(planned_volumes(cluster))]

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
        return Built(ready=tuple(resource for volume in built for resource in volume.resources))


STORAGE_ADDON = StorageAddon()

"""EKS's shared storage, the storage add-on's variant there (Substrate.addon_variants): EFS, FSx for
Lustre and Mountpoint for S3, each with its CSI add-on, in the cluster's VPC (EksStorageContext, what
the EKS build keeps for it)."""

from gpukit.components.addons.base import BuildContext, ValidationScope
from gpukit.components.addons.storage.built import BuiltVolume
from gpukit.components.addons.storage.variant import StorageVariant
from gpukit.components.addons.storage.volume import PlannedVolume
from gpukit.components.errors import Problem
from gpukit.components.findings import Finding
from gpukit.components.spec import StorageKind
from gpukit.components.substrate import ResolvedCluster
from gpukit.providers.aws.eks.shared_storage.context import EksStorageContext, gpu_zones
from gpukit.providers.aws.eks.shared_storage.findings import (
    LUSTRE_ZONE_UNKNOWN,
    efs_iam_findings,
    lustre_zone_findings,
)
from gpukit.providers.aws.eks.shared_storage.validation import validate_eks_storage


class EksSharedStorage(StorageVariant):
    kinds = frozenset({StorageKind.EFS, StorageKind.FSX_LUSTRE, StorageKind.S3})
    zone_notes = frozenset({StorageKind.FSX_LUSTRE})  # lustre_zone_findings, per GPU pool
    # The VPC CNI enforces no NetworkPolicy unless its network policy agent is turned on, which gpukit
    # does not do (EKS user guide, cni-network-policy.html): pods are kept off the backends otherwise.
    pod_access = (
        "efs: the file system admits only the nodes' IAM roles (IAM authorization), whose credentials no "
        "pod reaches (instance metadata answers one hop only); s3: the bucket through the driver's own "
        "role; fsx-lustre: a Lustre client is a kernel mount, which only a privileged pod can make "
        "(refused by Pod Security baseline, gpukit's default level)"
    )

    def problems(self, scope: ValidationScope) -> list[Problem]:
        args = scope.args
        return validate_eks_storage(
            str(args["cluster"].get("name", "")),
            args.get("storage", {}),
            args["node_pools"] if scope.pools_ok else None,
        )

    def volume_zones(self, cluster: ResolvedCluster, volume: PlannedVolume) -> list[str]:
        """FSx for Lustre lives in one zone: the volume's `zone`, else the first the biggest GPU pool pins,
        else the first node subnet's (context.py lustre_zone); EFS and S3 serve every zone of the region."""
        if volume.kind is not StorageKind.FSX_LUSTRE:
            return []
        if "zone" in volume.spec:
            return [volume.spec["zone"]]
        return list(gpu_zones(cluster.pools)[:1]) or [LUSTRE_ZONE_UNKNOWN]

    def findings(self, cluster: ResolvedCluster, volumes: list[PlannedVolume]) -> list[Finding]:
        """Single-zone file systems whose zone is not pinned, or not the GPUs'; EFS's IAM mounts."""
        return lustre_zone_findings(cluster, volumes) + efs_iam_findings(cluster, volumes)

    def build(self, ctx: BuildContext, volumes: list[PlannedVolume]) -> list[BuiltVolume]:
        # Lazy: building imports pulumi_aws, which planning another cloud's stack never needs.
        from gpukit.providers.aws.eks.shared_storage.build import build_eks_shared_storage

        state = ctx.handle.substrate_state
        if not isinstance(state, EksStorageContext):
            raise TypeError(f"the EKS build keeps an EksStorageContext; got {type(state).__name__}")
        return build_eks_shared_storage(ctx.name, volumes, state, ctx.handle.kubernetes, ctx.parent)

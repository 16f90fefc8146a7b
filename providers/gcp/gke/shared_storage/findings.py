"""What the plan warns about GKE's shared volumes: Managed Lustre instances are made by their CSI driver
for each claim (dynamic provisioning), so Pulumi does not own them. Filestore instances are Pulumi's
(statically provisioned, filestore.py): `pulumi destroy` deletes them, so they get no such warning."""

from gpukit.components.addons.storage.volume import PlannedVolume
from gpukit.components.findings import Finding, Severity
from gpukit.providers.gcp.gke.shared_storage.tables import MANAGED_LUSTRE

_DELETE = {
    MANAGED_LUSTRE: "gcloud lustre instances list / delete",
}


def outliving_instance_findings(volumes: list[PlannedVolume]) -> list[Finding]:
    """A warning per Managed Lustre volume: the claim's instance is the CSI driver's, with
    reclaim policy Retain (so deleting a claim never deletes checkpoints), which means it outlives
    `pulumi destroy`, keeps billing, and blocks deleting the private services access range and the VPC
    until deleted by hand."""
    found: list[Finding] = []
    for i, volume in enumerate(volumes):
        kind = volume.kind.value
        if kind in _DELETE:
            found.append(
                Finding(
                    Severity.WARNING,
                    f"gpukit:storage.shared[{i}]",
                    f"{volume.name}: the {kind} instance behind each claim of class "
                    f"{volume.storage_class} is made by the CSI driver, not by Pulumi, and kept (reclaim "
                    "policy Retain): it outlives `pulumi destroy`, keeps billing, and blocks deleting the "
                    "cluster's VPC until it is deleted",
                    fix=f"before destroying: delete the claims and PersistentVolumes, then the instances "
                    f"({_DELETE[kind]})",
                )
            )
    return found

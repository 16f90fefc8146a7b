"""What the batch add-on is told about EKS (components/addons/batch/variant.py): Karpenter and the
Cluster Autoscaler both start nodes for a gang's pending pods. Only the Cluster Autoscaler also takes
ProvisioningRequests (`provisioning: queued` pools): Karpenter implements none (kubernetes-sigs/kueue#5133).
"""

from gpukit.components.addons.batch.variant import (
    CLUSTER_AUTOSCALER_QUEUED,
    ZONE_HOST_LEVELS,
    BatchVariant,
    PendingPodScaling,
    QueuedProvisioning,
)
from gpukit.components.spec import ClusterConfig
from gpukit.providers.aws.karpenter_validation import uses_karpenter

KARPENTER_BATCH = PendingPodScaling(
    "Karpenter",
    None,
    "Karpenter implements no ProvisioningRequest, so no gang gets its nodes all at once; "
    "`gpukit:cluster.autoscaler: cluster-autoscaler` takes queued pools",
    levels=ZONE_HOST_LEVELS,
)
EKS_CLUSTER_AUTOSCALER_BATCH = PendingPodScaling(
    "the Cluster Autoscaler", CLUSTER_AUTOSCALER_QUEUED, levels=ZONE_HOST_LEVELS
)


class EksBatch(BatchVariant):
    """EKS nodes carry the zone label (topology.kubernetes.io/zone) whatever scales them."""

    topology_levels = ZONE_HOST_LEVELS

    def _scaler(self, args: ClusterConfig) -> PendingPodScaling:
        return KARPENTER_BATCH if uses_karpenter(args["cluster"]) else EKS_CLUSTER_AUTOSCALER_BATCH

    def pending_how(self, args: ClusterConfig) -> str:
        return self._scaler(args).pending_how(args)

    def queued(self, args: ClusterConfig) -> QueuedProvisioning | str:
        return self._scaler(args).queued(args)

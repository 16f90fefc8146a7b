"""What the batch add-on is told about EKS (components/addons/batch/variant.py): Karpenter and the
Cluster Autoscaler both start nodes for a gang's pending pods. Neither is wired to a ProvisioningRequest
by gpukit yet: Karpenter implements none (kubernetes-sigs/kueue#5133), and the Cluster Autoscaler's
(`--enable-provisioning-requests`, CA 1.30.1+) needs its CRD and flag, which gpukit does not install."""

from gpukit.components.addons.batch.variant import CA_WHY, PENDING_PODS, BatchVariant, GangCapacity
from gpukit.components.substrate import ResolvedCluster
from gpukit.providers.aws.karpenter_validation import uses_karpenter


class EksBatch(BatchVariant):
    def capacity(self, cluster: ResolvedCluster) -> GangCapacity:
        if uses_karpenter(cluster.spec):
            return GangCapacity(
                PENDING_PODS.format(scaler="Karpenter", why="it implements no ProvisioningRequest")
            )
        return GangCapacity(PENDING_PODS.format(scaler="the Cluster Autoscaler", why=CA_WHY))

"""EKS's metrics store, the inference add-on's variant there (Substrate.addon_variants): the in-cluster
Prometheus on the cluster's default StorageClass, encrypted gp3 EBS (providers/aws/eks/storage.py),
priced at the gp3 rate of the region the cluster charges are list prices of (us-east-1). An EBS volume
is zonal: a replaced node's Prometheus comes back on a node of the same zone with its history, where
the system pool has a node in that zone (it spans the cluster's zones)."""

from gpukit.components.addons.inference.variant import InferenceVariant, VolumePrice
from gpukit.components.addons.storage.rates import server_disk_rate
from gpukit.components.substrate import ResolvedCluster


class EksInference(InferenceVariant):
    node_local_volume = False
    zonal_volume = True
    # The VPC CNI enforces no NetworkPolicy unless its network policy agent is on, which gpukit leaves
    # off (as the storage add-on's EKS variant says).
    network_policy_enforced = False
    volume_class = "the default StorageClass (encrypted gp3 EBS, one zone)"

    def volume_price(self, cluster: ResolvedCluster) -> VolumePrice:
        # At the catalog's home region's list price, like every cluster charge (the plan says which).
        region = cluster.substrate.catalog.price_basis.region
        rate = server_disk_rate("gp3", region)
        if rate is None:
            return VolumePrice(None, f"gpukit has no sourced gp3 price in {region or 'this region'}")
        return VolumePrice(
            rate.usd_per_gb_month,
            f"gp3 ${rate.usd_per_gb_month:.2f}/GB-month ({region} list price, the plan's price basis)",
        )

"""What verification costs where a GPU pool scales to zero: the plan says so before `pulumi up`.

A verification Job requests a GPU unit of every GPU pool; a pool at `minNodes: 0` has no node, so the
autoscaler starts one for the Job and removes it once it has been idle for its scale-down delay: 10
minutes on EKS and k3s (gpukit sets the Cluster Autoscaler's scale-down-unneeded-time, and its
scale-down-unready-time for nodes it counts unready such as mixed-MIG ones, and Karpenter's
consolidateAfter to 10m, components/autoscaler/chart.py, providers/aws/eks/karpenter_objects.py; GKE's
own autoscaler decides by itself, and gpukit has no sourced figure for it, so the same 10 minutes are
used everywhere and the finding says so). The cost of one verification of such a pool is at most one node
for the Job's timeout plus that delay; usually much less (the check takes seconds once a node is up).
"""

from gpukit.components.addons.verification.checks import timeout_minutes
from gpukit.components.addons.verification.cluster_checks import verification_spec, verifies_gpus
from gpukit.components.autoscaler.chart import IDLE_NODE_MINUTES
from gpukit.components.findings import Finding, Severity
from gpukit.components.pricing import money, pool_quote
from gpukit.components.substrate import ResolvedCluster

SCALE_DOWN_MINUTES = IDLE_NODE_MINUTES
KEY = "gpukit:verification.enabled"


def verification_findings(cluster: ResolvedCluster) -> list[Finding]:
    """An info finding per scale-to-zero GPU pool of a stack that verifies: the node it starts, for how
    long at most, and what that costs at the region's list price."""
    if not verifies_gpus(cluster):
        return []
    timeout = timeout_minutes(verification_spec(cluster))
    minutes = timeout + SCALE_DOWN_MINUTES
    region = cluster.spec.get("region", "")
    findings = []
    for index, pool in enumerate(cluster.pools):
        if not pool.is_gpu or pool.min_nodes > 0 or pool.instance.own_host or not pool.pending_pods_scale:
            continue  # (a pool only ProvisioningRequests scale gets the batch gang check instead)
        per_node = pool_quote(cluster.substrate.catalog, pool, region).per_node
        if per_node is None:
            cost = f"gpukit has no price for {pool.instance.name} in {region}"
        else:
            cost = (
                f"at most {money(per_node * minutes / 60)} per verification "
                f"({money(per_node)}/h x {minutes} min, list price)"
            )
        findings.append(
            Finding(
                Severity.INFO,
                f"gpukit:nodePools[{index}].minNodes",
                f"verification scales pool {pool.name!r} from 0 to 1 node ({pool.instance.name}) each time "
                f"it runs (the first `pulumi up`, then whenever the pool or its GPU stack changes): for the "
                f"check (at most timeoutMinutes, {timeout}) plus the autoscaler's idle delay before it "
                f"removes the node ({SCALE_DOWN_MINUTES} minutes as gpukit sets it; GKE's own autoscaler "
                f"decides itself); {cost}",
                fix=f"nothing to do; set {KEY} to false to deploy without verifying",
            )
        )
    return findings

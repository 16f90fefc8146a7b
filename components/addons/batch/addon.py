"""The batch add-on: with `gpukit:batch.enabled`, Kueue with a ResourceFlavor per GPU pool and the
stack's queues, gang admission (waitForPodsReady), and Kubeflow Trainer v2 with JobSet; how a gang gets
its nodes is the substrate's fact (variant.py)."""

from typing import Any

from gpukit.components.addons.base import Addon, BuildContext, Built, ValidationScope
from gpukit.components.addons.batch.findings import gang_findings, queued_gang_findings, quota_findings
from gpukit.components.addons.batch.gang_check import PODS, gang_pools
from gpukit.components.addons.batch.names import KUEUE_NAMESPACE, TRAINER_NAMESPACE
from gpukit.components.addons.batch.queues import batch_enabled
from gpukit.components.addons.batch.report import document, report_lines
from gpukit.components.addons.batch.settings import batch_settings
from gpukit.components.addons.batch.validate import batch_problems
from gpukit.components.addons.batch.variant import BATCH
from gpukit.components.config.schema import VERIFICATION_TIMEOUT_DEFAULT
from gpukit.components.errors import Problem
from gpukit.components.findings import Finding
from gpukit.components.handle import ClusterHandle
from gpukit.components.substrate import ResolvedCluster


class BatchAddon(Addon):
    name = BATCH
    section = "batch"
    after = ("gpu-operator",)  # its verification gang needs the GPU stack; its queues do not mind

    def system_namespaces(self, cluster: ResolvedCluster) -> tuple[str, ...]:
        # Kueue's controller, and Trainer's with JobSet's, tolerate the pools without GPUs.
        return (KUEUE_NAMESPACE, TRAINER_NAMESPACE) if batch_settings(cluster).trainer else (KUEUE_NAMESPACE,)

    def problems(self, scope: ValidationScope) -> list[Problem]:
        return batch_problems(scope)

    def wanted(self, cluster: ResolvedCluster) -> bool:
        return batch_enabled(cluster.args) and bool(cluster.gpu_pools)

    def findings(self, cluster: ResolvedCluster) -> list[Finding]:
        settings = batch_settings(cluster)
        found = quota_findings(settings.queues, cluster.pools, settings.configured_queues)
        verifies = cluster.args.get("verification", {}).get("enabled", False)
        gang = [p.name for p in gang_pools(cluster.pools)]
        found += gang_findings(cluster.pools, verifies, gang, PODS)
        if verifies:
            timeout = cluster.args.get("verification", {}).get(
                "timeout_minutes", VERIFICATION_TIMEOUT_DEFAULT
            )
            found += queued_gang_findings(cluster, gang, PODS, timeout)
        return found

    def report(self, cluster: ResolvedCluster, handle: ClusterHandle) -> list[str]:
        return report_lines(batch_settings(cluster)) if self.wanted(cluster) else []

    def document(self, cluster: ResolvedCluster, handle: ClusterHandle) -> dict[str, Any]:
        return document(batch_settings(cluster)) if self.wanted(cluster) else {}

    def build(self, ctx: BuildContext) -> Built:
        # Lazy: the component imports pulumi_kubernetes, which only building needs.
        from gpukit.components.addons.batch.component import BatchScheduling, batch_args

        # Kueue looks for the ProvisioningRequest API only when it starts: it waits for what installs it.
        waits = [*ctx.ready(), *ctx.handle.api_extensions]
        batch = BatchScheduling(f"{ctx.name}-batch", batch_args(ctx.cluster), opts=ctx.in_cluster(waits))
        return Built(ready=(batch,), workload_namespaces=tuple(batch.namespaces.items()))


BATCH_ADDON = BatchAddon()

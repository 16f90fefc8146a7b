"""The verification add-on: with `gpukit:verification.enabled`, one Job per GPU pool that proves a pod
there gets what the pool promises, after the GPU stack is installed; `pulumi up` waits for them. The
same checks are what `gpukit verify` runs against a running cluster."""

from gpukit.components.addons.base import Addon, BuildContext, Built, ValidationScope
from gpukit.components.addons.verification.checks import timeout_minutes as configured_timeout
from gpukit.components.addons.verification.cluster_checks import (
    cluster_checks,
    fingerprint,
    verification_spec,
    verifies_gpus,
)
from gpukit.components.addons.verification.findings import verification_findings
from gpukit.components.addons.verification.suite import PoolChecks
from gpukit.components.config.schema import VERIFICATION_TIMEOUT_RANGE
from gpukit.components.errors import Problem
from gpukit.components.findings import Finding
from gpukit.components.substrate import ResolvedCluster

VERIFICATION = "verification"


class VerificationAddon(Addon):
    name = VERIFICATION
    section = "verification"
    after = ("gpu-operator",)  # its Jobs prove the GPU stack: they start once it is installed

    def problems(self, scope: ValidationScope) -> list[Problem]:
        timeout = scope.args.get("verification", {}).get("timeout_minutes")
        low, high = VERIFICATION_TIMEOUT_RANGE
        if timeout is not None and not low <= timeout <= high:
            return [
                Problem(
                    "gpukit:verification.timeoutMinutes",
                    f"must be {low} to {high} minutes (a scale-from-zero node and the GPU stack's start-up "
                    f"take several); got {timeout!r}",
                )
            ]
        return []

    def wanted(self, cluster: ResolvedCluster) -> bool:
        return verifies_gpus(cluster)

    def findings(self, cluster: ResolvedCluster) -> list[Finding]:
        return verification_findings(cluster)

    def checks(self, cluster: ResolvedCluster, timeout_minutes: int | None = None) -> PoolChecks | None:
        checks = cluster_checks(cluster)
        if not checks:
            return None
        timeout = timeout_minutes or configured_timeout(verification_spec(cluster))
        return PoolChecks(tuple(checks), timeout, fingerprint(cluster))

    def build(self, ctx: BuildContext) -> Built:
        """After the GPU stack: the GPU Operator where it is built, else what the platform's GPU software
        needs (the system pools)."""
        # Lazy: the component imports pulumi_kubernetes, which only building needs.
        from gpukit.components.addons.verification.component import GpuVerification, pool_check_args

        cluster = ctx.cluster
        verification = GpuVerification(
            f"{ctx.name}-verify",
            {
                "checks": [pool_check_args(c) for c in cluster_checks(cluster)],
                "timeout_minutes": configured_timeout(verification_spec(cluster)),
                "fingerprint": fingerprint(cluster),
            },
            opts=ctx.in_cluster(ctx.ready()),
        )
        return Built(ready=(verification,))


VERIFICATION_ADDON = VerificationAddon()

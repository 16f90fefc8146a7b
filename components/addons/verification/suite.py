"""The GPU checks as `gpukit verify` runs them against a running cluster: the very Jobs `pulumi up`
creates (jobs.py), with a run id in their names and a TTL as a backstop."""

from dataclasses import dataclass, field
from typing import Any

from gpukit.components.addons.verification.checks import PoolCheck
from gpukit.components.addons.verification.jobs import job_manifest, namespace_manifests


@dataclass(frozen=True)
class PoolChecks:
    """One Job per GPU pool (components/addons/base.py CheckSuite)."""

    checks: tuple[PoolCheck, ...]
    timeout_minutes: int
    fingerprint: dict[str, str] = field(default_factory=dict)
    subject: str = "GPU pool"

    def namespaces(self) -> list[dict[str, Any]]:
        return namespace_manifests(list(self.checks))

    def objects(self, run: str) -> list[dict[str, Any]]:
        return []  # a GPU check's pod needs nothing but its namespace

    def jobs(self, run: str, ttl_seconds: int) -> dict[str, dict[str, Any]]:
        return {
            f"pool {c.pool}": job_manifest(
                c, self.timeout_minutes, self.fingerprint, run=run, ttl_seconds=ttl_seconds
            )
            for c in self.checks
        }

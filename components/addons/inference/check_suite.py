"""The inference check as `gpukit verify` runs it against a running cluster: the very objects `pulumi up`
makes (check_objects.py), named and labelled for the run, beside `pulumi up`'s own (its Deployments
start at one replica, its Job's pod is the GPU holder its witness looks for, its route answers a
hostname of its own), and deleted with the run.

Where the check reaches the Gateway at the Gateway's own address (GKE), that address is what
`pulumi up` read from the Gateway's status; a run from this machine does not look it up, so its check
leaves the route out and says so in its subject."""

from dataclasses import dataclass, replace
from typing import Any

from gpukit.components.addons.base import RUN_LABEL
from gpukit.components.addons.inference.check_objects import CheckPlan, check_namespace, inference_check


def _labelled(obj: dict[str, Any], run: str) -> dict[str, Any]:
    metadata = obj["metadata"]
    return {**obj, "metadata": {**metadata, "labels": {**metadata.get("labels", {}), RUN_LABEL: run}}}


@dataclass(frozen=True)
class InferenceChecks:
    """The check Job (components/addons/base.py CheckSuite)."""

    plan: CheckPlan
    route_left_out: bool = False
    """The stack's check has a route this run leaves out (GKE's)."""

    @property
    def subject(self) -> str:
        if self.route_left_out:
            return "inference pipeline (no route: only pulumi up reads the Gateway's address)"
        return "inference pipeline"

    @property
    def timeout_minutes(self) -> int:
        return self.plan.timeout_minutes

    @classmethod
    def of(cls, plan: CheckPlan, timeout_minutes: int | None = None) -> "InferenceChecks":
        """The suite for `plan`; the route left out where the check would need the Gateway's status."""
        left_out = plan.gateway is not None and not plan.gateway.host
        if left_out:
            plan = replace(plan, gateway=None, health_check_policies=False)
        return cls(replace(plan, timeout_minutes=timeout_minutes or plan.timeout_minutes), left_out)

    def namespaces(self) -> list[dict[str, Any]]:
        return [check_namespace(self.plan.gateway is not None)]

    def objects(self, run: str) -> list[dict[str, Any]]:
        return [_labelled(obj, run) for obj in inference_check(self.plan, run).fixtures]

    def jobs(self, run: str, ttl_seconds: int) -> dict[str, dict[str, Any]]:
        job = inference_check(self.plan, run).check_job
        label = (
            f"the check (its pod on pool {self.plan.holder.pool})"
            if self.plan.dcgm and self.plan.holder
            else "the check"
        )
        return {
            label: _labelled({**job, "spec": {"ttlSecondsAfterFinished": ttl_seconds, **job["spec"]}}, run)
        }

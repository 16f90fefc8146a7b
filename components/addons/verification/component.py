"""GpuVerification: one Kubernetes Job per GPU pool that proves a pod there gets what the pool promises,
and makes `pulumi up` wait for it.

How `pulumi up` waits and fails: components/awaited_jobs.py. Each Job's resource name carries its pool's
name, so the failed update names the pool, and its pod's log says which check failed.
"""

from typing import Any, NotRequired, Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from gpukit.components.addons.verification.checks import PoolCheck
from gpukit.components.addons.verification.jobs import (
    NAMESPACE,
    job_manifest,
    job_namespace,
    namespace_manifests,
)
from gpukit.components.awaited_jobs import await_timeouts, awaited_metadata
from gpukit.components.spec import SharingMode

TYPE_TOKEN = "gpukit:index:GpuVerification"


class VerificationTolerationArgs(TypedDict):
    key: str
    operator: str
    effect: str


class PoolCheckArgs(TypedDict):
    pool: str
    node_selector: dict[str, str]
    tolerations: list[VerificationTolerationArgs]
    resource: str
    """The one unit the pod requests: nvidia.com/gpu, or nvidia.com/mig-<profile>."""
    gpu_model: str
    gpu_names: str
    """The model's normalised nvidia-smi spellings, space-separated (empty: match `gpu_pattern`)."""
    gpu_pattern: str
    memory_min_mib: int
    memory_max_mib: int
    """0 and 0: memory not checked (MIG)."""
    sharing: str
    """none, time-slicing, mps or mig."""
    mig_profiles: NotRequired[list[str]]
    platform_shares: NotRequired[bool]
    """The platform's device plugin (GKE's) shares the GPUs, not the GPU Operator's."""
    replicas: NotRequired[int]


def pool_check_args(check: PoolCheck) -> PoolCheckArgs:
    """A pool's check as GpuVerificationArgs take it."""
    return {
        "pool": check.pool,
        "node_selector": dict(check.node_selector),
        "tolerations": [{"key": k, "operator": o, "effect": e} for k, o, e in check.tolerations],
        "resource": check.resource,
        "gpu_model": check.gpu_model,
        "gpu_names": check.gpu_names,
        "gpu_pattern": check.gpu_pattern,
        "memory_min_mib": check.memory_min_mib,
        "memory_max_mib": check.memory_max_mib,
        "sharing": check.sharing.value,
        "mig_profiles": list(check.mig_profiles),
        "platform_shares": check.platform_shares,
        "replicas": check.replicas,
    }


def _pool_check(args: PoolCheckArgs) -> PoolCheck:
    return PoolCheck(
        pool=args["pool"],
        node_selector=tuple(sorted(args["node_selector"].items())),
        tolerations=tuple((t["key"], t["operator"], t["effect"]) for t in args["tolerations"]),
        resource=args["resource"],
        gpu_model=args["gpu_model"],
        gpu_names=args["gpu_names"],
        gpu_pattern=args["gpu_pattern"],
        memory_min_mib=args["memory_min_mib"],
        memory_max_mib=args["memory_max_mib"],
        sharing=SharingMode(args["sharing"]),
        mig_profiles=tuple(args.get("mig_profiles", [])),
        platform_shares=args.get("platform_shares", False),
        replicas=args.get("replicas", 1),
    )


class GpuVerificationArgs(TypedDict):
    checks: list[PoolCheckArgs]
    """One per GPU pool."""
    timeout_minutes: int
    """How long each pool's Job may take before it fails, and `pulumi up` with it."""
    fingerprint: NotRequired[dict[str, str]]
    """What else a verification vouches for (the GPU Operator's chart version, the driver mode): a
    change gives the Jobs new names, so `pulumi up` replaces them and verifies again."""


class GpuVerification(pulumi.ComponentResource):
    """Namespace `gpukit-verify` (and `gpukit-verify-hostipc` for pools whose MPS GKE runs) plus one Job
    per pool; `pulumi up` succeeds only once every Job has.

    Pass the cluster's Kubernetes provider through `opts.providers`, and make it depend on the GPU
    stack (the GPU Operator) so the Jobs start once it is installed.
    """

    namespace: pulumi.Output[str]
    """The first of the namespaces (`gpukit-verify` unless every pool's MPS is GKE's)."""
    job_names: dict[str, pulumi.Output[str]]
    """Pool name -> its Job's name."""

    def __init__(self, name: str, args: GpuVerificationArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        checks = [_pool_check(c) for c in args["checks"]]
        timeout = args["timeout_minutes"]
        fingerprint = args.get("fingerprint", {})
        # What the component waits for (the GPU Operator), stated on its first children as well: every
        # Job takes its namespace's name, so no Job starts before the GPU stack is installed.
        namespaces: dict[str, k8s.core.v1.Namespace] = {}
        for namespace_object in namespace_manifests(checks):
            namespace_name = namespace_object["metadata"]["name"]
            suffix = "" if namespace_name == NAMESPACE else "-hostipc"
            namespaces[namespace_name] = k8s.core.v1.Namespace(
                f"{name}-namespace{suffix}",
                metadata=namespace_object["metadata"],
                opts=pulumi.ResourceOptions(parent=self, depends_on=opts.depends_on if opts else None),
            )
        waits = await_timeouts(timeout)
        self.job_names = {}
        for check in checks:
            job = job_manifest(check, timeout, fingerprint)
            # The Job's metadata as jobs.py renders it, in the namespace this component made.
            namespace = namespaces[job_namespace(check)].metadata["name"]
            metadata: Any = awaited_metadata({**job["metadata"], "namespace": namespace}, timeout)
            created = k8s.batch.v1.Job(
                f"{name}-{check.pool}",
                metadata=metadata,
                spec=job["spec"],
                opts=pulumi.ResourceOptions(parent=self, custom_timeouts=waits),
            )
            self.job_names[check.pool] = created.metadata["name"]
        self.namespace = next(iter(namespaces.values())).metadata["name"]
        self.register_outputs({"namespace": self.namespace, "job_names": self.job_names})

"""The Kubernetes objects of a GPU verification, as plain manifests: its namespace and one Job per GPU
pool. Pure: GpuVerification (under `pulumi up`) and `gpukit verify` (kubectl against a running
cluster) both apply exactly these.

Hardening: no service-account token (the check needs no API access), no service links, non-root
(uid/gid 65534) except on MPS pools (checks.PoolCheck.runs_as_root), no privilege escalation, every
capability dropped, seccomp RuntimeDefault: Pod Security "restricted" (kubernetes.io/docs/concepts/
security/pod-security-standards), which the namespace enforces unless an MPS pool needs root, where it
enforces "baseline" and warns and audits "restricted". GKE's own MPS (checks.PoolCheck.host_ipc) needs
`hostIPC: true`, which only the "privileged" level admits ("baseline" forbids host namespaces): those
Jobs, and nothing else, run in a namespace of their own, HOST_IPC_NAMESPACE, which enforces
"privileged" and warns and audits "restricted". The root filesystem is not made read-only: the
"restricted" profile does not require it, and gpukit has not checked that every node image's NVIDIA
container toolkit injects the driver's files into a read-only one.

A Job's name carries a hash of everything it checks and runs, so a changed pool, script, image or GPU
stack (the `fingerprint` the caller passes, e.g. the GPU Operator's chart version) gives a new Job:
Pulumi replaces the old one and the pool is verified again. An unchanged cluster keeps its Job and is
not re-verified on every `pulumi up` (each run would start a node of every scale-to-zero pool).
"""

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from gpukit.components.addons.base import RUN_LABEL
from gpukit.components.addons.verification.checks import SAMPLE_IMAGE, PoolCheck, check_script

NAMESPACE = "gpukit-verify"
HOST_IPC_NAMESPACE = "gpukit-verify-hostipc"
"""Only the Jobs of pools whose MPS GKE runs: the one place gpukit admits `hostIPC`."""
APP_LABEL = "app.kubernetes.io/name"
APP = "gpukit-verify"
POOL_LABEL = "gpukit.dev/verify-pool"
CONTAINER = "check"
NOBODY = 65534
BACKOFF_LIMIT = 1
"""One retry: a spot node reclaimed under the pod is not a failed check."""


def job_namespace(check: PoolCheck) -> str:
    """The namespace a pool's Job runs in."""
    return HOST_IPC_NAMESPACE if check.host_ipc else NAMESPACE


def namespace_manifests(checks: list[PoolCheck]) -> list[dict[str, Any]]:
    """The namespaces the checks' Jobs run in, each with the Pod Security level its pods meet."""
    levels = {}
    for check in checks:
        if check.host_ipc:
            levels[HOST_IPC_NAMESPACE] = "privileged"
        elif check.runs_as_root or levels.get(NAMESPACE) == "baseline":
            levels[NAMESPACE] = "baseline"
        else:
            levels[NAMESPACE] = "restricted"
    return [_namespace(name, levels[name]) for name in (NAMESPACE, HOST_IPC_NAMESPACE) if name in levels]


def _namespace(name: str, level: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": name,
            "labels": {
                APP_LABEL: APP,
                "pod-security.kubernetes.io/enforce": level,
                "pod-security.kubernetes.io/audit": "restricted",
                "pod-security.kubernetes.io/warn": "restricted",
            },
        },
    }


def _pod_security(check: PoolCheck) -> dict[str, Any]:
    seccomp = {"seccompProfile": {"type": "RuntimeDefault"}}
    if check.runs_as_root:
        return seccomp
    return {"runAsNonRoot": True, "runAsUser": NOBODY, "runAsGroup": NOBODY, **seccomp}


def _job_spec(check: PoolCheck, timeout_minutes: int, fingerprint: Mapping[str, str]) -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": CONTAINER,
        "image": SAMPLE_IMAGE,
        "imagePullPolicy": "IfNotPresent",
        "command": ["bash", "-c", check_script(check)],
        # The toolkit injects nvidia-smi only with the `utility` capability (the CUDA images set both;
        # stated here so the check does not depend on the image's defaults).
        "env": [{"name": "NVIDIA_DRIVER_CAPABILITIES", "value": "compute,utility"}],
        "resources": {
            "requests": {"cpu": "100m", "memory": "128Mi"},
            "limits": {check.resource: "1", "memory": "512Mi"},
        },
        "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}},
        # A failed check's log tail (its FAIL lines) becomes the container's termination message, kept
        # in the pod's status by the API server: readable when the log is gone with a scaled-down node
        # (kubernetes.io/docs/tasks/debug/debug-application/determine-reason-pod-failure: "the last
        # chunk of container log output if the termination message file is empty and the container
        # exited with an error", at most 2048 bytes or 80 lines; the script prints about ten).
        "terminationMessagePolicy": "FallbackToLogsOnError",
    }
    return {
        "backoffLimit": BACKOFF_LIMIT,
        # The Job fails itself at the deadline (reason DeadlineExceeded): a pool that never gets a node
        # or a unit fails with Kubernetes' own message instead of hanging.
        "activeDeadlineSeconds": timeout_minutes * 60,
        "template": {
            "metadata": {
                "labels": {APP_LABEL: APP, POOL_LABEL: check.pool},
                "annotations": dict(sorted(fingerprint.items())),
            },
            "spec": {
                "restartPolicy": "Never",
                "automountServiceAccountToken": False,
                "enableServiceLinks": False,
                "nodeSelector": dict(check.node_selector),
                "tolerations": [
                    {"key": key, "operator": operator, "effect": effect}
                    for key, operator, effect in check.tolerations
                ],
                **({"hostIPC": True} if check.host_ipc else {}),
                "securityContext": _pod_security(check),
                "containers": [container],
            },
        },
    }


def job_name(check: PoolCheck, spec: Mapping[str, Any]) -> str:
    """`gpukit-verify-<pool>-<hash of the Job's spec>`: at most 14 + 24 + 9 characters (pool names are
    at most 24), 7 more with a `gpukit verify` run id, within the 63 a Job's name may have (it becomes
    its pods' `job-name` label)."""
    digest = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:8]
    return f"{APP}-{check.pool}-{digest}"


def job_manifest(
    check: PoolCheck,
    timeout_minutes: int,
    fingerprint: Mapping[str, str] | None = None,
    *,
    run: str | None = None,
    ttl_seconds: int | None = None,
) -> dict[str, Any]:
    """The Job that verifies one pool.

    `run` (for `gpukit verify`): a run id added to the name and as a label, so a check of a running
    cluster never collides with the Job `pulumi up` made from the same config, and cleans up only its
    own. `ttl_seconds`: let Kubernetes delete it that long after it finishes, should `gpukit verify` be
    killed before it cleans up (a Job Pulumi owns keeps no TTL, or a refresh would find it gone and the
    next `pulumi up` would start a GPU node to run it again). Neither changes what the pod runs."""
    spec = _job_spec(check, timeout_minutes, fingerprint or {})
    name = job_name(check, spec)
    labels = {APP_LABEL: APP, POOL_LABEL: check.pool}
    if run is not None:
        name = f"{name}-{run}"
        labels[RUN_LABEL] = run
    if ttl_seconds is not None:
        spec = {"ttlSecondsAfterFinished": ttl_seconds, **spec}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": job_namespace(check), "labels": labels},
        "spec": spec,
    }

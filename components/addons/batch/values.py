"""The Helm values gpukit sets on Kueue and on Kubeflow Trainer: pure, and every key is checked against
the pinned chart's vendored values.yaml (tests/unit/test_batch_values.py).

Kueue's controller manager reads one Configuration (config.kueue.x-k8s.io/v1beta2), which the chart
takes whole as a string (`managerConfig.controllerManagerConfigYaml`): gpukit renders the chart's
default (kueue v0.19.2 charts/kueue/values.yaml) with three changes:
- waitForPodsReady: the stack's gang timeout and blockAdmission (Kueue v0.19 always applies it, with a
  30-minute default: apis/config/v1beta2/defaults.go), requeued with Kueue's default backoff;
- integrations: batch/job, and JobSet and TrainJob where Trainer is installed, and nothing else
  (the default list names Ray, AppWrapper, LeaderWorkerSet and more, none of which gpukit installs);
- resources.quotaCheckStrategy IgnoreUndeclared (beta, on by default since v0.19,
  pkg/features/kube_features.go): only the GPU resources the queues cover count. Under the default,
  BlockUndeclared, a pod that requests CPU, memory or an EFA interface would be inadmissible in every
  queue, since gpukit's quotas are GPUs only.
"""

from collections.abc import Mapping, Sequence
from typing import Any

import yaml

CONFIG_API = "config.kueue.x-k8s.io/v1beta2"
# The chart's defaults for what gpukit does not change (kueue v0.19.2 charts/kueue/values.yaml).
_CHART_DEFAULTS: dict[str, Any] = {
    "health": {"healthProbeBindAddress": ":8081"},
    "metrics": {"bindAddress": ":8443"},
    "webhook": {"port": 9443},
    "leaderElection": {"leaderElect": True, "resourceName": "c1f6bfd2.kueue.x-k8s.io"},
    "controller": {
        "groupKindConcurrency": {
            "Job.batch": 5,
            "Pod": 5,
            "Workload.kueue.x-k8s.io": 10,
            "LocalQueue.kueue.x-k8s.io": 5,
            "ClusterQueue.kueue.x-k8s.io": 5,
            "ResourceFlavor.kueue.x-k8s.io": 1,
        }
    },
    "clientConnection": {"qps": 300, "burst": 500},
}
BATCH_JOB = "batch/job"
TRAINER_FRAMEWORKS = ("jobset.x-k8s.io/jobset", "trainer.kubeflow.org/trainjob")


def kueue_configuration(timeout_minutes: int, block_admission: bool, trainer: bool) -> dict[str, Any]:
    return {
        "apiVersion": CONFIG_API,
        "kind": "Configuration",
        **_CHART_DEFAULTS,
        "waitForPodsReady": {
            "timeout": f"{timeout_minutes}m",
            "blockAdmission": block_admission,
            "requeuingStrategy": {
                "timestamp": "Eviction",
                "backoffBaseSeconds": 60,
                "backoffMaxSeconds": 3600,
            },
        },
        "integrations": {"frameworks": [BATCH_JOB, *(TRAINER_FRAMEWORKS if trainer else ())]},
        "resources": {"quotaCheckStrategy": "IgnoreUndeclared"},
    }


PROVISIONING_ANNOTATION = "gpukit.dev/provisioning-requests"


def kueue_values(
    timeout_minutes: int,
    block_admission: bool,
    trainer: bool,
    tolerations: Sequence[Mapping[str, str]],
    provisioning_requests: bool = False,
) -> dict[str, Any]:
    """`tolerations`: for the taints of the machines without GPUs (k3s servers'), so the controller
    runs where system pods do. `provisioning_requests`: a pool is queued. Kueue looks for the
    ProvisioningRequest API only when it starts, so its pods carry an annotation that says so: the first
    queued pool added to a running cluster changes the pod template, and Kueue restarts after the API is
    there (the release waits for what installs it). Removing the last one restarts it too; the API stays
    (the CRD is retained: components/autoscaler/provisioning.py), so nothing goes from under it."""
    config = kueue_configuration(timeout_minutes, block_admission, trainer)
    manager: dict[str, Any] = {"tolerations": [dict(t) for t in tolerations]}
    if provisioning_requests:
        manager["manager"] = {"podAnnotations": {PROVISIONING_ANNOTATION: "true"}}
    return {
        "controllerManager": manager,
        "managerConfig": {"controllerManagerConfigYaml": yaml.safe_dump(config, sort_keys=False)},
    }


def trainer_values(tolerations: Sequence[Mapping[str, str]]) -> dict[str, Any]:
    """Trainer with its JobSet dependency (charts/kubeflow-trainer/Chart.yaml: jobset 0.11.0, on
    `jobset.install`). The chart's own runtimes stay off (`runtimes.defaultEnabled: false`, its
    default): its installer Job downloads kubectl at run time unpinned; gpukit creates its own
    runtimes (runtimes.py)."""
    tolerations = [dict(t) for t in tolerations]
    return {
        "jobset": {"install": True, "controller": {"tolerations": tolerations}},
        "manager": {"tolerations": tolerations},
        "runtimes": {"defaultEnabled": False},
    }

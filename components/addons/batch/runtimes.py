"""A PyTorch ClusterTrainingRuntime per GPU pool (trainer.kubeflow.org/v1alpha1, Kubeflow Trainer
v2.2.1): the upstream `torch-distributed` runtime (manifests/base/runtimes/torch_distributed.yaml) pinned
to the pool: its node selector, the tolerations for its taints, and one node's GPU units as each
trainer pod's request, so a TrainJob that names `torch-<pool>` runs one pod per node there.

A TrainJob queues through Kueue with the label `kueue.x-k8s.io/queue-name` (docs/batch.md); Kueue
then adds the pool flavor's tolerations itself, and the runtime's make it schedulable without Kueue.
"""

from collections.abc import Sequence
from typing import Any

from gpukit.components.pools import POOL_LABEL, PoolFacts
from gpukit.components.spec import SharingMode

API_VERSION = "trainer.kubeflow.org/v1alpha1"
TORCH_IMAGE = "pytorch/pytorch:2.10.0-cuda12.8-cudnn9-runtime"
"""The upstream runtime's image at v2.2.1."""
ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"


def runtime_pools(pools: Sequence[PoolFacts]) -> list[PoolFacts]:
    """The GPU pools that get a runtime: those of whole GPUs. A shared pool's pod may not take a node's
    units (time-slicing and MPS refuse requests of more than one: failRequestsGreaterThanOne), and one
    process over several MIG instances is not something CUDA does."""
    return [p for p in pools if p.is_gpu and p.sharing.mode is SharingMode.NONE]


def runtime_name(pool: PoolFacts) -> str:
    return f"torch-{pool.name}"


def torch_runtime(pool: PoolFacts) -> dict[str, Any]:
    resources = {name: str(count) for name, count in pool.advertised_resources.items()}
    return {
        "apiVersion": API_VERSION,
        "kind": "ClusterTrainingRuntime",
        "metadata": {
            "name": runtime_name(pool),
            "labels": {"trainer.kubeflow.org/framework": "torch", "app.kubernetes.io/managed-by": "gpukit"},
        },
        "spec": {
            # As upstream's: TrainJob's `trainer.numNodes` and `numProcPerNode` size a run (v2.2.1's
            # mlPolicy.torch takes no process count: its vendored CRD schema is empty).
            "mlPolicy": {"numNodes": 1, "torch": {}},
            "template": {
                "spec": {
                    "replicatedJobs": [
                        {
                            "name": "node",
                            "template": {
                                "metadata": {"labels": {ANCESTOR_LABEL: "trainer"}},
                                "spec": {
                                    "template": {
                                        "spec": {
                                            "nodeSelector": {POOL_LABEL: pool.name},
                                            "tolerations": [t.toleration() for t in pool.taints],
                                            "containers": [
                                                {
                                                    "name": "node",
                                                    "image": TORCH_IMAGE,
                                                    "resources": {"limits": resources},
                                                }
                                            ],
                                        }
                                    }
                                },
                            },
                        }
                    ]
                }
            },
        },
    }

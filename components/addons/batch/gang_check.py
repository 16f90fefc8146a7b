"""The batch verification: a gang of two pods, one GPU unit each, submitted through a LocalQueue; each
pod passes only once it has seen the other running (the peer's DNS record under a headless Service
appears only while that pod runs), so the Job completes only if Kueue admitted both together and both
ran at once. Its own ClusterQueue holds exactly the gang's quota, so it never waits behind, or takes
from, a team's queue. Pure manifests: the component applies exactly these.

Hardened as the per-pool verification is: no service-account token, non-root, no privilege escalation,
every capability dropped, seccomp RuntimeDefault; the namespace enforces Pod Security "restricted".
"""

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from gpukit.components.addons.batch.names import GANG_CHECK_NAMESPACE, QUEUE_NAME_LABEL, flavor_name
from gpukit.components.addons.batch.objects import API_VERSION, MANAGED_BY, MANAGED_LABEL, PROVISIONING_CHECK
from gpukit.components.pools import POOL_LABEL, PoolFacts
from gpukit.components.sharing import GPU_RESOURCE

NAMESPACE = GANG_CHECK_NAMESPACE
QUEUE = "gpukit-verify-gang"
SERVICE = "gang"
PODS = 2
# The per-pool verification's image (components/addons/verification/checks.py SAMPLE_IMAGE; a test
# holds them equal): Ubuntu-based, so `getent` is there, and already pulled on the pool's nodes.
IMAGE = "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0-ubuntu22.04"
NOBODY = 65534
PEER_WAIT_SECONDS = 300
"""Once running, how long a pod waits for its peer: Kueue admitted both, so the peer is only the
scheduler and an image pull away (the node start-up counts against the Job's deadline instead)."""

SCRIPT = """set -eu
peer="${JOB_NAME}-$((1 - JOB_COMPLETION_INDEX)).${SERVICE}"
waited=0
until getent hosts "$peer" >/dev/null; do
  if [ "$waited" -ge "$PEER_WAIT_SECONDS" ]; then
    echo "gpukit-verify: FAIL: pod ${JOB_COMPLETION_INDEX} ran ${waited}s without its gang peer $peer"
    exit 1
  fi
  sleep 5
  waited=$((waited + 5))
done
echo "gpukit-verify: ok: pod ${JOB_COMPLETION_INDEX} ran together with $peer"
# Stay up long enough for the peer to see this pod too.
sleep 30
"""


def holds_gang(pool: PoolFacts) -> bool:
    """A GPU pool whose nodes advertise nvidia.com/gpu and that holds the gang at maxNodes."""
    return pool.is_gpu and pool.advertised_resources.get(GPU_RESOURCE, 0) * pool.max_nodes >= PODS


def gang_pools(pools: Sequence[PoolFacts]) -> list[PoolFacts]:
    """Where the gang check runs: the first pool of standard provisioning that holds it (the path every
    other gang takes), and every queued pool that does (each one's ProvisioningRequest path: on GKE
    the only check such a pool gets, since a plain pod never starts one of its nodes)."""
    standard = [p for p in pools if holds_gang(p) and not p.queued][:1]
    return standard + [p for p in pools if holds_gang(p) and p.queued]


def _meta(name: str, namespace: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "labels": {MANAGED_LABEL: MANAGED_BY}}
    if namespace:
        meta["namespace"] = namespace
    return meta


def gang_queue_objects(
    pools: Sequence[PoolFacts], flavors: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """Its namespace, ClusterQueue (one gang's quota on each pool; a queued pool's flavor waits for its
    ProvisioningRequest, as a team queue's does) and LocalQueue. `flavors`: each pool's flavor name
    (objects.flavor_names; default `pool-<pool>`)."""
    names = {p.name: (flavors or {}).get(p.name, flavor_name(p.name)) for p in pools}
    namespace = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": NAMESPACE,
            "labels": {
                MANAGED_LABEL: MANAGED_BY,
                "pod-security.kubernetes.io/enforce": "restricted",
                "pod-security.kubernetes.io/warn": "restricted",
            },
        },
    }
    cluster_queue: dict[str, Any] = {
        "apiVersion": API_VERSION,
        "kind": "ClusterQueue",
        "metadata": _meta(QUEUE),
        "spec": {
            "namespaceSelector": {
                "matchExpressions": [
                    {"key": "kubernetes.io/metadata.name", "operator": "In", "values": [NAMESPACE]}
                ]
            },
            "resourceGroups": [
                {
                    "coveredResources": [GPU_RESOURCE],
                    "flavors": [
                        {
                            "name": names[pool.name],
                            "resources": [{"name": GPU_RESOURCE, "nominalQuota": PODS}],
                        }
                        for pool in pools
                    ],
                }
            ],
        },
    }
    checked = [names[p.name] for p in pools if p.queued]
    if checked:
        cluster_queue["spec"]["admissionChecksStrategy"] = {
            "admissionChecks": [{"name": PROVISIONING_CHECK, "onFlavors": checked}]
        }
    local_queue = {
        "apiVersion": API_VERSION,
        "kind": "LocalQueue",
        "metadata": _meta(QUEUE, NAMESPACE),
        "spec": {"clusterQueue": QUEUE},
    }
    return [namespace, cluster_queue, local_queue]


def gang_service() -> dict[str, Any]:
    """Headless: each running pod of the Job gets `<job>-<index>.gang` (pod `subdomain`)."""
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": _meta(SERVICE, NAMESPACE),
        "spec": {
            "clusterIP": "None",
            "selector": {"gpukit.dev/verify-gang": "true"},
            "ports": [{"port": 80}],
        },
    }


def gang_job(pool: PoolFacts, timeout_minutes: int) -> dict[str, Any]:
    """The gang Job, named by a hash of what it runs, so a change verifies again."""
    pod_spec: dict[str, Any] = {
        "restartPolicy": "Never",
        "subdomain": SERVICE,
        "automountServiceAccountToken": False,
        "enableServiceLinks": False,
        "nodeSelector": {POOL_LABEL: pool.name},
        "tolerations": [t.toleration() for t in pool.taints],
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": NOBODY,
            "runAsGroup": NOBODY,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "containers": [
            {
                "name": "gang",
                "image": IMAGE,
                "command": ["/bin/sh", "-c", SCRIPT],
                "env": [
                    {"name": "SERVICE", "value": SERVICE},
                    {"name": "PEER_WAIT_SECONDS", "value": str(PEER_WAIT_SECONDS)},
                ],
                "resources": {"limits": {GPU_RESOURCE: "1"}},
                "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}},
            }
        ],
    }
    spec: dict[str, Any] = {
        "completionMode": "Indexed",
        "completions": PODS,
        "parallelism": PODS,
        "backoffLimit": 1,
        "activeDeadlineSeconds": timeout_minutes * 60,
        "template": {"metadata": {"labels": {"gpukit.dev/verify-gang": "true"}}, "spec": pod_spec},
    }
    # No ttlSecondsAfterFinished: Pulumi owns the Job, and a TTL would delete it under the stack.
    digest = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:8]
    name = f"gang-{pool.name}-{digest}"
    env = pod_spec["containers"][0]["env"]
    env.append({"name": "JOB_NAME", "value": name})
    meta = _meta(name, NAMESPACE)
    meta["labels"][QUEUE_NAME_LABEL] = QUEUE
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": spec}

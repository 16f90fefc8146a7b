"""Kueue's objects for a cluster, as plain manifests (kueue.x-k8s.io/v1beta2, Kueue's storage version
since v0.16): one source of truth, the pools. Pure: the component applies exactly these, and the tests
validate them against the vendored CRDs (tests/reference/kueue-v0.19.2).

- A ResourceFlavor per GPU pool: the pool's own labels (gpukit.dev/pool, and the GPU model, so a pod
  that selects a model is only given a flavor of it), its taints, and the tolerations for them, which
  Kueue adds to the pods it admits there (and counts when it checks the taints: flavorassigner.go
  appends the flavor's tolerations to the pod's).
- A ClusterQueue per queue, its quotas in the units pods request, admitting only the queue's
  namespaces. Resources that any one pool offers together share a resource group (Kueue wants every
  flavor of a group to list the group's resources, so a pool lists 0 of those it lacks).
- A LocalQueue of the queue's name in each of its namespaces; the namespaces themselves.
- With `topologyAware`, one Topology (the substrate's levels) that every flavor names.
- WorkloadPriorityClasses; and where a pool's nodes come from a ProvisioningRequest, its AdmissionCheck
  and ProvisioningRequestConfig (variant.py says which class).
"""

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from gpukit.components.addons.batch.names import (
    EXISTING_NAMESPACES,
    PRIORITY_CLASS_LABEL,
    flavor_name,
)
from gpukit.components.addons.batch.queues import Queue, Quota
from gpukit.components.pools import GPU_MODEL_LABEL, POOL_LABEL, PoolFacts
from gpukit.components.spec import PriorityClassSpec

API_VERSION = "kueue.x-k8s.io/v1beta2"
MANAGED_LABEL = "app.kubernetes.io/managed-by"
MANAGED_BY = "gpukit"
PROVISIONING_CHECK = "gpukit-provisioning"
PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request"
TOPOLOGY = "gpukit-nodes"


def _meta(name: str, namespace: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "labels": {MANAGED_LABEL: MANAGED_BY}}
    if namespace is not None:
        meta["namespace"] = namespace
    return meta


def _flavor_spec(pool: PoolFacts, topology: str | None) -> dict[str, Any]:
    labels = {k: v for k, v in pool.labels.items() if k in (POOL_LABEL, GPU_MODEL_LABEL)}
    spec: dict[str, Any] = {"nodeLabels": labels}
    if pool.taints:
        spec["nodeTaints"] = [{"key": t.key, "value": t.value, "effect": t.effect} for t in pool.taints]
        spec["tolerations"] = [t.toleration() for t in pool.taints]
    if topology is not None:
        spec["topologyName"] = topology
    return spec


def pool_flavor_name(pool: PoolFacts, topology: str | None = None) -> str:
    """`pool-<pool>`; with a Topology, also a hash of the flavor's spec: Kueue's API refuses any change
    to a TAS flavor's node labels, tolerations or topology (the CRD's validation rules), so a changed one
    is a new flavor, which the queues switch to before the old one goes (its in-use finalizer would hold
    a flavor deleted first)."""
    if topology is None:
        return flavor_name(pool.name)
    spec = json.dumps(_flavor_spec(pool, topology), sort_keys=True)
    return f"{flavor_name(pool.name)}-{hashlib.sha256(spec.encode()).hexdigest()[:8]}"


def flavor_names(pools: Sequence[PoolFacts], topology: str | None = None) -> dict[str, str]:
    """Each GPU pool's flavor name, by pool name: what the queues reference."""
    return {p.name: pool_flavor_name(p, topology) for p in pools if p.is_gpu}


def resource_flavor(pool: PoolFacts, topology: str | None = None) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "ResourceFlavor",
        "metadata": _meta(pool_flavor_name(pool, topology)),
        "spec": _flavor_spec(pool, topology),
    }


def topology_object(levels: Sequence[str]) -> dict[str, Any]:
    """The Kueue Topology the flavors reference: `levels` node labels, coarse to fine."""
    return {
        "apiVersion": API_VERSION,
        "kind": "Topology",
        "metadata": _meta(TOPOLOGY),
        "spec": {"levels": [{"nodeLabel": label} for label in levels]},
    }


def resource_groups(quotas: Sequence[Quota]) -> list[list[str]]:
    """The queue's resources, grouped so that resources some pool offers together share a group (each
    group sorted, groups in the order their first resource is quoted)."""
    groups: list[set[str]] = []
    by_pool: dict[str, set[str]] = {}
    for quota in quotas:
        by_pool.setdefault(quota.pool, set()).add(quota.resource)
    order = list(dict.fromkeys(q.resource for q in quotas))
    for resources in by_pool.values():
        joined = set(resources)
        for group in [g for g in groups if g & resources]:
            joined |= group
            groups.remove(group)
        groups.append(joined)
    return sorted((sorted(g) for g in groups), key=lambda g: min(order.index(r) for r in g))


def _flavor_resources(pool: str, group: Sequence[str], quotas: Sequence[Quota]) -> list[dict[str, Any]]:
    out = []
    for resource in group:
        quota = next((q for q in quotas if q.pool == pool and q.resource == resource), None)
        entry: dict[str, Any] = {"name": resource, "nominalQuota": quota.count if quota else 0}
        if quota is not None and quota.borrowing_limit is not None:
            entry["borrowingLimit"] = quota.borrowing_limit
        out.append(entry)
    return out


def cluster_queue(
    queue: Queue,
    checked_pools: Sequence[str] = (),
    preempt: bool = False,
    flavors: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The queue's ClusterQueue. `checked_pools`: pools whose flavors wait for a ProvisioningRequest;
    `preempt`: priority classes exist, so higher ones may preempt lower within the queue; `flavors`:
    each pool's flavor name (flavor_names; default `pool-<pool>`)."""
    names = flavors or {}

    def flavor(pool: str) -> str:
        return names.get(pool, flavor_name(pool))

    groups = []
    for group in resource_groups(queue.quotas):
        pools = list(dict.fromkeys(q.pool for q in queue.quotas if q.resource in group))
        groups.append(
            {
                "coveredResources": group,
                "flavors": [
                    {"name": flavor(p), "resources": _flavor_resources(p, group, queue.quotas)} for p in pools
                ],
            }
        )
    spec: dict[str, Any] = {
        "namespaceSelector": {
            "matchExpressions": [
                {"key": "kubernetes.io/metadata.name", "operator": "In", "values": list(queue.namespaces)}
            ]
        },
        "resourceGroups": groups,
        # StrictFIFO holds everything behind a gang that waits for nodes; BestEffortFIFO lets smaller
        # workloads that fit go first, which keeps GPUs busy while a gang waits.
        "queueingStrategy": "BestEffortFIFO",
    }
    if queue.cohort is not None:
        spec["cohortName"] = queue.cohort
    preemption: dict[str, Any] = {}
    if queue.cohort is not None:
        # A queue gets back what it lent: borrowed workloads are preempted when their lender needs quota.
        preemption["reclaimWithinCohort"] = "Any"
    if preempt:
        preemption["withinClusterQueue"] = "LowerPriority"
    if preemption:
        spec["preemption"] = preemption
    checked = [flavor(p) for p in dict.fromkeys(checked_pools) if any(q.pool == p for q in queue.quotas)]
    if checked:
        spec["admissionChecksStrategy"] = {
            "admissionChecks": [{"name": PROVISIONING_CHECK, "onFlavors": checked}]
        }
    return {"apiVersion": API_VERSION, "kind": "ClusterQueue", "metadata": _meta(queue.name), "spec": spec}


def local_queue(queue: Queue, namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "LocalQueue",
        "metadata": _meta(queue.name, namespace),
        "spec": {"clusterQueue": queue.name},
    }


def team_namespaces(queues: Sequence[Queue]) -> list[dict[str, Any]]:
    """The namespaces the queues name that gpukit creates (not `default`), once each. Pod Security
    `baseline` is enforced (no host namespaces, no privileged pods: training needs neither) and
    `restricted` warned."""
    names = dict.fromkeys(n for q in queues for n in q.namespaces if n not in EXISTING_NAMESPACES)
    return [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {
                "name": name,
                "labels": {
                    MANAGED_LABEL: MANAGED_BY,
                    "pod-security.kubernetes.io/enforce": "baseline",
                    "pod-security.kubernetes.io/warn": "restricted",
                },
            },
        }
        for name in names
    ]


def priority_class(spec: PriorityClassSpec) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "WorkloadPriorityClass",
        "metadata": _meta(spec["name"]),
        "value": spec["value"],
        "description": f"gpukit: jobs labelled {PRIORITY_CLASS_LABEL}={spec['name']}",
    }


def provisioning_objects(provisioning_class: str, managed: Sequence[str]) -> list[dict[str, Any]]:
    """The AdmissionCheck that makes Kueue ask the autoscaler for a gang's nodes all at once (a
    ProvisioningRequest of `provisioning_class`) before it admits the gang, and its config."""
    config = {
        "apiVersion": API_VERSION,
        "kind": "ProvisioningRequestConfig",
        "metadata": _meta(PROVISIONING_CHECK),
        "spec": {"provisioningClassName": provisioning_class, "managedResources": list(managed)},
    }
    check = {
        "apiVersion": API_VERSION,
        "kind": "AdmissionCheck",
        "metadata": _meta(PROVISIONING_CHECK),
        "spec": {
            "controllerName": PROVISIONING_CONTROLLER,
            "parameters": {
                "apiGroup": "kueue.x-k8s.io",
                "kind": "ProvisioningRequestConfig",
                "name": PROVISIONING_CHECK,
            },
        },
    }
    return [config, check]

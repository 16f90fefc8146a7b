"""The batch section of the plan report and of plan.json: the queues, their quotas in pod-request units
and the pools each can use, gang admission, the training operator, and how a gang gets its nodes."""

from typing import Any

from gpukit.components.addons.batch.charts import JOBSET, KUEUE, TRAINER
from gpukit.components.addons.batch.names import QUEUE_NAME_LABEL
from gpukit.components.addons.batch.objects import TOPOLOGY
from gpukit.components.addons.batch.queues import Queue
from gpukit.components.addons.batch.settings import BatchSettings

REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-required-topology"


def report_lines(settings: BatchSettings) -> list[str]:
    lines = ["", f"Batch (Kueue {KUEUE.version}):"]
    serial = "; nothing else admitted while a gang waits" if settings.block_admission else ""
    lines.append(
        f"  gang admission: all pods running within {settings.gang_timeout_minutes} min, else evicted and "
        f"requeued{serial}"
    )
    trainer = (
        f"Kubeflow Trainer {TRAINER.version} with JobSet {JOBSET.version}" if settings.trainer else "off"
    )
    lines.append(f"  training operator: {trainer}")
    if settings.trainer:
        runtimes = ", ".join(settings.runtimes) or "none (no pool of whole GPUs)"
        lines.append(f"  training runtimes (ClusterTrainingRuntime): {runtimes}")
    lines.append(
        f"  quotas bind the jobs that name a queue (label {QUEUE_NAME_LABEL}); GPU pods that name none are "
        "not limited by them"
    )
    capacity = settings.capacity
    if capacity.queued_pools:
        lines.append(
            f"  how gangs get nodes on queued pools ({', '.join(capacity.queued_pools)}; ProvisioningRequest "
            f"class {capacity.provisioning_class}): {capacity.queued_how}"
        )
        lines.append(f"  how gangs get nodes on the other pools: {capacity.how}")
    else:
        lines.append(f"  how gangs get nodes: {capacity.how}")
    if settings.topology_levels:
        lines.append(
            f"  topology-aware scheduling: Topology {TOPOLOGY} ({' > '.join(settings.topology_levels)}) on "
            "every GPU pool; a job asks for one domain with the pod-template annotation "
            f"{REQUIRED_TOPOLOGY}: <level>"
        )
    for queue in settings.queues:
        lines += _queue_lines(queue)
    return lines


def _queue_lines(queue: Queue) -> list[str]:
    extra = [f"cohort {queue.cohort}"] if queue.cohort else []
    if queue.priority_class:
        extra.append(f"priority class {queue.priority_class}")
    about = "; ".join([f"namespaces: {', '.join(queue.namespaces)}", *extra])
    lines = [f"  queue {queue.name} ({about}):"]
    for quota in queue.quotas:
        if quota.count == 0 and queue.cohort is None:
            continue  # covered so that it costs quota (queues.covering), and none is given
        if queue.cohort is None:
            borrow = ""
        elif quota.borrowing_limit is None:
            borrow = f", borrows what cohort {queue.cohort} leaves unused, without limit"
        else:
            borrow = f", borrows at most {quota.borrowing_limit} that cohort {queue.cohort} leaves unused"
        over = " (more than the pool can ever have)" if quota.count > quota.capacity else ""
        of = f"of {quota.capacity} at max nodes"
        lines.append(f"    pool {quota.pool}: {quota.count} {quota.resource} {of}{borrow}{over}")
    return lines


def document(settings: BatchSettings) -> dict[str, Any]:
    return {
        "batch": {
            "kueue": KUEUE.version,
            "gangScheduling": {
                "timeoutMinutes": settings.gang_timeout_minutes,
                "blockAdmission": settings.block_admission,
            },
            "trainingOperator": {"trainer": TRAINER.version, "jobset": JOBSET.version}
            if settings.trainer
            else None,
            "gangCapacity": settings.capacity.how,
            "queuedProvisioning": {
                "pools": list(settings.capacity.queued_pools),
                "provisioningClass": settings.capacity.provisioning_class,
                "how": settings.capacity.queued_how or None,
            },
            "topology": {"name": TOPOLOGY, "levels": list(settings.topology_levels)}
            if settings.topology_levels
            else None,
            "queues": [
                {
                    "name": q.name,
                    "namespaces": list(q.namespaces),
                    "cohort": q.cohort,
                    "priorityClass": q.priority_class,
                    "quotas": [
                        {
                            "pool": x.pool,
                            "resource": x.resource,
                            "count": x.count,
                            "capacityAtMax": x.capacity,
                            "borrowingLimit": x.borrowing_limit,
                        }
                        for x in q.quotas
                    ],
                }
                for q in settings.queues
            ],
        }
    }

"""BatchScheduling: Kueue (pinned chart) with the cluster's flavors, queues and priority classes, Kubeflow
Trainer v2 with JobSet and a PyTorch runtime per GPU pool, and, where the stack verifies, the gang check
that `pulumi up` waits for. Every object is rendered by the pure modules beside this one; this file only
applies them in order: a CRD's objects after the release that installs the CRD (and its webhook)."""

from typing import Any, NotRequired, Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from gpukit.components.addons.batch.charts import KUEUE, TRAINER, Chart
from gpukit.components.addons.batch.gang_check import gang_job, gang_pools, gang_queue_objects, gang_service
from gpukit.components.addons.batch.names import KUEUE_NAMESPACE, TRAINER_NAMESPACE
from gpukit.components.addons.batch.objects import (
    TOPOLOGY,
    cluster_queue,
    flavor_names,
    local_queue,
    priority_class,
    provisioning_objects,
    resource_flavor,
    team_namespaces,
    topology_object,
)
from gpukit.components.addons.batch.runtimes import runtime_pools, torch_runtime
from gpukit.components.addons.batch.settings import batch_settings
from gpukit.components.addons.batch.values import kueue_values, trainer_values
from gpukit.components.awaited_jobs import await_timeouts, awaited_metadata
from gpukit.components.config.schema import VERIFICATION_TIMEOUT_DEFAULT
from gpukit.components.custom_objects import custom_object
from gpukit.components.pools import POOL_LABEL, tolerations_for
from gpukit.components.substrate import ResolvedCluster

TYPE_TOKEN = "gpukit:index:BatchScheduling"
RELEASE_TIMEOUT_SECONDS = 600


class BatchSchedulingArgs(TypedDict):
    kueue_values: dict[str, Any]
    trainer_values: NotRequired[dict[str, Any]]
    """Absent: no training operator."""
    namespaces: list[dict[str, Any]]
    """The team namespaces gpukit creates."""
    kueue_objects: list[dict[str, Any]]
    """Flavors, priority classes, admission checks, then ClusterQueues: cluster-scoped, in apply order."""
    local_queues: list[dict[str, Any]]
    runtimes: list[dict[str, Any]]
    gang_check: NotRequired[list[dict[str, Any]]]
    """Namespace, ClusterQueue, LocalQueue, Service: the gang verification's queue."""
    gang_jobs: NotRequired[list[dict[str, Any]]]
    """Its Jobs, one per pool it runs on (gang_check.gang_pools)."""
    gang_timeout_minutes: NotRequired[int]


def batch_args(cluster: ResolvedCluster) -> BatchSchedulingArgs:
    """The component's args for a cluster, every object rendered by the pure modules."""
    settings = batch_settings(cluster)
    system = tolerations_for([p for p in cluster.pools if not p.is_gpu])
    capacity = settings.capacity
    topology = TOPOLOGY if settings.topology_levels else None
    flavors = flavor_names(cluster.gpu_pools, topology)
    objects = [topology_object(settings.topology_levels)] if topology else []
    objects += [resource_flavor(p, topology) for p in cluster.gpu_pools]
    objects += [priority_class(c) for c in settings.priority_classes]
    if capacity.provisioning_class and capacity.queued_pools:
        queued = [p for p in cluster.gpu_pools if p.name in capacity.queued_pools]
        managed = sorted({r for p in queued for r in p.advertised_resources})
        objects += provisioning_objects(capacity.provisioning_class, managed)
    objects += [
        cluster_queue(q, capacity.queued_pools, preempt=bool(settings.priority_classes), flavors=flavors)
        for q in settings.queues
    ]
    args: BatchSchedulingArgs = {
        "kueue_values": kueue_values(
            settings.gang_timeout_minutes,
            settings.block_admission,
            settings.trainer,
            system,
            provisioning_requests=bool(capacity.queued_pools),
        ),
        "namespaces": team_namespaces(settings.queues),
        "kueue_objects": objects,
        "local_queues": [local_queue(q, n) for q in settings.queues for n in q.namespaces],
        "runtimes": [torch_runtime(p) for p in runtime_pools(cluster.gpu_pools)] if settings.trainer else [],
    }
    if settings.trainer:
        args["trainer_values"] = trainer_values(system)
    verification = cluster.args.get("verification", {})
    pools = gang_pools(cluster.pools)
    if verification.get("enabled", False) and pools:
        timeout = verification.get("timeout_minutes", VERIFICATION_TIMEOUT_DEFAULT)
        args["gang_check"] = [*gang_queue_objects(pools, flavors), gang_service()]
        args["gang_jobs"] = [gang_job(p, timeout) for p in pools]
        args["gang_timeout_minutes"] = timeout
    return args


def _release(
    name: str,
    *,
    chart: Chart,
    namespace: str,
    values: dict[str, Any],
    parent: pulumi.Resource,
    depends_on: list[pulumi.Resource],
) -> k8s.helm.v3.Release:
    return k8s.helm.v3.Release(
        name,
        name=chart.name,
        chart=chart.reference,
        version=chart.version,
        namespace=namespace,
        create_namespace=True,
        values=values,
        timeout=RELEASE_TIMEOUT_SECONDS,
        opts=pulumi.ResourceOptions(parent=parent, depends_on=depends_on),
    )


class BatchScheduling(pulumi.ComponentResource):
    """Pass the cluster's Kubernetes provider through `opts.providers`; `opts.depends_on` is what the
    releases wait for (the system pools, or the GPU Operator)."""

    kueue_release: pulumi.Output[str | None]
    namespaces: dict[str, k8s.core.v1.Namespace]
    """The team namespaces, by name: workloads run there (the storage add-on's egress policy goes in)."""

    def __init__(self, name: str, args: BatchSchedulingArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        waits = list(opts.depends_on) if opts and isinstance(opts.depends_on, list) else []
        kueue = _release(
            f"{name}-kueue",
            chart=KUEUE,
            namespace=KUEUE_NAMESPACE,
            values=args["kueue_values"],
            parent=self,
            depends_on=waits,
        )
        after_kueue = pulumi.ResourceOptions(parent=self, depends_on=[kueue])
        namespaces = {
            # Retained: dropping a queue, or batch, must not delete a team's workloads and volumes.
            n["metadata"]["name"]: k8s.core.v1.Namespace(
                f"{name}-ns-{n['metadata']['name']}",
                metadata=n["metadata"],
                opts=pulumi.ResourceOptions(parent=self, retain_on_delete=True),
            )
            for n in args["namespaces"]
        }
        self.namespaces = namespaces
        cluster_objects = [
            custom_object(f"{name}-{m['kind'].lower()}-{m['metadata']['name']}", m, after_kueue)
            for m in args["kueue_objects"]
        ]
        for queue in args["local_queues"]:
            meta = queue["metadata"]
            owner = [namespaces[meta["namespace"]]] if meta["namespace"] in namespaces else []
            custom_object(
                f"{name}-localqueue-{meta['namespace']}-{meta['name']}",
                queue,
                pulumi.ResourceOptions(parent=self, depends_on=[kueue, *cluster_objects, *owner]),
            )
        if "trainer_values" in args:
            trainer = _release(
                f"{name}-trainer",
                chart=TRAINER,
                namespace=TRAINER_NAMESPACE,
                values=args["trainer_values"],
                parent=self,
                depends_on=waits,
            )
            for runtime in args["runtimes"]:
                custom_object(
                    f"{name}-runtime-{runtime['metadata']['name']}",
                    runtime,
                    pulumi.ResourceOptions(parent=self, depends_on=[trainer]),
                )
        if "gang_check" in args:
            self._gang_check(name, args, [kueue, *cluster_objects])
        self.kueue_release = kueue.name
        self.register_outputs({"kueue_release": self.kueue_release})

    def _gang_check(self, name: str, args: BatchSchedulingArgs, kueue: list[pulumi.Resource]) -> None:
        namespace_m, cq_m, lq_m, service_m = args["gang_check"]
        namespace = k8s.core.v1.Namespace(
            f"{name}-gang-namespace",
            metadata=namespace_m["metadata"],
            opts=pulumi.ResourceOptions(parent=self),
        )
        cq = custom_object(
            f"{name}-gang-clusterqueue", cq_m, pulumi.ResourceOptions(parent=self, depends_on=kueue)
        )
        lq = custom_object(
            f"{name}-gang-localqueue", lq_m, pulumi.ResourceOptions(parent=self, depends_on=[cq, namespace])
        )
        service = k8s.core.v1.Service(
            f"{name}-gang-service",
            metadata=service_m["metadata"],
            spec=service_m["spec"],
            opts=pulumi.ResourceOptions(parent=self, depends_on=[namespace]),
        )
        deadline = args.get("gang_timeout_minutes", VERIFICATION_TIMEOUT_DEFAULT)
        for i, job_m in enumerate(args.get("gang_jobs", [])):
            pool = job_m["spec"]["template"]["spec"]["nodeSelector"][POOL_LABEL]
            metadata: Any = awaited_metadata(job_m["metadata"], deadline)
            k8s.batch.v1.Job(
                # The first keeps the name the single gang Job had, so existing stacks see no change.
                f"{name}-gang-job" if i == 0 else f"{name}-gang-job-{pool}",
                metadata=metadata,
                spec=job_m["spec"],
                opts=pulumi.ResourceOptions(
                    parent=self,
                    depends_on=[lq, service],
                    custom_timeouts=await_timeouts(deadline),
                    # Kueue suspends the Job on creation and resumes it on admission: `suspend` is Kueue's.
                    # (The node labels and tolerations it adds never reach these inputs: ignoring them
                    # would carry an old pool's selector into a replacement Job.)
                    ignore_changes=["spec.suspend"],
                ),
            )

"""The batch add-on's pure parts: queues resolved in pod-request units, Kueue's objects against the
vendored CRDs, and the Helm values against the pinned charts' values.yaml."""

from dataclasses import replace
from typing import Any

import jsonschema
import pytest
import yaml
from crd_schemas import JOBSET as JOBSET_REFERENCE
from crd_schemas import KUEUE as KUEUE_REFERENCE
from crd_schemas import TRAINER as TRAINER_REFERENCE
from crd_schemas import chart_values, validate

from gpukit.components.addons.batch import gang_check, names
from gpukit.components.addons.batch.charts import JOBSET, KUEUE, TRAINER
from gpukit.components.addons.batch.objects import (
    TOPOLOGY,
    cluster_queue,
    local_queue,
    pool_flavor_name,
    priority_class,
    provisioning_objects,
    resource_flavor,
    resource_groups,
    team_namespaces,
    topology_object,
)
from gpukit.components.addons.batch.queues import Quota, planned_queues, split
from gpukit.components.addons.batch.runtimes import runtime_pools, torch_runtime
from gpukit.components.addons.batch.values import kueue_configuration, kueue_values, trainer_values
from gpukit.components.addons.gpu_operator.values import NAMESPACE as GPU_OPERATOR_NAMESPACE
from gpukit.components.addons.verification import jobs
from gpukit.components.addons.verification.checks import SAMPLE_IMAGE
from gpukit.components.pools import Taint
from gpukit.components.resolve.config import resolve_config
from harness import eks_config, unknown_values

MIXED_H100 = {
    "name": "h100",
    "instanceType": "p5.48xlarge",
    "minNodes": 0,
    "maxNodes": 2,
    "zones": ["usw2-az3"],
    "sharing": {"mode": "mig", "mig": {"layout": {"3g.40gb": 1, "1g.10gb": 4}, "strategy": "mixed"}},
}
TIME_SLICED_L4 = {
    "name": "l4s",
    "instanceType": "g6.xlarge",
    "minNodes": 0,
    "maxNodes": 4,
    "zones": ["usw2-az1"],
    "sharing": {"mode": "time-slicing", "replicas": 4},
}


def resolved(batch: dict[str, Any], extra_pools: list[dict[str, Any]] | None = None) -> Any:
    config = eks_config(**{"gpukit:batch": {"enabled": True, **batch}})
    config["gpukit:nodePools"] += extra_pools or []
    return resolve_config(config)


def test_the_charts_are_pinned_to_the_vendored_versions() -> None:
    for chart, folder in ((KUEUE, KUEUE_REFERENCE), (TRAINER, TRAINER_REFERENCE)):
        meta = yaml.safe_load((folder / "Chart.yaml").read_text())
        assert (meta["name"], meta["version"]) == (chart.name, chart.version)
    trainer = yaml.safe_load((TRAINER_REFERENCE / "Chart.yaml").read_text())
    jobset = next(d for d in trainer["dependencies"] if d["name"] == "jobset")
    assert (jobset["version"], jobset["repository"]) == (JOBSET.version, JOBSET.repository)
    assert KUEUE.reference == "oci://registry.k8s.io/kueue/charts/kueue"


def test_every_helm_value_is_a_key_of_its_chart() -> None:
    tolerations = [{"key": "CriticalAddonsOnly", "operator": "Exists", "effect": "NoExecute"}]
    for queued in (False, True):
        values = kueue_values(30, True, True, tolerations, provisioning_requests=queued)
        assert unknown_values(values, chart_values(KUEUE_REFERENCE)) == []
    trainer = trainer_values(tolerations)
    jobset = {k: v for k, v in trainer["jobset"].items() if k != "install"}
    assert (
        unknown_values({k: v for k, v in trainer.items() if k != "jobset"}, chart_values(TRAINER_REFERENCE))
        == []
    )
    assert "install" in chart_values(TRAINER_REFERENCE)["jobset"]
    assert unknown_values(jobset, chart_values(JOBSET_REFERENCE)) == []
    # the check finds a key the chart lacks
    assert unknown_values({"controllerManager": {"tolerationz": []}}, chart_values(KUEUE_REFERENCE)) == [
        "controllerManager.tolerationz"
    ]


def test_kueue_configuration_keeps_the_charts_defaults_and_sets_the_gang_and_quota_policy() -> None:
    chart = yaml.safe_load(chart_values(KUEUE_REFERENCE)["managerConfig"]["controllerManagerConfigYaml"])
    ours = kueue_configuration(45, False, trainer=False)
    for key, value in chart.items():
        if key != "integrations":
            assert ours[key] == value, key
    assert ours["waitForPodsReady"]["timeout"] == "45m"
    assert ours["waitForPodsReady"]["blockAdmission"] is False
    assert ours["integrations"]["frameworks"] == ["batch/job"]
    with_trainer = kueue_configuration(30, True, trainer=True)["integrations"]["frameworks"]
    assert with_trainer == ["batch/job", "jobset.x-k8s.io/jobset", "trainer.kubeflow.org/trainjob"]
    assert set(with_trainer) <= set(chart["integrations"]["frameworks"])  # names Kueue knows
    assert ours["resources"] == {"quotaCheckStrategy": "IgnoreUndeclared"}
    rendered = kueue_values(45, False, False, [])["managerConfig"]["controllerManagerConfigYaml"]
    assert yaml.safe_load(rendered) == ours


def test_split_keeps_the_total_and_follows_capacity() -> None:
    assert split(10, [8, 2]) == [8, 2]
    assert split(5, [1, 1]) == [3, 2]  # ties to the earlier
    assert split(7, [0, 0, 0]) == [3, 2, 2]
    assert sum(split(13, [3, 5, 7])) == 13


def test_default_queue_is_every_gpu_pool_at_max_nodes_in_pod_request_units() -> None:
    cluster = resolved({}, [MIXED_H100, TIME_SLICED_L4])
    (queue,) = planned_queues(cluster.args, cluster.pools)
    assert (queue.name, queue.namespaces) == ("gpus", ("default",))  # not `default`: Kueue's catch-all name
    assert {(q.pool, q.resource, q.count) for q in queue.quotas} == {
        ("l4", "nvidia.com/gpu", 8),  # 1 GPU x 8 nodes
        ("h100", "nvidia.com/mig-3g.40gb", 16),  # 8 GPUs x 1 instance x 2 nodes
        ("h100", "nvidia.com/mig-1g.10gb", 64),  # 8 GPUs x 4 instances x 2 nodes
        ("l4s", "nvidia.com/gpu", 16),  # 1 GPU x 4 replicas x 4 nodes
    }


def test_every_queue_covers_every_gpu_resource_so_none_is_free() -> None:
    """Kueue ignores resources a ClusterQueue does not cover (quotaCheckStrategy IgnoreUndeclared): a queue
    quoting only l4 must hold 0 of every h100 MIG resource, or it could take any number of them."""
    cluster = resolved(
        {"queues": [{"name": "team", "namespaces": ["team"], "quotas": [{"pool": "l4", "count": 2}]}]},
        [MIXED_H100],
    )
    (queue,) = planned_queues(cluster.args, cluster.pools)
    covered = {
        (flavor["name"], r["name"]): r["nominalQuota"]
        for group in cluster_queue(queue)["spec"]["resourceGroups"]
        for flavor in group["flavors"]
        for r in flavor["resources"]
    }
    assert covered == {
        ("pool-l4", "nvidia.com/gpu"): 2,
        ("pool-h100", "nvidia.com/mig-1g.10gb"): 0,
        ("pool-h100", "nvidia.com/mig-3g.40gb"): 0,
    }


def test_a_model_quota_is_split_over_the_models_pools_by_capacity() -> None:
    cluster = resolved(
        {"queues": [{"name": "team", "namespaces": ["team"], "quotas": [{"gpuModel": "l4", "count": 12}]}]},
        [TIME_SLICED_L4],
    )
    (queue,) = planned_queues(cluster.args, cluster.pools)
    # l4: 8 units at max; l4s: 16 (time-sliced): 12 split 4 / 8
    assert [(q.pool, q.count, q.capacity) for q in queue.quotas] == [("l4", 4, 8), ("l4s", 8, 16)]


def test_flavor_is_the_pools_labels_taints_and_tolerations() -> None:
    cluster = resolved({})
    pool = cluster.pools[1]
    flavor = resource_flavor(pool)
    validate(flavor)
    assert flavor["metadata"]["name"] == "pool-l4"
    assert flavor["spec"]["nodeLabels"] == {"gpukit.dev/pool": "l4", "gpukit.dev/gpu-model": "L4"}
    assert flavor["spec"]["nodeTaints"] == [
        {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
    ]
    assert flavor["spec"]["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    ]
    assert all(pool.labels[k] == v for k, v in flavor["spec"]["nodeLabels"].items())


def test_resources_a_pool_offers_together_share_a_group_with_zero_where_a_pool_lacks_one() -> None:
    quotas = [
        Quota("a", "nvidia.com/mig-1g.10gb", 4),
        Quota("b", "nvidia.com/mig-3g.40gb", 2),
        Quota("b", "nvidia.com/mig-1g.10gb", 1),
        Quota("c", "nvidia.com/gpu", 3),
    ]
    assert resource_groups(quotas) == [
        ["nvidia.com/mig-1g.10gb", "nvidia.com/mig-3g.40gb"],
        ["nvidia.com/gpu"],
    ]
    cluster = resolved({}, [MIXED_H100])
    (queue,) = planned_queues(cluster.args, cluster.pools)
    cq = cluster_queue(queue)
    validate(cq)
    groups = cq["spec"]["resourceGroups"]
    # every flavor of a group lists every resource of the group (Kueue requires it)
    for group in groups:
        for flavor in group["flavors"]:
            assert [r["name"] for r in flavor["resources"]] == group["coveredResources"]


def test_cluster_queue_admits_only_its_namespaces_and_borrows_only_in_a_cohort() -> None:
    cluster = resolved(
        {
            "priorityClasses": [{"name": "high", "value": 100}],
            "queues": [
                {
                    "name": "research",
                    "namespaces": ["research", "default"],
                    "cohort": "gpus",
                    "priorityClass": "high",
                    "quotas": [{"pool": "l4", "count": 4, "borrowingLimit": 2}],
                }
            ],
        }
    )
    (queue,) = planned_queues(cluster.args, cluster.pools)
    cq = cluster_queue(queue, preempt=True)
    validate(cq)
    assert cq["spec"]["cohortName"] == "gpus"
    assert cq["spec"]["namespaceSelector"]["matchExpressions"][0]["values"] == ["research", "default"]
    assert cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"] == [
        {"name": "nvidia.com/gpu", "nominalQuota": 4, "borrowingLimit": 2}
    ]
    assert cq["spec"]["preemption"] == {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"}
    for namespace in queue.namespaces:
        validate(local_queue(queue, namespace))
    assert [n["metadata"]["name"] for n in team_namespaces([queue])] == ["research"]  # default exists
    pc = priority_class({"name": "high", "value": 100})
    validate(pc)
    assert pc["value"] == 100


def test_provisioning_check_objects_validate() -> None:
    for manifest in provisioning_objects("queued-provisioning.gke.io", ["nvidia.com/gpu"]):
        validate(manifest)
    cluster = resolved({})
    (queue,) = planned_queues(cluster.args, cluster.pools)
    cq = cluster_queue(queue, checked_pools=["l4"])
    validate(cq)
    assert cq["spec"]["admissionChecksStrategy"]["admissionChecks"] == [
        {"name": "gpukit-provisioning", "onFlavors": ["pool-l4"]}
    ]


def test_the_crd_check_refuses_a_field_kueue_does_not_have() -> None:
    cluster = resolved({})
    (queue,) = planned_queues(cluster.args, cluster.pools)
    cq = cluster_queue(queue)
    cq["spec"]["cohort"] = "v1beta1-spelling"  # renamed cohortName in v1beta2
    with pytest.raises(jsonschema.ValidationError):
        validate(cq)


def test_torch_runtime_pins_the_pool_and_requests_a_nodes_gpus() -> None:
    cluster = resolved({}, [TIME_SLICED_L4, MIXED_H100])
    # shared pools get none: a time-sliced pod may not take more than one unit, nor a process MIG slices
    assert [p.name for p in runtime_pools(cluster.pools)] == ["l4"]
    runtime = torch_runtime(cluster.pools[1])
    validate(runtime)
    pod = runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"gpukit.dev/pool": "l4"}
    assert pod["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    assert pod["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "1"}
    upstream = yaml.safe_load((TRAINER_REFERENCE / "torch_distributed.yaml").read_text())
    node = upstream["spec"]["template"]["spec"]["replicatedJobs"][0]
    assert (
        pod["containers"][0]["image"]
        == node["template"]["spec"]["template"]["spec"]["containers"][0]["image"]
    )


def test_gang_check_objects_and_job() -> None:
    cluster = resolved({})
    pools = gang_check.gang_pools(cluster.pools)
    assert [p.name for p in pools] == ["l4"]
    pool = pools[0]
    for manifest in gang_check.gang_queue_objects(pools)[1:]:
        validate(manifest)
    job = gang_check.gang_job(pool, 20)
    assert job["metadata"]["labels"][names.QUEUE_NAME_LABEL] == gang_check.QUEUE
    assert (job["spec"]["parallelism"], job["spec"]["completions"]) == (2, 2)
    assert job["spec"]["completionMode"] == "Indexed"
    assert job["spec"]["template"]["spec"]["subdomain"] == gang_check.SERVICE


def test_constants_shared_with_other_addons_agree() -> None:
    assert gang_check.IMAGE == SAMPLE_IMAGE
    assert set(names.OTHER_GPUKIT_NAMESPACES) == {
        GPU_OPERATOR_NAMESPACE,
        jobs.NAMESPACE,
        jobs.HOST_IPC_NAMESPACE,
    }


def test_topology_aware_flavors_validate_and_are_renamed_when_they_change() -> None:
    """A TAS flavor's labels, tolerations and topology are immutable in Kueue's API (the CRD's rules),
    so its name carries a hash of them: a change is a new flavor, never an update the API refuses."""
    cluster = resolved({})
    pool = cluster.gpu_pools[0]
    validate(topology_object(("topology.kubernetes.io/zone", "kubernetes.io/hostname")))
    flavor = resource_flavor(pool, TOPOLOGY)
    validate(flavor)
    assert flavor["spec"]["topologyName"] == TOPOLOGY
    assert pool_flavor_name(pool) == "pool-l4" == resource_flavor(pool)["metadata"]["name"]
    assert flavor["metadata"]["name"].startswith("pool-l4-") and flavor["metadata"]["name"] != "pool-l4"
    tainted = replace(pool, taints=(*pool.taints, Taint("example.com/x", "y", "NoSchedule")))
    assert pool_flavor_name(tainted, TOPOLOGY) != pool_flavor_name(pool, TOPOLOGY)
    assert pool_flavor_name(replace(pool, max_nodes=pool.max_nodes + 1), TOPOLOGY) == pool_flavor_name(
        pool, TOPOLOGY
    )  # the quota lives in the queues, not in the flavor

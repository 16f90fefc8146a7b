"""The batch add-on under the mock engine (preview=False): what GpuCluster registers for eks-train's
queues, read back from the engine's record, and every object checked as the API server would
(kubernetes-validate --strict for built-in kinds, the vendored CRDs for Kueue's and Trainer's)."""

from typing import Any

import kubernetes_validate
import pytest
from crd_schemas import validate as validate_crd

from gpukit.program import build
from harness import Recording, eks_config, example_config, karpenter_eks_config, record

BATCH = "gpukit:index:BatchScheduling"
RELEASE = "kubernetes:helm.sh/v3:Release"
FLAVOR = "kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor"
CLUSTER_QUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"
LOCAL_QUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue"
RUNTIME = "kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntime"
JOB = "kubernetes:batch/v1:Job"


@pytest.fixture(scope="module")
def train() -> Recording:
    return record(lambda: build(example_config("eks-train")), region="us-east-1")


def _object(inputs: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in inputs.items() if not k.startswith("__")}


def test_kueue_and_trainer_releases_are_pinned_children_of_the_component(train: Recording) -> None:
    component = train.one(BATCH)
    assert train.parent_of(component) == train.one("gpukit:index:GpuCluster")
    releases = {r.inputs["name"]: r for r in train.of_type(RELEASE) if r.parent == component.urn}
    assert {n: (r.inputs["chart"], r.inputs["version"]) for n, r in releases.items()} == {
        "kueue": ("oci://registry.k8s.io/kueue/charts/kueue", "0.19.2"),
        "kubeflow-trainer": ("oci://ghcr.io/kubeflow/charts/kubeflow-trainer", "2.2.1"),
    }


def test_one_flavor_per_gpu_pool_with_its_labels_and_taints(train: Recording) -> None:
    flavors = {f.inputs["metadata"]["name"]: f.inputs["spec"] for f in train.of_type(FLAVOR)}
    assert sorted(flavors) == ["pool-h100", "pool-l4"]  # not the system pool
    assert flavors["pool-h100"]["nodeLabels"] == {"gpukit.dev/pool": "h100", "gpukit.dev/gpu-model": "H100"}
    for spec in flavors.values():
        assert spec["nodeTaints"] == [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]
        assert spec["tolerations"] == [
            {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
        ]


def test_cluster_queues_hold_the_stacks_quotas_in_pod_request_units(train: Recording) -> None:
    queues = {q.inputs["metadata"]["name"]: q.inputs["spec"] for q in train.of_type(CLUSTER_QUEUE)}
    assert set(queues) == {"research", "data", "gpukit-verify-gang"}
    quotas = {
        (flavor["name"], r["name"]): (r["nominalQuota"], r.get("borrowingLimit"))
        for group in queues["research"]["resourceGroups"]
        for flavor in group["flavors"]
        for r in flavor["resources"]
    }
    assert quotas == {
        ("pool-h100", "nvidia.com/mig-1g.10gb"): (16, 16),
        ("pool-h100", "nvidia.com/mig-3g.40gb"): (16, None),
        ("pool-l4", "nvidia.com/gpu"): (4, None),
        ("pool-h100", "nvidia.com/mig-2g.20gb"): (0, None),  # covered, so it is not free (IgnoreUndeclared)
    }
    assert queues["research"]["cohortName"] == queues["data"]["cohortName"] == "gpus"
    local = sorted(
        (q.inputs["metadata"]["namespace"], q.inputs["spec"]["clusterQueue"])
        for q in train.of_type(LOCAL_QUEUE)
    )
    assert local == [
        ("data-prep", "data"),
        ("gpukit-verify-gang", "gpukit-verify-gang"),
        ("rendering", "data"),
        ("research", "research"),
    ]


def test_every_rendered_object_validates(train: Recording) -> None:
    kueue_kinds = [
        FLAVOR,
        CLUSTER_QUEUE,
        LOCAL_QUEUE,
        RUNTIME,
        "kubernetes:kueue.x-k8s.io/v1beta2:WorkloadPriorityClass",
    ]
    checked = 0
    for token in kueue_kinds:
        for resource in train.of_type(token):
            validate_crd(_object(resource.inputs))
            checked += 1
    assert checked >= 11
    component = train.one(BATCH)
    for resource in train.resources:
        if (
            resource.parent != component.urn
            or not resource.type.startswith("kubernetes:")
            or "helm.sh" in resource.type
        ):
            continue
        group_version, kind = resource.type.split(":")[1:]
        if "." in group_version.split("/")[0] and group_version.split("/")[0] != "batch":
            continue  # CRD kinds, checked above
        manifest = {
            **_object(resource.inputs),
            "apiVersion": group_version.removeprefix("core/"),
            "kind": kind,
        }
        kubernetes_validate.validate(manifest, "1.35", strict=True)


def test_the_gang_check_waits_for_its_queue_and_the_gpu_stack(train: Recording) -> None:
    job = train.one(JOB, "eks-train-batch-gang-job")
    assert job.inputs["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "gpukit-verify-gang"
    spec = job.inputs["spec"]
    assert (spec["parallelism"], spec["completions"], spec["completionMode"]) == (2, 2, "Indexed")
    pod = spec["template"]["spec"]
    assert pod["nodeSelector"] == {"gpukit.dev/pool": "l4"}
    assert pod["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "1"}
    kueue = next(r for r in train.of_type(RELEASE) if r.inputs["name"] == "kueue")
    operator = next(r for r in train.of_type(RELEASE) if r.inputs["name"] == "gpu-operator")
    assert operator.urn in kueue.dependencies


def test_no_batch_without_the_switch_and_default_queue_with_only_it() -> None:
    plain = record(lambda: build(eks_config()))
    assert plain.of_type(BATCH) == []
    default = record(lambda: build(karpenter_eks_config(**{"gpukit:batch": {"enabled": True}})))
    (queue,) = default.of_type(CLUSTER_QUEUE)
    assert queue.inputs["metadata"]["name"] == "gpus"
    flavor = queue.inputs["spec"]["resourceGroups"][0]["flavors"][0]
    assert flavor["resources"] == [{"name": "nvidia.com/gpu", "nominalQuota": 8}]  # l4: 1 GPU x maxNodes 8
    assert [q.inputs["metadata"]["namespace"] for q in default.of_type(LOCAL_QUEUE)] == ["default"]
    assert not [
        r
        for r in default.of_type("kubernetes:core/v1:Namespace")
        if r.inputs["metadata"]["name"] == "default"
    ]


ADMISSION_CHECK = "kubernetes:kueue.x-k8s.io/v1beta2:AdmissionCheck"
PROVISIONING_CONFIG = "kubernetes:kueue.x-k8s.io/v1beta2:ProvisioningRequestConfig"
CRD = "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition"


def _queued(stack: str, pool: str) -> dict[str, Any]:
    config = example_config(stack)
    config["gpukit:batch"] = {"enabled": True}
    config["gpukit:verification"] = {"enabled": True}
    next(p for p in config["gpukit:nodePools"] if p["name"] == pool)["provisioning"] = "queued"
    return config


@pytest.fixture(scope="module")
def k3s_queued() -> Recording:
    return record(lambda: build(_queued("k3s-aws", "l4")), region="us-west-2")


def test_a_queued_pool_under_the_cluster_autoscaler_gets_its_provisioning_request_api(
    k3s_queued: Recording,
) -> None:
    """k3s on EC2 with a queued L4 pool: the ProvisioningRequest CRD (the vendored copy), then the
    autoscaler with the flags its FAQ names, and Kueue only after both (it looks for the API once, at
    start); the admission check asks for best-effort atomic scale-up on the queued pool's flavor."""
    (crd,) = k3s_queued.of_type(CRD)
    assert crd.inputs["metadata"]["name"] == "provisioningrequests.autoscaling.x-k8s.io"
    assert crd.retain_on_delete  # removing the last queued pool must not delete every request
    assert [v["name"] for v in crd.inputs["spec"]["versions"]] == ["v1", "v1beta1"]
    autoscaler = next(r for r in k3s_queued.of_type(RELEASE) if r.inputs["name"] == "cluster-autoscaler")
    assert crd.urn in autoscaler.dependencies
    args = autoscaler.inputs["values"]["extraArgs"]
    assert args["enable-provisioning-requests"] is True
    assert args["kube-api-content-type"] == "application/json"
    assert args["expander"]  # the shared flags stay
    assert autoscaler.inputs["values"]["rbac"]["additionalRules"] == [
        {"apiGroups": ["autoscaling.x-k8s.io"], "resources": ["provisioningrequests"], "verbs": ["delete"]}
    ]
    kueue = next(r for r in k3s_queued.of_type(RELEASE) if r.inputs["name"] == "kueue")
    assert {crd.urn, autoscaler.urn} <= set(kueue.dependencies)
    (config,) = k3s_queued.of_type(PROVISIONING_CONFIG)
    assert config.inputs["spec"] == {
        "provisioningClassName": "best-effort-atomic-scale-up.autoscaling.x-k8s.io",
        "managedResources": ["nvidia.com/gpu"],
    }
    (check,) = k3s_queued.of_type(ADMISSION_CHECK)
    assert check.inputs["spec"]["controllerName"] == "kueue.x-k8s.io/provisioning-request"
    queues = {q.inputs["metadata"]["name"]: q.inputs["spec"] for q in k3s_queued.of_type(CLUSTER_QUEUE)}
    for name in ("gpus", "gpukit-verify-gang"):
        assert queues[name]["admissionChecksStrategy"] == {
            "admissionChecks": [{"name": "gpukit-provisioning", "onFlavors": ["pool-l4"]}]
        }
    for manifest in (config, check):
        validate_crd(_object(manifest.inputs))
    # A pending pod still starts an Auto Scaling group's node: the per-pool check runs there too.
    assert any(r.inputs["metadata"]["name"].startswith("gpukit-verify-l4") for r in k3s_queued.of_type(JOB))


def test_no_provisioning_request_api_without_a_queued_pool() -> None:
    config = example_config("k3s-aws")
    config["gpukit:batch"] = {"enabled": True}
    plain = record(lambda: build(config), region="us-west-2")
    assert plain.of_type(CRD) == []
    autoscaler = next(r for r in plain.of_type(RELEASE) if r.inputs["name"] == "cluster-autoscaler")
    assert "enable-provisioning-requests" not in autoscaler.inputs["values"]["extraArgs"]
    assert plain.of_type(ADMISSION_CHECK) == [] and plain.of_type(PROVISIONING_CONFIG) == []


def test_a_gke_queued_pool_is_verified_through_kueue_not_by_a_plain_pod() -> None:
    """GKE's queued pool starts nodes only for ProvisioningRequests: no per-pool Job that would pend
    forever; the gang check runs there through the admission check (queued-provisioning.gke.io), and the
    flavor and the gang's pods tolerate the pool's gke-queued taint."""
    config = _queued("gke-train", "h100")
    recording = record(lambda: build(config), region="us-central1")
    jobs = {j.inputs["metadata"]["name"]: j.inputs for j in recording.of_type(JOB)}
    assert not [n for n in jobs if n.startswith("gpukit-verify-h100")]
    assert [n for n in jobs if n.startswith("gpukit-verify-l4")]  # the standard pool keeps its check
    gangs = {
        j["spec"]["template"]["spec"]["nodeSelector"]["gpukit.dev/pool"]: j
        for n, j in jobs.items()
        if n.startswith("gang-")
    }
    assert sorted(gangs) == ["h100", "l4"]
    queued_toleration = {"key": "cloud.google.com/gke-queued", "operator": "Exists", "effect": "NoSchedule"}
    assert queued_toleration in gangs["h100"]["spec"]["template"]["spec"]["tolerations"]
    (config_object,) = recording.of_type(PROVISIONING_CONFIG)
    assert config_object.inputs["spec"]["provisioningClassName"] == "queued-provisioning.gke.io"
    flavors = {f.inputs["metadata"]["name"]: f.inputs["spec"] for f in recording.of_type(FLAVOR)}
    assert queued_toleration in flavors["pool-h100"]["tolerations"]
    assert queued_toleration not in flavors["pool-l4"]["tolerations"]
    assert recording.of_type(CRD) == []  # GKE serves the ProvisioningRequest API itself


TOPOLOGY_KIND = "kubernetes:kueue.x-k8s.io/v1beta2:Topology"


def test_topology_aware_scheduling_on_own_hosts_and_on_gke() -> None:
    """Every GPU flavor names the one Topology, whose levels are labels every node of the substrate has
    (node only on k3s; zone, then node, on GKE), and the queues reference the flavors by their names."""
    hosts = example_config("k3s-ssh")
    hosts["gpukit:batch"] = {"enabled": True, "topologyAware": True}
    hosts["gpukit:sshPrivateKey"] = "not-a-real-key"
    gke = _queued("gke-train", "h100")
    gke["gpukit:batch"]["topologyAware"] = True
    l4 = next(p for p in gke["gpukit:nodePools"] if p["name"] == "l4")
    l4.update(minNodes=2, maxNodes=2)
    for config, secrets, levels in (
        (hosts, ["gpukit:sshPrivateKey"], ["kubernetes.io/hostname"]),
        (gke, [], ["topology.kubernetes.io/zone", "kubernetes.io/hostname"]),
    ):
        recording = record(lambda c=config, k=secrets: build(c, k), region="us-central1")
        (topology,) = recording.of_type(TOPOLOGY_KIND)
        assert [level["nodeLabel"] for level in topology.inputs["spec"]["levels"]] == levels
        validate_crd(_object(topology.inputs))
        flavors = {f.inputs["metadata"]["name"]: f.inputs["spec"] for f in recording.of_type(FLAVOR)}
        assert flavors and all(spec["topologyName"] == "gpukit-nodes" for spec in flavors.values())
        referenced = {
            flavor["name"]
            for queue in recording.of_type(CLUSTER_QUEUE)
            for group in queue.inputs["spec"]["resourceGroups"]
            for flavor in group["flavors"]
        }
        assert referenced == set(flavors)


def test_eks_on_the_cluster_autoscaler_serves_provisioning_requests_for_a_queued_pool() -> None:
    config = eks_config(**{"gpukit:batch": {"enabled": True}})
    next(p for p in config["gpukit:nodePools"] if p["name"] == "l4")["provisioning"] = "queued"
    recording = record(lambda: build(config))
    (crd,) = recording.of_type(CRD)
    autoscaler = next(r for r in recording.of_type(RELEASE) if r.inputs["name"] == "cluster-autoscaler")
    assert crd.urn in autoscaler.dependencies
    assert autoscaler.inputs["values"]["extraArgs"]["enable-provisioning-requests"] is True
    kueue = next(r for r in recording.of_type(RELEASE) if r.inputs["name"] == "kueue")
    assert {crd.urn, autoscaler.urn} <= set(kueue.dependencies)
    assert kueue.inputs["values"]["controllerManager"]["manager"]["podAnnotations"] == {
        "gpukit.dev/provisioning-requests": "true"
    }
    (config_object,) = recording.of_type(PROVISIONING_CONFIG)
    assert config_object.inputs["spec"]["provisioningClassName"] == (
        "best-effort-atomic-scale-up.autoscaling.x-k8s.io"
    )

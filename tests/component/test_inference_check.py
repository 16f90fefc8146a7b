"""The inference check under the mock engine (preview=False): what GpuCluster registers with
`gpukit:inference` and `gpukit:verification` on EKS, GKE and k3s on EC2, read back from the engine's record:
every object as the API server would take it, in the order `pulumi up` needs (after the serving stack
and the GPU verification), awaited, and wired to the Gateway's address where the check reaches it there
(GKE)."""

from typing import Any

import kubernetes_validate
import pytest
from crd_schemas import has_crd, validate

from gpukit.components.addons.inference.check_objects import CHECK_NAMESPACE
from gpukit.components.k3s.host_scripts import POD_CIDR
from gpukit.plan.fakes import _octet
from gpukit.program import build
from harness import Recording, eks_config, example_config, record

CHECK = "gpukit:index:InferenceVerification"
JOB = "kubernetes:batch/v1:Job"
GATEWAY = "kubernetes:gateway.networking.k8s.io/v1:Gateway"


def children(rec: Recording, token: str = CHECK) -> list[Any]:
    component = rec.one(token)
    return [r for r in rec.resources if r.parent == component.urn]


def manifest(inputs: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in inputs.items() if not k.startswith("__")}


@pytest.fixture(scope="module")
def eks() -> Recording:
    config = eks_config(**{"gpukit:inference": {"enabled": True}, "gpukit:verification": {"enabled": True}})
    return record(lambda: build(config))


@pytest.fixture(scope="module")
def gke() -> Recording:
    config = example_config("gke-dev")
    config["gpukit:verification"] = {"enabled": True}
    return record(lambda: build(config), region=config["gcp:region"], project=config["gcp:project"])


@pytest.mark.parametrize("which", ["eks", "gke"])
def test_every_object_of_the_check_is_one_the_api_server_takes(
    which: str, request: pytest.FixtureRequest
) -> None:
    rec: Recording = request.getfixturevalue(which)
    found = children(rec)
    kinds = sorted(r.inputs["kind"] for r in found)
    # GKE's example runs GKE's own GPU software (its managed DCGM): no witness there.
    deployments = 3 if which == "eks" else 2
    assert kinds.count("Job") == 1 and kinds.count("Deployment") == deployments
    assert kinds.count("ScaledObject") == deployments - 1
    assert ("HealthCheckPolicy" in kinds) is (which == "gke")
    for resource in found:
        obj = manifest(resource.inputs)
        assert obj["metadata"].get("namespace", CHECK_NAMESPACE) == CHECK_NAMESPACE
        if has_crd(obj):
            validate(obj)
        else:
            kubernetes_validate.validate(obj, "1.35", strict=True)


def test_the_check_waits_for_the_serving_stack_and_the_gpu_verification(eks: Recording) -> None:
    component = eks.one(CHECK)
    assert eks.parent_of(component) == eks.one("gpukit:index:GpuCluster")
    serving = eks.one("gpukit:index:InferenceServing")
    gpu_jobs = [r for r in eks.of_type(JOB) if r.parent == eks.one("gpukit:index:GpuVerification").urn]
    assert gpu_jobs
    namespace = next(r for r in children(eks) if r.inputs["kind"] == "Namespace")
    # Waiting for a component is waiting for each of its children (the engine lists those).
    assert {r.urn for r in children(eks, "gpukit:index:InferenceServing")} <= set(namespace.dependencies)
    assert serving.urn not in namespace.dependencies
    assert {job.urn for job in gpu_jobs} <= set(namespace.dependencies)
    # Its Jobs come after every fixture, and `pulumi up` waits for them past their own deadline.
    fixtures = [r for r in children(eks) if r.inputs["kind"] not in ("Job", "Namespace")]
    for job in (r for r in children(eks) if r.type == JOB):
        assert {f.urn for f in fixtures} <= set(job.dependencies)
        deadline = job.inputs["spec"]["activeDeadlineSeconds"]
        annotations = job.inputs["metadata"]["annotations"]
        assert int(annotations["pulumi.com/timeoutSeconds"]) == deadline + 120
        assert annotations["pulumi.com/replaceUnready"] == "true"
    # A ScaledObject after the Deployments it scales.
    deployments = {r.urn for r in children(eks) if r.inputs["kind"] == "Deployment"}
    for scaled in (r for r in children(eks) if r.inputs["kind"] == "ScaledObject"):
        assert deployments <= set(scaled.dependencies)


def test_the_gateway_is_awaited_until_programmed(eks: Recording, gke: Recording) -> None:
    for rec in (eks, gke):
        gateway = rec.one(GATEWAY)
        assert gateway.inputs["metadata"]["annotations"] == {"pulumi.com/waitFor": "condition=Programmed"}


def check_job(rec: Recording) -> Any:
    (job,) = [r for r in children(rec) if r.type == JOB and r.name.endswith("-check")]
    return job


def check_env(rec: Recording) -> dict[str, str]:
    job = check_job(rec)
    (job,) = [
        r
        for r in children(rec)
        if r.type == JOB and r.inputs["metadata"]["name"].startswith("inference-check-")
    ]
    (container,) = job.inputs["spec"]["template"]["spec"]["containers"]
    return {e["name"]: e.get("value", "") for e in container["env"]}


def test_eks_reaches_the_proxies_service_and_gke_the_gateways_own_address(
    eks: Recording, gke: Recording
) -> None:
    assert check_env(eks)["GATEWAY_HOST"] == (
        "envoy-gpukit-gateway-gpukit-inference-9c77e548.envoy-gateway-system.svc.cluster.local"
    )
    # GKE: the address the Gateway reports once Programmed, read from its status output (here the one
    # the mocks give that Gateway: the wiring from its status to the pod is what is under test).
    assert check_env(gke)["GATEWAY_HOST"] == f"192.0.2.{_octet(gke.one(GATEWAY).name)}"
    assert (
        gke.one(GATEWAY).urn
        in next(
            r for r in children(gke) if r.inputs["metadata"]["name"].startswith("inference-check-")
        ).dependencies
    )


def test_gke_scales_through_keda_identity_on_this_clusters_series(gke: Recording) -> None:
    cluster = example_config("gke-dev")["gpukit:cluster"]["name"]
    for scaled in (r for r in children(gke) if r.inputs["kind"] == "ScaledObject"):
        (trigger,) = scaled.inputs["spec"]["triggers"]
        assert trigger["authenticationRef"]["kind"] == "ClusterTriggerAuthentication"
        assert f'cluster="{cluster}"' in trigger["metadata"]["query"]
        assert trigger["metadata"]["serverAddress"].startswith(
            "https://monitoring.googleapis.com/v1/projects/"
        )


def test_k3s_on_ec2_checks_through_the_proxies_service_which_admits_its_pods() -> None:
    config = example_config("k3s-aws")
    config["gpukit:nodePools"].append(
        {"name": "cpu", "instanceType": "m7i.large", "minNodes": 1, "maxNodes": 2}
    )
    config["gpukit:inference"] = {"enabled": True}
    config["gpukit:verification"] = {"enabled": True}
    rec = record(lambda: build(config), region=config["aws:region"])
    assert check_env(rec)["GATEWAY_HOST"] == (
        "envoy-gpukit-gateway-gpukit-inference-9c77e548.envoy-gateway-system.svc.cluster.local"
    )
    # The node port's client policy admits the pod network the check's pod comes from.
    (policy,) = rec.of_type("kubernetes:gateway.envoyproxy.io/v1alpha1:SecurityPolicy")
    (rule,) = policy.inputs["spec"]["authorization"]["rules"]
    assert POD_CIDR in rule["principal"]["clientCIDRs"]
    # Its simulators stay off the servers.
    for deployment in (r for r in children(rec) if r.inputs["kind"] == "Deployment"):
        spec = deployment.inputs["spec"]["template"]["spec"]
        assert all(t["key"] != "CriticalAddonsOnly" for t in spec.get("tolerations", []))
        assert spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == {
            "nodeSelectorTerms": [
                {
                    "matchExpressions": [
                        {"key": "node-role.kubernetes.io/control-plane", "operator": "DoesNotExist"}
                    ]
                }
            ]
        }

"""The inference check's pure parts: its objects against the API server's schemas (built-ins strictly,
the Gateway API, KEDA and GKE policy objects against the vendored CRDs), what each one proves (the
ScaledObjects scale 1 -> 2 on what the simulators publish, the route's header rule), the hardening, the
names that re-run a changed check, and which steps a stack's check has."""

import copy
import hashlib
import math
from typing import Any

import kubernetes_validate
import pytest
from crd_schemas import has_crd, validate

from gpukit.components.addons.inference import check_objects as co
from gpukit.components.addons.inference.check_plan import check_plan, check_steps, holder_pool
from gpukit.components.addons.inference.gateway_names import GatewayTarget, envoy_proxy_service
from gpukit.components.addons.inference.names import IN_CLUSTER_PROMETHEUS_URL
from gpukit.components.addons.inference.scalers import QUEUE_THRESHOLD, Target, queue_scaled_object
from gpukit.components.addons.verification.addon import VERIFICATION
from gpukit.components.addons.verification.checks import SAMPLE_IMAGE
from gpukit.components.resolve.config import resolve_config
from gpukit.components.spec import SharingMode
from gpukit.providers.gcp.gke.inference_variant import gmp_query_url
from harness import eks_config, example_config

SYSTEM = ({"key": "CriticalAddonsOnly", "operator": "Exists", "effect": "NoSchedule"},)
L4 = co.HolderUnit(
    "l4",
    (("gpukit.dev/pool", "l4"),),
    (("nvidia.com/gpu", "Exists", "NoSchedule"),),
    "nvidia.com/gpu",
    SharingMode.NONE,
)
CPU_AGENTS = {"name": "cpu", "instanceType": "m7i.large", "minNodes": 1, "maxNodes": 2}
IN_CLUSTER = Target("x", "y", IN_CLUSTER_PROMETHEUS_URL, 2, authenticated=False)
MANAGED = Target("x", "y", gmp_query_url("acme"), 2, authenticated=True, cluster="gke-dev")
EG = GatewayTarget(f"{envoy_proxy_service()}.envoy-gateway-system.svc.cluster.local", 80)


def full(**changes: Any) -> co.CheckPlan:
    plan = co.CheckPlan(20, IN_CLUSTER, EG, False, L4, SYSTEM)
    return co.CheckPlan(**{**plan.__dict__, **changes})


def everything(check: co.InferenceCheck) -> list[dict[str, Any]]:
    return [check.namespace, *check.fixtures, *check.jobs]


def by_kind(check: co.InferenceCheck, kind: str) -> dict[str, dict[str, Any]]:
    """The check's objects of `kind` by their name without the check's hash (`sim-stable`)."""
    return {o["metadata"]["name"].rsplit("-", 1)[0]: o for o in everything(check) if o["kind"] == kind}


def digest(check: co.InferenceCheck) -> str:
    return str(check.check_job["metadata"]["name"]).rsplit("-", 1)[1]


@pytest.mark.parametrize(
    "plan",
    [
        full(),
        full(store=MANAGED, gateway=GatewayTarget("", 80), health_check_policies=True),
        full(gateway=None),
        full(store=None, holder=None),
        full(holder=None),
    ],
    ids=["eks-like", "gke-like", "no-gateway", "gateway-only", "no-dcgm"],
)
def test_every_object_validates(plan: co.CheckPlan) -> None:
    for obj in everything(co.inference_check(plan)):
        if has_crd(obj):
            validate(obj)
        else:
            kubernetes_validate.validate(obj, "1.35", strict=True)


def test_the_queue_scales_the_stable_simulator_from_one_to_two() -> None:
    check = co.inference_check(full())
    scaled = by_kind(check, "ScaledObject")
    stable = scaled[co.STABLE]
    name = f"{co.STABLE}-{digest(check)}"
    # The very ScaledObject a model server gets (docs/inference.md), on the check's Deployment.
    assert stable == queue_scaled_object(co._scaling(IN_CLUSTER, name))
    assert stable["spec"]["scaleTargetRef"] == {"name": name}
    assert stable["spec"]["minReplicaCount"] == 1 and stable["spec"]["maxReplicaCount"] == 2
    # The sum over an AverageValue target (KEDA: ceil(sum / threshold) replicas): one replica's fake
    # queue of 8 alone asks for the second.
    (trigger,) = stable["spec"]["triggers"]
    assert trigger["metricType"] == "AverageValue" and trigger["metadata"]["threshold"] == "5"
    assert trigger["metadata"]["query"].startswith("sum(vllm:num_requests_waiting{")
    assert co.FAKE_WAITING == 8 and math.ceil(co.FAKE_WAITING / QUEUE_THRESHOLD) == 2
    deployment = by_kind(check, "Deployment")[co.STABLE]
    assert "replicas" not in deployment["spec"]  # KEDA's, not Pulumi's
    args = deployment["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[args.index("--fake-metrics") + 1] == f'{{"waiting-requests":{co.FAKE_WAITING}}}'
    assert "--force-dummy-tokenizer" in args  # no call to huggingface.co before it serves
    # Scraped by the workload convention, so the store sees it as any model server.
    assert deployment["spec"]["template"]["metadata"]["labels"]["gpukit.dev/metrics"] == "true"
    trigger = stable["spec"]["triggers"][0]["metadata"]["query"]
    assert 'namespace="gpukit-verify-inference"' in trigger and "vllm:num_requests_waiting" in trigger


def test_the_witness_scales_on_the_check_pods_own_dcgm_series() -> None:
    check = co.inference_check(full())
    job = check.check_job["metadata"]["name"]
    witness = by_kind(check, "ScaledObject")[co.WITNESS]["spec"]["triggers"][0]
    assert witness["metadata"]["threshold"] == "1"
    assert witness["metadata"]["query"] == (
        "1 + (count(last_over_time(DCGM_FI_DEV_FB_USED"
        f'{{namespace="gpukit-verify-inference",pod=~"{job}-[a-z0-9]+"}}[30m])) > bool 0 or vector(0))'
    )
    # GKE's project-wide store: this cluster's series only, the holder's namespace where GKE keeps it,
    # and KEDA's identity.
    gke = {"store": MANAGED, "dcgm_namespace_label": "exported_namespace"}
    trigger = by_kind(co.inference_check(full(**gke)), "ScaledObject")[co.WITNESS]["spec"]["triggers"][0]
    assert (
        'DCGM_FI_DEV_FB_USED{cluster="gke-dev",exported_namespace="gpukit-verify-inference",'
        'pod=~"inference-check-' in trigger["metadata"]["query"]
    )
    assert trigger["authenticationRef"] == {
        "name": "gpukit-metrics-store",
        "kind": "ClusterTriggerAuthentication",
    }
    # A time-shared pool: a series naming a pod counts (the exporter may name one beside the check's),
    # never an unattributed one (the in-cluster store gives those the exporter's own namespace; GKE's
    # leaves the holder's label out) nor one of the GPU verification's pods, which ran there just before.
    sliced = co.HolderUnit(**{**L4.__dict__, "sharing": SharingMode.TIME_SLICING})
    for changes, matchers in (
        ({}, '{namespace!~"gpu-operator|gpukit-verify"}'),
        (gke, '{cluster="gke-dev",exported_namespace!~"|gpukit-verify"}'),
    ):
        shared = co.inference_check(full(holder=sliced, **changes))
        query = by_kind(shared, "ScaledObject")[co.WITNESS]["spec"]["triggers"][0]["metadata"]["query"]
        assert f"DCGM_FI_DEV_FB_USED{matchers}[30m]" in query
    # The check's own pod holds one unit of the pool, on that pool's nodes, with an image already there:
    # a retry (a new pod of the replaced Job) holds one again, and the series it waits for are new.
    spec = check.check_job["spec"]["template"]["spec"]
    assert spec["nodeSelector"] == {"gpukit.dev/pool": "l4"}
    assert spec["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    (container,) = spec["containers"]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == "1"
    assert container["image"] == SAMPLE_IMAGE
    # Without the DCGM step it runs on the pools without GPUs, off any control-plane node.
    cpu = co.inference_check(full(holder=None)).check_job["spec"]["template"]["spec"]
    assert "nodeSelector" not in cpu and cpu["tolerations"] == list(SYSTEM)
    assert cpu["containers"][0]["image"] == co.CHECK_IMAGE and "nvidia.com/gpu" not in str(cpu)
    assert cpu["affinity"] == co._off_control_plane()


def test_what_the_check_copies_of_the_gpu_verification_is_what_it_is() -> None:
    """An add-on imports no other: the image the GPU pod reuses, the GPU verification's namespace and
    the add-on it comes after are copies, held equal here."""
    from gpukit.components.addons.verification.jobs import NAMESPACE

    assert co.HOLDER_IMAGE == SAMPLE_IMAGE
    assert co.GPU_VERIFICATION_NAMESPACE == NAMESPACE
    assert co.VERIFICATION_ADDON == VERIFICATION


def test_the_route_sends_the_header_to_the_canary_and_nothing_but_the_model_list() -> None:
    route = by_kind(co.inference_check(full()), "HTTPRoute")[co.ROUTE]
    assert (
        route["spec"]["parentRefs"][0] | {"name": "gpukit-inference", "namespace": "gpukit-gateway"}
        == (route["spec"]["parentRefs"][0])
    )
    # Its own hostname only: the Gateway is shared, and the model servers' /v1/models stay theirs.
    assert route["spec"]["hostnames"] == ["gpukit-verify.invalid"]
    canary, stable = route["spec"]["rules"]
    assert canary["matches"] == [
        {
            "path": {"type": "Exact", "value": "/v1/models"},
            "headers": [{"type": "Exact", "name": "x-gpukit-verify", "value": "canary"}],
        }
    ]
    check = co.inference_check(full())
    assert canary["backendRefs"] == [{"name": f"{co.CANARY}-{digest(check)}", "port": 8000}]
    assert stable["matches"] == [{"path": {"type": "Exact", "value": "/v1/models"}}]
    assert stable["backendRefs"] == [{"name": f"{co.STABLE}-{digest(check)}", "port": 8000}]
    # The namespace may attach routes to gpukit's Gateway only where there is one.
    assert co.inference_check(full()).namespace["metadata"]["labels"]["gpukit.dev/gateway"] == "true"
    assert "gpukit.dev/gateway" not in co.inference_check(full(gateway=None)).namespace["metadata"]["labels"]


def test_gke_backends_are_health_checked_on_the_simulators_health_path() -> None:
    check = co.inference_check(full(store=MANAGED, gateway=GatewayTarget("", 80), health_check_policies=True))
    policies = by_kind(check, "HealthCheckPolicy")
    assert set(policies) == {co.STABLE, co.CANARY}
    for name, policy in policies.items():
        target = f"{name}-{digest(check)}"
        assert policy["spec"]["targetRef"] == {"group": "", "kind": "Service", "name": target}
        assert policy["spec"]["default"]["config"]["httpHealthCheck"] == {"requestPath": "/health"}
    assert "HealthCheckPolicy" not in {o["kind"] for o in co.inference_check(full()).fixtures}


def test_every_pod_is_hardened_and_the_namespace_enforces_restricted() -> None:
    check = co.inference_check(full())
    labels = check.namespace["metadata"]["labels"]
    assert labels["pod-security.kubernetes.io/enforce"] == "restricted"
    pods = [d["spec"]["template"]["spec"] for d in by_kind(check, "Deployment").values()]
    pods += [j["spec"]["template"]["spec"] for j in check.jobs]
    assert len(pods) == 4
    for pod in pods:
        assert pod["automountServiceAccountToken"] is False
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        for container in pod["containers"]:
            assert container["securityContext"] == {
                "allowPrivilegeEscalation": False,
                "capabilities": {"drop": ["ALL"]},
            }


def test_a_changed_check_gets_new_job_names_and_an_unchanged_one_keeps_them() -> None:
    first, again = co.inference_check(full()), co.inference_check(full())
    assert [j["metadata"]["name"] for j in first.jobs] == [j["metadata"]["name"] for j in again.jobs]
    longer = co.inference_check(full(timeout_minutes=30))
    assert {j["metadata"]["name"] for j in longer.jobs}.isdisjoint(j["metadata"]["name"] for j in first.jobs)
    # The check's script names its Job, whose pods the witness looks for.
    (job,) = (j["metadata"]["name"] for j in first.jobs)
    assert job == f"inference-check-{digest(first)}"
    script = job_script(first)
    assert f"CHECK_JOB={job}\n" in script
    assert (
        f"STABLE_PODS=sim-stable-{digest(first)}-pods.gpukit-verify-inference.svc.cluster.local\n" in script
    )
    # So do the Deployments KEDA scales: a changed check starts again from one replica (a Deployment
    # left at two would pass every later check), while the namespace and the route keep their names.
    for kind in ("Deployment", "ScaledObject", "Service"):
        old = {o["metadata"]["name"] for o in first.fixtures if o["kind"] == kind}
        new = {o["metadata"]["name"] for o in longer.fixtures if o["kind"] == kind}
        assert old and old.isdisjoint(new)
    assert by_kind(first, "HTTPRoute") and first.namespace == longer.namespace
    assert "WAIT_SECONDS=1140\n" in script  # the deadline, less the margin for the FAIL line


def job_script(check: co.InferenceCheck) -> str:
    command: list[str] = check.check_job["spec"]["template"]["spec"]["containers"][0]["command"]
    return command[2]


def test_steps_follow_what_the_stack_has() -> None:
    script = job_script(co.inference_check(full(store=None, holder=None)))
    assert "ROUTE=1\n" in script and "SCALING=''\n" in script and "DCGM=''\n" in script
    script = job_script(co.inference_check(full(gateway=None)))
    assert "ROUTE=''\n" in script and "SCALING=1\n" in script and "DCGM=1\n" in script
    # Without a gateway, no canary and no route; without the store, no ScaledObject.
    names = {o["metadata"]["name"].rsplit("-", 1)[0] for o in co.inference_check(full(gateway=None)).fixtures}
    assert co.CANARY not in names and co.ROUTE not in names
    kinds = {o["kind"] for o in co.inference_check(full(store=None, holder=None)).fixtures}
    assert "ScaledObject" not in kinds


def test_envoy_gateways_service_name_follows_its_hashing() -> None:
    assert envoy_proxy_service() == "envoy-gpukit-gateway-gpukit-inference-9c77e548"
    # Over 48 characters the key is cut there and one trailing '-' dropped; the hash is of the whole key.
    digest = hashlib.sha256(("a" * 47 + "/b").encode()).hexdigest()[:8]
    assert envoy_proxy_service("a" * 47, "b") == f"envoy-{'a' * 47}-{digest}"


def resolved(config: dict[str, Any]) -> Any:
    return resolve_config(config, set())


def test_a_stack_checks_only_where_it_verifies_and_says_what_is_left_out() -> None:
    config = eks_config(**{"gpukit:inference": {"enabled": True}})
    assert check_plan(resolved(config)) is None
    steps, skipped = check_steps(resolved(config))
    assert steps == [] and skipped == ["the whole check (gpukit:verification.enabled is false)"]
    config["gpukit:verification"] = {"enabled": True}
    plan = check_plan(resolved(config))
    assert plan is not None and plan.store is not None and plan.gateway == EG
    assert plan.holder is not None and plan.holder.pool == "l4"
    config["gpukit:inference"] = {"enabled": True, "autoscaling": {"enabled": False}}
    steps, skipped = check_steps(resolved(config))
    assert len(steps) == 1 and "Gateway" in steps[0]
    assert skipped == ["scaling on a custom metric (it needs both metrics and autoscaling)"]


def test_gke_checks_through_the_gateways_address_and_keda_identity() -> None:
    config = example_config("gke-dev")
    config["gpukit:verification"] = {"enabled": True}
    plan = check_plan(resolved(config))
    assert plan is not None and plan.gateway == GatewayTarget("", 80) and plan.health_check_policies
    assert plan.store is not None and plan.store.authenticated
    assert plan.store.cluster == config["gpukit:cluster"]["name"]
    assert plan.store.server_address == gmp_query_url(config["gcp:project"])


def test_the_holder_prefers_a_pool_whose_gpus_are_not_shared_by_time() -> None:
    config = eks_config(**{"gpukit:inference": {"enabled": True}, "gpukit:verification": {"enabled": True}})
    pools = config["gpukit:nodePools"]
    shared = copy.deepcopy(pools[1]) | {"name": "shared", "sharing": {"mode": "time-slicing", "replicas": 4}}
    pools.insert(1, shared)
    holder = holder_pool(resolved(config))
    assert holder is not None and holder.pool == "l4"


def test_the_witness_reads_the_namespace_label_each_store_keeps_for_the_gpus_holder() -> None:
    """The in-cluster store's DCGM monitor honours the exporter's labels (the holder's `namespace`);
    GKE's PodMonitoring sets `namespace` to the exporter's own, the holder's kept as
    `exported_namespace`: the check plan reads the one its store keeps."""
    from gpukit.components.addons.inference.monitors import in_cluster_monitors, managed_monitors

    exporter = in_cluster_monitors(True)[0]
    assert exporter["spec"]["podMetricsEndpoints"][0]["honorLabels"] is True
    gke_exporter = managed_monitors(True)[0]
    assert gke_exporter["kind"] == "PodMonitoring" and gke_exporter["metadata"]["namespace"] == "gpu-operator"
    assert gke_exporter["spec"]["targetLabels"] == {"metadata": []}
    eks = eks_config(**{"gpukit:inference": {"enabled": True}, "gpukit:verification": {"enabled": True}})
    plan = check_plan(resolved(eks))
    assert plan is not None and plan.dcgm_namespace_label == "namespace"
    gke = example_config("gke-dev")
    gke["gpukit:verification"] = {"enabled": True}
    plan = check_plan(resolved(gke))
    assert plan is not None and plan.dcgm_namespace_label == "exported_namespace"


def test_the_checks_pods_never_run_on_k3s_servers() -> None:
    own = example_config("k3s-ssh")  # a server and GPU hosts: nowhere for the check's pods
    own["gpukit:sshPrivateKey"] = "stand-in key"
    cluster = resolve_config(own, {"gpukit:sshPrivateKey"})
    assert check_plan(cluster) is None
    assert check_steps(cluster)[1] == [
        "the whole check (its pods need a node without GPUs that is not a k3s server, and this cluster "
        "has none)"
    ]
    assert "gpukit-verify-inference" not in cluster.system_namespaces
    config = example_config("k3s-aws")
    config["gpukit:nodePools"].append(dict(CPU_AGENTS))
    config["gpukit:inference"] = {"enabled": True}
    config["gpukit:verification"] = {"enabled": True}
    plan = check_plan(resolved(config))
    assert plan is not None
    # Only the agents' taints (none), never the servers' CriticalAddonsOnly; and no control-plane node.
    assert plan.tolerations == ()
    for deployment in by_kind(co.inference_check(plan), "Deployment").values():
        spec = deployment["spec"]["template"]["spec"]
        assert spec["tolerations"] == [] and spec["affinity"] == co._off_control_plane()


def test_k3s_on_a_cloud_says_servers_keep_the_admission_policy_they_booted_with() -> None:
    from gpukit.components.addons.inference.findings import inference_findings
    from gpukit.components.addons.inference.settings import inference_settings

    def about_servers(config: dict[str, Any], secrets: frozenset[str] = frozenset()) -> list[str]:
        cluster = resolve_config(config, set(secrets))
        found = inference_findings(cluster, inference_settings(cluster))
        return [f.message for f in found if "admission policy it booted with" in f.message]

    config = example_config("k3s-aws")
    config["gpukit:inference"] = {"enabled": True}
    (message,) = about_servers(copy.deepcopy(config))
    assert "servers (pool control)" in message and "gpukit-monitoring, keda, envoy-gateway-system" in message
    # A pool without GPUs of agents takes those pods; machines you own re-run the install, policy and all.
    config["gpukit:nodePools"].append(dict(CPU_AGENTS))
    assert about_servers(config) == []
    own = example_config("k3s-ssh")
    own["gpukit:sshPrivateKey"] = "stand-in key"
    assert about_servers(own, frozenset({"gpukit:sshPrivateKey"})) == []


def test_gpukit_verify_runs_the_check_beside_pulumi_ups_with_objects_of_its_own() -> None:
    from gpukit.components.addons.base import RUN_LABEL
    from gpukit.components.addons.inference.addon import INFERENCE_ADDON

    config = eks_config(**{"gpukit:inference": {"enabled": True}})  # verification off: verify still checks
    suite = INFERENCE_ADDON.checks(resolved(config), timeout_minutes=7)
    assert suite is not None and suite.subject == "inference pipeline" and suite.timeout_minutes == 7
    assert [n["metadata"]["name"] for n in suite.namespaces()] == ["gpukit-verify-inference"]
    objects = suite.objects("a1b2c3")
    jobs = suite.jobs("a1b2c3", 3600)
    assert set(jobs) == {"the check (its pod on pool l4)"}
    for obj in [*objects, *jobs.values()]:
        assert obj["metadata"]["labels"][RUN_LABEL] == "a1b2c3"
        assert obj["metadata"]["name"].endswith("-a1b2c3") or obj["metadata"]["name"].endswith("-a1b2c3-pods")
        if has_crd(obj):
            validate(obj)
        else:
            kubernetes_validate.validate(obj, "1.35", strict=True)
    assert all(j["spec"]["ttlSecondsAfterFinished"] == 3600 for j in jobs.values())
    # Its route answers its own hostname (pulumi up's route, with the same matches, would win as the
    # older), and nothing it makes shares a name with pulumi up's.
    (route,) = [o for o in objects if o["kind"] == "HTTPRoute"]
    assert route["spec"]["hostnames"] == ["a1b2c3.gpukit-verify.invalid"]
    assert "ROUTE_HOST=a1b2c3.gpukit-verify.invalid\n" in job_script_of(
        jobs["the check (its pod on pool l4)"]
    )
    plan = check_plan(resolved(config), at_up=False)
    assert plan is not None
    at_up = co.inference_check(plan)
    ours = {(o["kind"], o["metadata"]["name"]) for o in [*objects, *jobs.values()]}
    theirs = {(o["kind"], o["metadata"]["name"]) for o in [*at_up.fixtures, *at_up.jobs]}
    assert ours.isdisjoint(theirs)


def job_script_of(job: dict[str, Any]) -> str:
    command: list[str] = job["spec"]["template"]["spec"]["containers"][0]["command"]
    return command[2]


def test_gpukit_verify_on_gke_leaves_the_route_out_and_says_so() -> None:
    from gpukit.components.addons.inference.addon import INFERENCE_ADDON

    suite = INFERENCE_ADDON.checks(resolved(example_config("gke-dev")))
    assert suite is not None
    assert suite.subject == "inference pipeline (no route: only pulumi up reads the Gateway's address)"
    kinds = {o["kind"] for o in suite.objects("a1b2c3")}
    assert "HTTPRoute" not in kinds and "HealthCheckPolicy" not in kinds and "ScaledObject" in kinds
    assert "ROUTE=''\n" in job_script_of(suite.jobs("a1b2c3", 60)["the check"])
    # Without inference there is nothing of it to check.
    assert INFERENCE_ADDON.checks(resolved(eks_config())) is None

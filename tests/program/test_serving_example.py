"""The serving example (examples/serving/llm-canary.yaml, shown in docs/inference.md) against the plan
of the stack it names, eks-dev: every object validates, and what it relies on is what that plan builds
(the pool and its shares, the GPU taint, the Gateway and who may attach to it, the workloads' monitor,
the store KEDA queries), with room at the pool's max for its autoscaling and a rollout's surge."""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from crd_schemas import has_crd, validate

from conftest import PlannedStack
from gpukit.components.addons.inference.scalers import Target, queue_scaled_object
from harness import ROOT

EXAMPLE = ROOT / "examples" / "serving" / "llm-canary.yaml"
STACK = "eks-dev"


def example() -> list[dict[str, Any]]:
    return [obj for obj in yaml.safe_load_all(EXAMPLE.read_text()) if obj]


def of_kind(kind: str) -> list[dict[str, Any]]:
    return [obj for obj in example() if obj["kind"] == kind]


def manifest(out: Path, name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((out / "manifests" / name).read_text())
    return loaded


@pytest.fixture(scope="module")
def plan(planned_stack: Callable[[str], PlannedStack]) -> tuple[dict[str, Any], Path]:
    planned = planned_stack(STACK)
    assert planned.code == 0
    return json.loads((planned.out / "plan.json").read_text()), planned.out


def test_every_object_of_the_example_validates() -> None:
    kinds = [obj["kind"] for obj in example()]
    assert sorted(kinds) == sorted(
        ["Namespace", "Deployment", "Deployment", "Service", "Service", "HTTPRoute", "ScaledObject"]
    )
    for obj in example():
        if has_crd(obj):
            validate(obj)
        else:
            kubernetes_validate.validate(obj, "1.35", strict=True)


def test_each_server_takes_one_share_of_a_time_sliced_pool_the_plan_builds(
    plan: tuple[dict[str, Any], Path],
) -> None:
    doc, out = plan
    pools = {p["name"]: p for p in doc["pools"]}
    taints = manifest(out, "nodepool-l4.yaml")["spec"]["template"]["spec"]["taints"]
    for deployment in of_kind("Deployment"):
        spec = deployment["spec"]["template"]["spec"]
        pool = pools[spec["nodeSelector"]["gpukit.dev/pool"]]
        assert pool["sharing"] == "time-slicing x4" and pool["unitsPerNode"] == 4
        (container,) = spec["containers"]
        assert container["resources"]["limits"]["nvidia.com/gpu"] == 1
        for taint in taints:  # it tolerates every taint of the pool's nodes
            assert any(
                t["key"] == taint["key"] and t["effect"] == taint["effect"] and t["operator"] == "Exists"
                for t in spec["tolerations"]
            )
        # A model's load fits the startup probe (10 minutes at least), and no capacity goes in a rollout.
        probe = container["startupProbe"]
        assert probe["periodSeconds"] * probe["failureThreshold"] >= 600
        assert deployment["spec"]["strategy"]["rollingUpdate"] == {"maxSurge": 1, "maxUnavailable": 0}
        # Time slices share the GPU's memory: the servers on one GPU ask for no more than all of it.
        share = next(
            float(a.split("=")[1]) for a in container["args"] if a.startswith("--gpu-memory-utilization=")
        )
        assert share * pool["unitsPerNode"] / pool["gpusPerNode"] <= 1
    # KEDA owns the stable track's replicas: a count in the Deployment would fight it on every apply.
    (scaled,) = of_kind("ScaledObject")
    target = next(
        d for d in of_kind("Deployment") if d["metadata"]["name"] == scaled["spec"]["scaleTargetRef"]["name"]
    )
    assert "replicas" not in target["spec"]


def test_autoscaling_and_a_surge_fit_the_pools_shares_at_max(plan: tuple[dict[str, Any], Path]) -> None:
    doc, _ = plan
    pool = {p["name"]: p for p in doc["pools"]}["l4"]
    (scaled,) = of_kind("ScaledObject")
    canary = next(d for d in of_kind("Deployment") if d["metadata"]["name"] == "llm-canary")
    surge = 1
    needed = scaled["spec"]["maxReplicaCount"] + canary["spec"]["replicas"] + surge
    assert needed <= pool["unitsPerNode"] * pool["maxNodes"]


def test_the_scaled_object_is_gpukits_on_the_store_the_plan_builds(plan: tuple[dict[str, Any], Path]) -> None:
    doc, _ = plan
    (scaled,) = of_kind("ScaledObject")
    (trigger,) = scaled["spec"]["triggers"]
    address = doc["inference"]["autoscaling"]["queries"]
    target = Target("llm-stable", "serving", address, scaled["spec"]["maxReplicaCount"], authenticated=False)
    assert scaled == queue_scaled_object(target)
    assert trigger["metadata"]["serverAddress"] == address


def test_the_route_attaches_to_the_planned_gateway_from_a_namespace_it_admits(
    plan: tuple[dict[str, Any], Path],
) -> None:
    doc, out = plan
    gateway = manifest(out, "gateway-gpukit-gateway-gpukit-inference.yaml")
    namespace, name = doc["inference"]["gateway"]["gateway"].split("/")
    assert (gateway["metadata"]["namespace"], gateway["metadata"]["name"]) == (namespace, name)
    (route,) = of_kind("HTTPRoute")
    assert route["spec"]["parentRefs"] == [{"name": name, "namespace": namespace}]
    (ns,) = of_kind("Namespace")
    assert ns["metadata"]["name"] == route["metadata"]["namespace"]
    (listener,) = gateway["spec"]["listeners"]
    selector = listener["allowedRoutes"]["namespaces"]["selector"]["matchLabels"]
    assert selector.items() <= ns["metadata"]["labels"].items()
    # Every backend is a Service of the example, on its port, whose target is a port its pods name; every
    # rule outlasts Envoy's 15 s default; the default rule splits 90 / 10.
    services = {s["metadata"]["name"]: s for s in of_kind("Service")}
    pods = {
        (d["spec"]["template"]["metadata"]["labels"]["track"]): d["spec"]["template"]["spec"]["containers"][0]
        for d in of_kind("Deployment")
    }
    for rule in route["spec"]["rules"]:
        assert rule["timeouts"]["request"] == "300s"
        for ref in rule["backendRefs"]:
            service = services[ref["name"]]["spec"]
            (port,) = [p for p in service["ports"] if p["port"] == ref["port"]]
            container = pods[service["selector"]["track"]]
            assert port["targetPort"] in [p["name"] for p in container["ports"]]
    assert [ref["weight"] for ref in route["spec"]["rules"][-1]["backendRefs"]] == [90, 10]


def test_the_servers_metrics_are_collected_by_the_planned_monitor(plan: tuple[dict[str, Any], Path]) -> None:
    _, out = plan
    monitor = manifest(out, "podmonitor-gpukit-monitoring-gpukit-workloads.yaml")["spec"]
    (endpoint,) = monitor["podMetricsEndpoints"]
    for deployment in of_kind("Deployment"):
        template = deployment["spec"]["template"]
        assert monitor["selector"]["matchLabels"].items() <= template["metadata"]["labels"].items()
        (container,) = template["spec"]["containers"]
        assert endpoint["port"] in [p["name"] for p in container["ports"]]


def test_the_docs_surge_cost_is_the_plans_price_per_node(plan: tuple[dict[str, Any], Path]) -> None:
    doc, _ = plan
    pool = {p["name"]: p for p in doc["pools"]}["l4"]
    text = (ROOT / "docs" / "inference.md").read_text()
    assert f"billed at ${pool['pricePerNodeHour']:.4f}/h (the plan's list price per node)" in text
    # 4 replicas rolled one at a time, 5 minutes of model load each: 20 minutes of one node.
    assert f"about ${pool['pricePerNodeHour'] * 20 / 60:.2f}" in text

"""The inference add-on's pure parts: the store's size at the pools' max, the Helm values against the
pinned charts' values.yaml, the monitors and KEDA's objects against the vendored CRDs, and the
settings, findings and report a stack resolves to."""

import re
from typing import Any

import celpy
import jsonschema
import kubernetes_validate
import pytest
import yaml
from crd_schemas import KEDA as KEDA_REFERENCE
from crd_schemas import KUBE_PROMETHEUS_STACK as PROMETHEUS_REFERENCE
from crd_schemas import chart_values, validate

from gpukit.components.addons.base import merge_values
from gpukit.components.addons.gpu_operator.values import gpu_operator_values
from gpukit.components.addons.inference import names
from gpukit.components.addons.inference.addon import INFERENCE_ADDON
from gpukit.components.addons.inference.charts import KEDA, KUBE_PROMETHEUS_STACK
from gpukit.components.addons.inference.findings import inference_findings
from gpukit.components.addons.inference.monitors import in_cluster_monitors, managed_monitors
from gpukit.components.addons.inference.objects import namespace
from gpukit.components.addons.inference.policies import (
    prometheus_network_policy,
    trigger_address_policy,
    trigger_address_rule,
)
from gpukit.components.addons.inference.report import pool_scale_to_zero, report_lines
from gpukit.components.addons.inference.scalers import (
    Target,
    cluster_trigger_authentication,
    gpu_utilisation_scaled_object,
    queue_scaled_object,
)
from gpukit.components.addons.inference.settings import inference_settings
from gpukit.components.addons.inference.sizing import (
    MIN_MEMORY_MIB,
    MIN_VOLUME_GIB,
    RETENTION_SIZE_SHARE,
    store_size,
)
from gpukit.components.addons.inference.values import keda_values, prometheus_values
from gpukit.components.findings import Severity
from gpukit.components.node_software import GpuNodeSoftware
from gpukit.components.pools import GPU_TAINT
from gpukit.components.resolve.config import resolve_config
from gpukit.components.substrate import ResolvedCluster
from gpukit.providers.gcp.gke.inference_variant import (
    GkeInference,
    gmp_query_url,
    keda_account_id,
    keda_member,
)
from gpukit.providers.gcp.gke.monitoring import monitoring_config
from harness import (
    CHART_VALUES,
    ROOT,
    chart_has,
    eks_config,
    example_config,
    key_paths,
    pool_facts,
    unknown_values,
)

SYSTEM_TOLERATIONS = [{"key": "CriticalAddonsOnly", "operator": "Exists", "effect": "NoSchedule"}]
KUBE_STATE_METRICS_VALUES = yaml.safe_load(
    (PROMETHEUS_REFERENCE / "kube-state-metrics-8.4.0-values.yaml").read_text()
)


SSH_KEY = "gpukit:sshPrivateKey"


def with_inference(config: dict[str, Any], **inference: Any) -> ResolvedCluster:
    config["gpukit:inference"] = {"enabled": True, **inference}
    if SSH_KEY in config:  # the stack file's is encrypted: a stand-in, stored as a secret
        config[SSH_KEY] = "stand-in key"
    return resolve_config(config, {SSH_KEY})


def gpu_pool(max_nodes: int, gpus_per_node: int = 8) -> Any:
    instance = {8: "p5.48xlarge", 1: "g6.xlarge"}[gpus_per_node]
    return pool_facts({"name": "gpu", "instance_type": instance, "min_nodes": 0, "max_nodes": max_nodes})


# --- sizing


def test_the_store_grows_with_the_pools_max_and_the_retention() -> None:
    small = store_size([gpu_pool(2)], 15)
    more_nodes = store_size([gpu_pool(40)], 15)
    longer = store_size([gpu_pool(40)], 90)
    assert (small.nodes, small.gpus) == (2, 16)
    assert (more_nodes.nodes, more_nodes.gpus) == (40, 320)
    assert more_nodes.series > small.series
    assert more_nodes.memory_mib > small.memory_mib
    assert longer.volume_gib > more_nodes.volume_gib > small.volume_gib
    assert longer.series == more_nodes.series  # retention changes the disk only


def test_the_store_keeps_its_floors_and_deletes_old_blocks_before_the_volume_fills() -> None:
    tiny = store_size([gpu_pool(1, gpus_per_node=1)], 1)
    assert (tiny.volume_gib, tiny.memory_mib) == (MIN_VOLUME_GIB, MIN_MEMORY_MIB)
    for size in (tiny, store_size([gpu_pool(64)], 90)):
        assert size.volume_gib % 10 == 0
        assert size.retention_size_gib == int(size.volume_gib * RETENTION_SIZE_SHARE)
        assert size.retention_size_gib < size.volume_gib


def test_the_volume_holds_the_retention_at_two_bytes_per_sample_doubled() -> None:
    size = store_size([gpu_pool(64)], 90)
    needed_gib = 90 * 86_400 * size.samples_per_second * 2 * 2 / 2**30
    assert needed_gib <= size.volume_gib < needed_gib + 10


# --- Helm values


def test_every_prometheus_value_is_a_key_of_the_pinned_chart_or_its_subchart() -> None:
    values = prometheus_values(store_size([gpu_pool(4)], 15), 15, SYSTEM_TOLERATIONS)
    subchart = values.pop("kube-state-metrics")
    assert unknown_values(values, chart_values(PROMETHEUS_REFERENCE)) == []
    assert unknown_values(subchart, KUBE_STATE_METRICS_VALUES) == []
    assert unknown_values({"tolerationz": []}, KUBE_STATE_METRICS_VALUES) == ["tolerationz"]


def test_prometheus_is_sized_retained_and_kept_off_the_gpu_nodes() -> None:
    size = store_size([gpu_pool(4)], 30)
    spec = prometheus_values(size, 30, SYSTEM_TOLERATIONS)["prometheus"]["prometheusSpec"]
    assert spec["retention"] == "30d"
    assert spec["retentionSize"] == f"{size.retention_size_gib}GB"
    claim = spec["storageSpec"]["volumeClaimTemplate"]["spec"]
    assert claim["resources"]["requests"]["storage"] == f"{size.volume_gib}Gi"
    assert "storageClassName" not in claim  # the cluster's default class
    assert spec["resources"]["requests"]["memory"] == f"{size.memory_mib}Mi"
    assert spec["tolerations"] == SYSTEM_TOLERATIONS
    # Every monitor and rule of its own namespace, not only those labelled for this release; none
    # from anywhere else (a tenant's monitor could claim another namespace's series).
    assert spec["podMonitorSelectorNilUsesHelmValues"] is False
    own = {"matchLabels": {"kubernetes.io/metadata.name": "gpukit-monitoring"}}
    for kind in ("podMonitor", "serviceMonitor", "rule", "probe", "scrapeConfig"):
        assert spec[f"{kind}NamespaceSelector"] == own, kind
        assert spec[f"{kind}SelectorNilUsesHelmValues"] is False, kind


def test_the_stack_runs_no_grafana_alertmanager_or_host_level_exporter() -> None:
    values = prometheus_values(store_size([gpu_pool(1)], 15), 15, [])
    for part in ("grafana", "alertmanager", "nodeExporter"):
        assert values[part] == {"enabled": False}
    assert values["fullnameOverride"] == names.PROMETHEUS_FULLNAME
    assert names.IN_CLUSTER_PROMETHEUS_URL == (
        "http://gpukit-prometheus.gpukit-monitoring.svc.cluster.local:9090"
    )


def test_every_keda_value_is_a_key_of_the_pinned_chart() -> None:
    identity = {
        "podIdentity": {"gcp": {"enabled": True, "gcpIAMServiceAccount": "k@p.iam.gserviceaccount.com"}}
    }
    gke = GkeInference().keda_platform_values()
    for values in (keda_values(SYSTEM_TOLERATIONS), keda_values(SYSTEM_TOLERATIONS, gke, identity)):
        assert unknown_values(values, chart_values(KEDA_REFERENCE)) == []
    merged = keda_values([], gke, identity)
    assert merged["podIdentity"] == identity["podIdentity"]
    # GKE's control plane reaches pods on 443 and 10250 only: the metrics API and webhooks listen on 10250.
    assert (merged["service"]["portHttpsTarget"], merged["webhooks"]["port"]) == (10250, 10250)
    assert "service" not in keda_values([])


def test_keda_reads_secrets_of_its_own_namespace_only() -> None:
    permissions = keda_values([])["permissions"]
    assert permissions == {
        "operator": {"restrict": {"secret": True}},
        "metricServer": {"restrict": {"secret": True}},
    }
    chart = chart_values(KEDA_REFERENCE)["permissions"]
    assert chart["operator"]["restrict"]["secret"] is False  # the chart's default: every namespace's


def test_the_in_cluster_store_asks_the_gpu_operator_for_no_service_monitor_of_its_own() -> None:
    asked = INFERENCE_ADDON.asks(with_inference(eks_config()))
    assert asked == {"gpu-operator": {"dcgmExporter": {"serviceMonitor": {"enabled": False}}}}
    assert all(chart_has(p, CHART_VALUES) for p in key_paths(asked["gpu-operator"]))
    # GKE's store scrapes with its own monitors: the Operator's chart is left as it is.
    assert INFERENCE_ADDON.asks(with_inference(example_config("gke-dev"))) == {}
    software = GpuNodeSoftware(driver_preinstalled=True, toolkit_preinstalled=True, summary="EKS")
    merged = merge_values(gpu_operator_values(software, [GPU_TAINT.toleration()]), asked["gpu-operator"])
    assert merged["dcgmExporter"] == {"serviceMonitor": {"enabled": False}}
    assert merged["driver"] == {"enabled": False}  # gpukit's own values stay


def test_the_charts_are_pinned_to_the_vendored_versions() -> None:
    prometheus_readme = (PROMETHEUS_REFERENCE / "README.md").read_text()
    assert f"`kube-prometheus-stack-{KUBE_PROMETHEUS_STACK.version}`" in prometheus_readme
    assert PROMETHEUS_REFERENCE.name == f"kube-prometheus-stack-{KUBE_PROMETHEUS_STACK.version}"
    assert f"at tag `v{KEDA.version}`" in (KEDA_REFERENCE / "README.md").read_text()
    assert KEDA_REFERENCE.name == f"keda-{KEDA.version}"


# --- objects against their schemas


def test_in_cluster_monitors_honour_only_the_dcgm_exporters_labels_in_its_namespace() -> None:
    exporter, workloads = in_cluster_monitors(dcgm=True)
    for monitor in (exporter, workloads):
        validate(monitor)
        assert monitor["metadata"]["namespace"] == names.MONITORING_NAMESPACE
    assert exporter["spec"]["namespaceSelector"] == {"matchNames": ["gpu-operator"]}
    assert exporter["spec"]["selector"] == {"matchLabels": {"app": "nvidia-dcgm-exporter"}}
    assert [e["honorLabels"] for e in exporter["spec"]["podMetricsEndpoints"]] == [True]
    assert workloads["spec"]["namespaceSelector"] == {"any": True}
    assert workloads["spec"]["selector"] == {"matchLabels": {"gpukit.dev/metrics": "true"}}
    assert workloads["spec"]["podMetricsEndpoints"] == [
        {"port": "metrics", "path": "/metrics", "interval": "30s", "honorLabels": False}
    ]
    assert [m["metadata"]["name"] for m in in_cluster_monitors(dcgm=False)] == ["gpukit-workloads"]


def test_managed_monitors_keep_the_dcgm_pod_labels_and_the_collectors_for_workloads() -> None:
    exporter, workloads = managed_monitors(dcgm=True)
    for monitor in (exporter, workloads):
        validate(monitor)
    # Only the exporter's pods in the Operator's namespace: a ClusterPodMonitoring would trust any pod
    # labelled app=nvidia-dcgm-exporter anywhere.
    assert (exporter["kind"], exporter["metadata"]["namespace"]) == ("PodMonitoring", "gpu-operator")
    assert exporter["spec"]["targetLabels"] == {"metadata": []}
    assert workloads["kind"] == "ClusterPodMonitoring"
    assert "targetLabels" not in workloads["spec"]
    assert workloads["spec"]["endpoints"][0]["interval"] == "30s"  # not GMP's 60s default
    assert [m["metadata"]["name"] for m in managed_monitors(dcgm=False)] == ["gpukit-workloads"]


def test_a_misspelt_monitor_field_is_refused_by_the_vendored_schema() -> None:
    monitor = in_cluster_monitors(dcgm=False)[0]
    monitor["spec"]["podMetricsEndpoints"][0]["honourLabels"] = True
    with pytest.raises(jsonschema.ValidationError):
        validate(monitor)


TARGETS = [
    Target("llm", "serving", names.IN_CLUSTER_PROMETHEUS_URL, 8, authenticated=False),
    Target("llm", "serving", gmp_query_url("acme-ml"), 8, authenticated=True, cluster="gke-dev"),
]


@pytest.mark.parametrize("target", TARGETS, ids=["in-cluster", "managed"])
def test_the_example_scaled_objects_scale_on_a_custom_metric(target: Target) -> None:
    queue = queue_scaled_object(target)
    utilisation = gpu_utilisation_scaled_object(target)
    for scaled in (queue, utilisation):
        validate(scaled)
        (trigger,) = scaled["spec"]["triggers"]
        assert trigger["type"] == "prometheus"
        assert trigger["metadata"]["serverAddress"] == target.server_address
        assert scaled["spec"]["minReplicaCount"] == 1  # its own metric is gone with its last pod
        assert scaled["spec"]["maxReplicaCount"] == 8
        assert ("authenticationRef" in trigger) is target.authenticated
    # A project-wide store (GKE's) holds other clusters' series: the query names this cluster.
    where = 'cluster="gke-dev",' if target.cluster else ""
    assert queue["spec"]["triggers"][0]["metadata"]["query"] == (
        f'sum(vllm:num_requests_waiting{{{where}namespace="serving",pod=~"llm-[a-z0-9]+-[a-z0-9]+"}})'
    )
    assert "cooldownPeriod" not in queue["spec"]  # KEDA applies it between 1 and 0 replicas only
    assert queue["spec"]["triggers"][0]["metricType"] == "AverageValue"
    assert utilisation["spec"]["triggers"][0]["metricType"] == "Value"
    assert "DCGM_FI_DEV_GPU_UTIL" in utilisation["spec"]["triggers"][0]["metadata"]["query"]


def test_the_cluster_trigger_authentication_uses_the_operators_pod_identity() -> None:
    auth = cluster_trigger_authentication("gcp")
    validate(auth)
    assert auth["metadata"] == {"name": names.CLUSTER_TRIGGER_AUTHENTICATION}
    assert auth["spec"] == {"podIdentity": {"provider": "gcp"}}


def test_prometheus_answers_only_gpukits_namespaces() -> None:
    policy = prometheus_network_policy()
    kubernetes_validate.validate(policy, "1.33", strict=True)
    assert policy["metadata"]["namespace"] == "gpukit-monitoring"
    allowed = [f["namespaceSelector"]["matchLabels"] for f in policy["spec"]["ingress"][0]["from"]]
    assert allowed == [
        {"kubernetes.io/metadata.name": "gpukit-monitoring"},
        {"kubernetes.io/metadata.name": "keda"},
    ]
    assert policy["spec"]["podSelector"] == {
        "matchExpressions": [
            {
                "key": "app.kubernetes.io/name",
                "operator": "In",
                "values": ["prometheus", "kube-state-metrics"],
            }
        ]
    }


STORE = "https://monitoring.googleapis.com/v1/projects/acme-ml-dev/location/global/prometheus"


def _admitted(triggers: list[dict[str, Any]]) -> bool:
    env = celpy.Environment()
    program = env.program(env.compile(trigger_address_rule(STORE)))
    return bool(program.evaluate({"object": celpy.json_to_cel({"spec": {"triggers": triggers}})}))


def _trigger(address: str | None, authenticated: bool = True, kind: str = "prometheus") -> dict[str, Any]:
    trigger: dict[str, Any] = {
        "type": kind,
        "metadata": {} if address is None else {"serverAddress": address},
    }
    if authenticated:
        trigger["authenticationRef"] = {
            "name": "gpukit-metrics-store",
            "kind": "ClusterTriggerAuthentication",
        }
    return trigger


def test_an_authenticated_trigger_may_query_only_the_store() -> None:
    assert _admitted([_trigger(STORE), _trigger(f"{STORE}/api/v1/query")])
    assert _admitted([_trigger("http://anything.example", authenticated=False)])  # sends no token
    assert _admitted([_trigger(None, kind="cpu", authenticated=False)])
    for address in ("https://attacker.example", f"{STORE}.attacker.example", None):
        assert not _admitted([_trigger(STORE), _trigger(address)]), address
    # The docs' GKE example passes the policy that guards it.
    (gke_example,) = [o for o in doc_scaled_objects() if "authenticationRef" in o["spec"]["triggers"][0]]
    assert _admitted(gke_example["spec"]["triggers"])


def test_the_admission_policy_and_binding_validate() -> None:
    policy, binding = trigger_address_policy(STORE)
    for obj in (policy, binding):
        kubernetes_validate.validate(obj, "1.33", strict=True)
    assert policy["spec"]["failurePolicy"] == "Fail"
    assert policy["spec"]["validations"][0]["expression"] == trigger_address_rule(STORE)
    assert policy["spec"]["matchConstraints"]["resourceRules"][0]["resources"] == [
        "scaledobjects",
        "scaledjobs",
    ]
    assert binding["spec"] == {"policyName": policy["metadata"]["name"], "validationActions": ["Deny"]}


@pytest.mark.parametrize("name", [names.MONITORING_NAMESPACE, names.KEDA_NAMESPACE])
def test_the_namespaces_enforce_baseline_pod_security(name: str) -> None:
    manifest = namespace(name)
    kubernetes_validate.validate(manifest, "1.33", strict=True)
    assert manifest["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "baseline"


# --- GKE's store


def test_the_keda_account_fits_googles_limit_and_is_bound_to_the_operator() -> None:
    assert keda_account_id("gke-dev") == "gke-dev-keda"
    long = keda_account_id("research-gpu-cluster-us-central1")
    assert len(long) <= 30 and long.endswith("-keda") and long.startswith("research-")
    assert keda_member("acme-ml") == "serviceAccount:acme-ml.svc.id.goog[keda/keda-operator]"
    assert gmp_query_url("acme-ml") == (
        "https://monitoring.googleapis.com/v1/projects/acme-ml/location/global/prometheus"
    )


def test_gke_monitoring_config_asks_for_what_runs() -> None:
    assert monitoring_config(False, False) is None
    managed = {"enable_components": ["SYSTEM_COMPONENTS"], "managed_prometheus": {"enabled": True}}
    assert monitoring_config(False, True) == managed
    for metrics in (False, True):
        assert monitoring_config(True, metrics) == {
            "enable_components": ["SYSTEM_COMPONENTS", "DCGM"],
            "managed_prometheus": {"enabled": True},
        }


# --- settings, findings and the report


def test_metrics_and_autoscaling_follow_enabled_unless_set() -> None:
    on = inference_settings(with_inference(eks_config()))
    assert (on.metrics, on.autoscaling, on.in_cluster_store, on.retention_days) == (True, True, True, 15)
    metrics_only = inference_settings(with_inference(eks_config(), autoscaling={"enabled": False}))
    assert (metrics_only.metrics, metrics_only.autoscaling) == (True, False)
    off = inference_settings(resolve_config(eks_config()))
    assert (off.metrics, off.autoscaling) == (False, False)


def test_gke_uses_the_managed_store_and_k3s_the_node_local_volume() -> None:
    gke = inference_settings(with_inference(example_config("gke-dev")))
    assert gke.variant.managed_store and not gke.in_cluster_store
    k3s = inference_settings(with_inference(example_config("k3s-ssh")))
    assert k3s.in_cluster_store and k3s.variant.node_local_volume
    eks = inference_settings(with_inference(eks_config()))
    assert eks.in_cluster_store and not eks.variant.node_local_volume


def test_a_node_local_store_is_warned_with_the_claim_to_delete() -> None:
    cluster = with_inference(example_config("k3s-ssh"))
    found = {f.key: f for f in inference_findings(cluster, inference_settings(cluster))}
    warning = found["gpukit:inference.metrics"]
    assert warning.severity == Severity.WARNING
    assert warning.fix == (
        "after replacing that machine: kubectl -n gpukit-monitoring delete pvc "
        "prometheus-gpukit-prometheus-db-prometheus-gpukit-prometheus-0"
    )
    eks = with_inference(eks_config())
    (zonal,) = [
        f for f in inference_findings(eks, inference_settings(eks)) if f.key == "gpukit:inference.metrics"
    ]
    assert zonal.severity == Severity.INFO and "in one zone" in zonal.message  # EBS: not node-local


def test_a_cluster_with_no_steady_system_node_is_warned() -> None:
    # Own hosts, all with GPUs (cloud pools are refused without a system pool): one L40S host serves.
    config = example_config("k3s-ssh")
    gpu_host = {**config["gpukit:nodePools"][1], "role": "server"}
    gpu_host["hosts"] = gpu_host["hosts"][:1]
    config["gpukit:nodePools"] = [gpu_host]
    config["gpukit:cluster"]["apiAddress"] = gpu_host["hosts"][0]["address"]
    del config["gpukit:storage"]
    cluster = with_inference(config)
    found = [
        f for f in inference_findings(cluster, inference_settings(cluster)) if f.key == "gpukit:inference"
    ]
    assert [f.fix for f in found] == ["add a pool without GPUs with minNodes >= 1"]


def test_keda_is_flagged_on_a_kubernetes_it_was_not_tested_on() -> None:
    config = eks_config()
    config["gpukit:cluster"]["kubernetesVersion"] = "1.36"
    cluster = with_inference(config)
    keys = {f.key: f.severity for f in inference_findings(cluster, inference_settings(cluster))}
    assert keys.get("gpukit:inference.autoscaling") == Severity.INFO
    tested = with_inference(eks_config())
    assert "gpukit:inference.autoscaling" not in {
        f.key for f in inference_findings(tested, inference_settings(tested))
    }


def test_the_report_says_where_the_store_is_and_how_each_gpu_pool_reaches_zero() -> None:
    cluster = with_inference(eks_config())
    settings = inference_settings(cluster)
    lines = report_lines(cluster, settings)
    store = next(line for line in lines if line.startswith("  metrics store: "))
    assert f"{settings.size.volume_gib} GiB volume" in store and "gp3 $0.08/GB-month" in store
    assert any(names.IN_CLUSTER_PROMETHEUS_URL in line for line in lines)
    (pool,) = cluster.gpu_pools
    assert f"  pool l4: {pool_scale_to_zero(pool, True)}" in lines
    assert "kedacore/keda#6040" in pool_scale_to_zero(pool, True)
    gke = with_inference(example_config("gke-dev"))
    gke_lines = report_lines(gke, inference_settings(gke))
    assert any(line.startswith("  metrics cost: billed per sample ingested") for line in gke_lines)
    assert any("ClusterTriggerAuthentication gpukit-metrics-store" in line for line in gke_lines)
    own = with_inference(example_config("k3s-ssh"))
    assert all(pool_scale_to_zero(p, True).startswith("machines you own") for p in own.gpu_pools)


# --- docs/inference.md


def doc_scaled_objects() -> list[dict[str, Any]]:
    text = (ROOT / "docs" / "inference.md").read_text()
    blocks = re.findall(r"(?ms)^```yaml\n(.*?)^```\n", text)
    found = [obj for block in blocks for obj in yaml.safe_load_all(block)]
    return [obj for obj in found if isinstance(obj, dict) and obj.get("kind") == "ScaledObject"]


def test_the_docs_scaled_objects_are_what_gpukit_renders() -> None:
    shown = doc_scaled_objects()
    assert len(shown) == 4  # queue and GPU utilisation, GKE's queue, the serving example's
    for obj in shown:
        validate(obj)
        (trigger,) = obj["spec"]["triggers"]
        target = Target(
            obj["metadata"]["name"],
            obj["metadata"]["namespace"],
            trigger["metadata"]["serverAddress"],
            obj["spec"]["maxReplicaCount"],
            authenticated="authenticationRef" in trigger,
            cluster="gke-dev" if "authenticationRef" in trigger else "",  # the GKE example's stack
        )
        render = (
            queue_scaled_object if trigger["metricType"] == "AverageValue" else gpu_utilisation_scaled_object
        )
        assert obj == render(target)
        # Each address is a store gpukit builds: the in-cluster one, or GKE's for the example project.
        assert target.server_address in (names.IN_CLUSTER_PROMETHEUS_URL, gmp_query_url("acme-ml-dev"))
        assert target.authenticated is target.server_address.startswith("https://monitoring.googleapis.com/")

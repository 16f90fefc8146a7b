"""The inference add-on under the mock engine (preview=False): what GpuCluster registers with
`gpukit:inference` on EKS (an in-cluster Prometheus) and on GKE (Google's managed store), read back
from the engine's record, each object checked as the API server would."""

import copy
import ipaddress
from typing import Any

import kubernetes_validate
import pytest
import yaml
from crd_schemas import validate as validate_crd

from gpukit.components.k3s.cloud_flow import node_settings
from gpukit.components.k3s.host_scripts import server_policy
from gpukit.components.resolve.config import resolve_config
from gpukit.program import build
from harness import Recording, eks_config, example_config, record, unsecret

SERVING = "gpukit:index:InferenceServing"
RELEASE = "kubernetes:helm.sh/v3:Release"
HELM_CHART = "kubernetes:helm.sh/v4:Chart"
NAMESPACE = "kubernetes:core/v1:Namespace"
POD_MONITOR = "kubernetes:monitoring.coreos.com/v1:PodMonitor"
CLUSTER_POD_MONITORING = "kubernetes:monitoring.googleapis.com/v1:ClusterPodMonitoring"
TRIGGER_AUTH = "kubernetes:keda.sh/v1alpha1:ClusterTriggerAuthentication"
GSA = "gcp:serviceaccount/account:Account"
GKE = "gcp:container/cluster:Cluster"


def releases(rec: Recording) -> dict[str, Any]:
    return {r.inputs["name"]: r for r in rec.of_type(RELEASE)}


def _object(inputs: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in inputs.items() if not k.startswith("__")}


NETWORK_POLICY = "kubernetes:networking.k8s.io/v1:NetworkPolicy"
POD_MONITORING = "kubernetes:monitoring.googleapis.com/v1:PodMonitoring"
ADMISSION_POLICY = "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy"
ADMISSION_BINDING = "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding"


@pytest.fixture(scope="module")
def eks() -> Recording:
    config = eks_config(**{"gpukit:inference": {"enabled": True, "metrics": {"retentionDays": 60}}})
    config["gpukit:nodePools"][1]["maxNodes"] = 40
    return record(lambda: build(config))


@pytest.fixture(scope="module")
def gke() -> Recording:
    config = example_config("gke-dev")
    config["gpukit:inference"] = {"enabled": True}
    return record(lambda: build(config), region=config["gcp:region"], project=config["gcp:project"])


def test_the_store_keda_and_the_gateway_are_pinned_releases_of_the_component(eks: Recording) -> None:
    component = eks.one(SERVING)
    assert eks.parent_of(component) == eks.one("gpukit:index:GpuCluster")
    found = {n: r for n, r in releases(eks).items() if r.parent == component.urn}
    assert {
        n: (r.inputs["chart"], r.inputs["version"], r.inputs.get("repositoryOpts", {}).get("repo"))
        for n, r in found.items()
    } == {
        "gpukit-metrics": (
            "kube-prometheus-stack",
            "88.5.3",
            "https://prometheus-community.github.io/helm-charts",
        ),
        "keda": ("keda", "2.20.2", "https://kedacore.github.io/charts"),
        "envoy-gateway": ("oci://docker.io/envoyproxy/gateway-helm", "v1.9.0", None),
    }
    assert found["gpukit-metrics"].inputs["namespace"] == "gpukit-monitoring"
    assert found["keda"].inputs["namespace"] == "keda"
    assert found["envoy-gateway"].inputs["namespace"] == "envoy-gateway-system"
    # The CRDs: a chart Pulumi applies itself, too large for a Helm release's Secret.
    crds = eks.one(HELM_CHART)
    assert (crds.inputs["chart"], crds.inputs["version"]) == (
        "oci://docker.io/envoyproxy/gateway-crds-helm",
        "v1.9.0",
    )
    assert crds.parent == component.urn
    for release in found.values():
        assert release.inputs["createNamespace"] is False


def test_the_namespaces_are_gpukits_with_pod_security(eks: Recording) -> None:
    component = eks.one(SERVING)
    namespaces = [r for r in eks.of_type(NAMESPACE) if r.parent == component.urn]
    assert sorted(n.inputs["metadata"]["name"] for n in namespaces) == [
        "envoy-gateway-system",
        "gpukit-gateway",
        "gpukit-monitoring",
        "keda",
    ]
    for ns in namespaces:
        manifest = {"apiVersion": "v1", "kind": "Namespace", "metadata": ns.inputs["metadata"]}
        kubernetes_validate.validate(manifest, "1.35", strict=True)
        assert ns.inputs["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "baseline"


def test_the_store_is_sized_from_the_pools_max_on_the_default_class_after_it_exists(eks: Recording) -> None:
    prometheus = releases(eks)["gpukit-metrics"]
    spec = unsecret(prometheus.inputs["values"])["prometheus"]["prometheusSpec"]
    # A system pool of max 3 and an L4 pool of max 40 (40 GPUs): 15,000 + 43 x 3,000 + 40 x 50 = 146,000
    # series, 4,867 samples/s; 60 days of them at 2 bytes are 47 GiB, doubled 94 (a 100 GiB volume, old
    # blocks going at 80 GB), and 146,000 x 8 KiB = 1,141 MiB (1,152 in 64 MiB steps).
    assert spec["retention"] == "60d"
    assert spec["storageSpec"]["volumeClaimTemplate"]["spec"]["resources"]["requests"]["storage"] == "100Gi"
    assert spec["retentionSize"] == "80GB"
    assert spec["resources"]["requests"]["memory"] == "1152Mi"
    storage_class = eks.one("kubernetes:storage.k8s.io/v1:StorageClass")
    assert storage_class.urn in prometheus.dependencies
    operator = releases(eks)["gpu-operator"]
    assert operator.urn in prometheus.dependencies


def test_dcgm_is_scraped_once_with_the_gpus_pod_kept(eks: Recording) -> None:
    monitors = {m.inputs["metadata"]["name"]: m for m in eks.of_type(POD_MONITOR)}
    assert sorted(monitors) == ["gpukit-dcgm-exporter", "gpukit-workloads"]
    for monitor in monitors.values():
        validate_crd(_object(monitor.inputs))
        assert releases(eks)["gpukit-metrics"].urn in monitor.dependencies  # after its CRD
    dcgm = monitors["gpukit-dcgm-exporter"].inputs["spec"]
    assert dcgm["namespaceSelector"] == {"matchNames": ["gpu-operator"]}
    assert dcgm["podMetricsEndpoints"][0]["honorLabels"] is True
    operator_values = unsecret(releases(eks)["gpu-operator"].inputs["values"])
    assert operator_values["dcgmExporter"] == {"serviceMonitor": {"enabled": False}}


def test_keda_runs_on_the_system_pool_without_credentials_in_cluster(eks: Recording) -> None:
    values = unsecret(releases(eks)["keda"].inputs["values"])
    assert values["tolerations"] == []  # eks_config's system pool has no taint: nothing to tolerate
    assert "podIdentity" not in values and "service" not in values
    assert eks.of_type(TRIGGER_AUTH) == []
    assert eks.of_type(ADMISSION_POLICY) == []  # KEDA holds no cloud identity here


def test_prometheus_answers_only_gpukits_namespaces(eks: Recording) -> None:
    policy = eks.one(NETWORK_POLICY, "unit-inference-networkpolicy-gpukit-prometheus-clients")
    kubernetes_validate.validate(_object(policy.inputs), "1.35", strict=True)
    namespace = eks.one(NAMESPACE, "unit-inference-ns-gpukit-monitoring")
    assert namespace.urn in policy.dependencies


def test_a_tainted_system_pool_is_tolerated_and_the_gpu_taint_never_is() -> None:
    # k3s on EC2: the only pool without GPUs is the server, tainted CriticalAddonsOnly.
    config = example_config("k3s-aws")
    config["gpukit:inference"] = {"enabled": True}
    rec = record(lambda: build(config), config=config, region=config["aws:region"])
    server = [{"key": "CriticalAddonsOnly", "operator": "Exists", "effect": "NoExecute"}]
    keda = unsecret(releases(rec)["keda"].inputs["values"])
    prometheus = unsecret(releases(rec)["gpukit-metrics"].inputs["values"])
    assert keda["tolerations"] == server
    assert prometheus["prometheus"]["prometheusSpec"]["tolerations"] == server
    assert prometheus["kube-state-metrics"]["tolerations"] == server
    assert prometheus["prometheusOperator"]["tolerations"] == server


def test_without_the_switch_nothing_is_built_and_the_operator_keeps_its_service_monitor() -> None:
    plain = record(lambda: build(eks_config()))
    assert plain.of_type(SERVING) == []
    assert "dcgmExporter" not in unsecret(releases(plain)["gpu-operator"].inputs["values"])
    metrics_only = record(
        lambda: build(eks_config(**{"gpukit:inference": {"metrics": {"enabled": True, "retentionDays": 30}}}))
    )
    assert sorted(releases(metrics_only)) == ["cluster-autoscaler", "gpu-operator", "gpukit-metrics"]
    spec = unsecret(releases(metrics_only)["gpukit-metrics"].inputs["values"])["prometheus"]["prometheusSpec"]
    assert spec["retention"] == "30d"


def test_gke_runs_no_prometheus_and_asks_gke_for_managed_collection(gke: Recording) -> None:
    assert "gpukit-metrics" not in releases(gke)
    assert gke.of_type(POD_MONITOR) == []
    cluster = gke.one(GKE)
    assert cluster.inputs["monitoringConfig"]["managedPrometheus"] == {"enabled": True}
    monitorings = {m.inputs["metadata"]["name"]: m for m in gke.of_type(CLUSTER_POD_MONITORING)}
    # gke-dev's GPU nodes run GKE's own software (driver: preinstalled): GKE's managed DCGM, no exporter
    # of the Operator's to scrape.
    assert sorted(monitorings) == ["gpukit-workloads"]
    for monitoring in monitorings.values():
        validate_crd(_object(monitoring.inputs))


def test_keda_on_gke_queries_as_its_own_google_account_through_workload_identity(gke: Recording) -> None:
    (account,) = [a for a in gke.of_type(GSA) if a.inputs["accountId"] == "gke-dev-keda"]
    assert account.inputs["displayName"] == "KEDA of gke-dev: reads Managed Prometheus (gpukit)"
    viewer = gke.one("gcp:projects/iAMMember:IAMMember", "gke-dev-keda-monitoring-viewer")
    assert viewer.inputs["role"] == "roles/monitoring.viewer"
    assert viewer.inputs["project"] == "acme-ml-dev"
    binding = gke.one("gcp:serviceaccount/iAMMember:IAMMember")
    assert binding.inputs["role"] == "roles/iam.workloadIdentityUser"
    assert binding.inputs["member"] == "serviceAccount:acme-ml-dev.svc.id.goog[keda/keda-operator]"
    assert gke.one(GKE).urn in binding.dependencies
    keda = releases(gke)["keda"]
    values = unsecret(keda.inputs["values"])
    assert values["podIdentity"]["gcp"]["enabled"] is True
    assert values["podIdentity"]["gcp"]["gcpIAMServiceAccount"].startswith("gke-dev-keda@")
    assert {viewer.urn, binding.urn} <= set(keda.dependencies)
    auth = gke.one(TRIGGER_AUTH)
    validate_crd(_object(auth.inputs))
    assert auth.inputs["spec"] == {"podIdentity": {"provider": "gcp"}}
    assert keda.urn in auth.dependencies
    assert gke.of_type("gcp:serviceaccount/key:Key") == []  # no key is made
    # GKE's control plane reaches pods on 443 and 10250 only.
    assert (values["service"]["portHttpsTarget"], values["webhooks"]["port"]) == (10250, 10250)


def test_on_gke_authenticated_triggers_are_held_to_the_store_before_keda_runs(gke: Recording) -> None:
    policy, binding = gke.one(ADMISSION_POLICY), gke.one(ADMISSION_BINDING)
    for obj in (policy, binding):
        kubernetes_validate.validate(_object(obj.inputs), "1.35", strict=True)
    store = "https://monitoring.googleapis.com/v1/projects/acme-ml-dev/location/global/prometheus"
    assert f"'{store}/'" in policy.inputs["spec"]["validations"][0]["expression"]
    assert {policy.urn, binding.urn} <= set(releases(gke)["keda"].dependencies)


def test_gke_with_the_operators_exporter_scrapes_it_in_its_namespace_only() -> None:
    config = example_config("gke-dev")
    config["gpukit:inference"] = {"enabled": True}
    config["gpukit:gpuOperator"] = {"chartVersion": "v26.7.0", "driver": "operator"}
    config["gpukit:nodePools"][1].pop("sharing")  # GKE's own time-sharing needs its own driver
    rec = record(lambda: build(config), region=config["gcp:region"], project=config["gcp:project"])
    exporter = rec.one(POD_MONITORING)
    validate_crd(_object(exporter.inputs))
    assert exporter.inputs["metadata"]["namespace"] == "gpu-operator"
    assert exporter.inputs["spec"]["selector"] == {"matchLabels": {"app": "nvidia-dcgm-exporter"}}
    assert [m.inputs["metadata"]["name"] for m in rec.of_type(CLUSTER_POD_MONITORING)] == ["gpukit-workloads"]
    operator = unsecret(releases(rec)["gpu-operator"].inputs["values"])
    assert "dcgmExporter" not in operator  # the Operator's ServiceMonitor is no concern of GKE's store


GATEWAY = "kubernetes:gateway.networking.k8s.io/v1:Gateway"
GATEWAY_CLASS = "kubernetes:gateway.networking.k8s.io/v1:GatewayClass"
ENVOY_PROXY = "kubernetes:gateway.envoyproxy.io/v1alpha1:EnvoyProxy"


def test_the_eks_gateway_is_envoy_gateways_on_the_standard_crds_after_them(eks: Recording) -> None:
    crds, controller = eks.one(HELM_CHART), releases(eks)["envoy-gateway"]
    assert unsecret(crds.inputs["values"]) == {
        "crds": {"gatewayAPI": {"enabled": True, "channel": "standard"}, "envoyGateway": {"enabled": True}}
    }
    assert unsecret(controller.inputs["values"])["crds"] == {"enabled": False}  # not the experimental ones
    assert crds.urn in controller.dependencies
    proxy, gateway_class, gateway = eks.one(ENVOY_PROXY), eks.one(GATEWAY_CLASS), eks.one(GATEWAY)
    for obj in (proxy, gateway_class, gateway):
        validate_crd(_object(obj.inputs))
    assert controller.urn in proxy.dependencies
    assert proxy.urn in gateway_class.dependencies and gateway_class.urn in gateway.dependencies
    assert gateway_class.inputs["spec"]["parametersRef"]["name"] == proxy.inputs["metadata"]["name"]
    assert gateway.inputs["spec"]["gatewayClassName"] == gateway_class.inputs["metadata"]["name"]
    assert eks.one(NAMESPACE, "unit-inference-ns-gpukit-gateway").urn in gateway.dependencies


def test_the_eks_gateway_is_an_internal_nlb_open_to_the_vpc_only_by_default(eks: Recording) -> None:
    service = eks.one(ENVOY_PROXY).inputs["spec"]["provider"]["kubernetes"]["envoyService"]
    assert service["annotations"] == {
        "service.beta.kubernetes.io/aws-load-balancer-type": "nlb",
        "service.beta.kubernetes.io/aws-load-balancer-internal": "true",
    }
    # Never empty: the in-tree controller opens the nodes' security group to 0.0.0.0/0 for an empty list.
    assert service["loadBalancerSourceRanges"] == [eks_config()["gpukit:cluster"]["network"]["cidr"]]
    listener = eks.one(GATEWAY).inputs["spec"]["listeners"][0]
    assert listener["allowedRoutes"]["namespaces"] == {
        "from": "Selector",
        "selector": {"matchLabels": {"gpukit.dev/gateway": "true"}},
    }


def test_allowed_cidrs_open_an_internet_facing_nlb_to_those_ranges_only() -> None:
    config = eks_config(
        **{
            "gpukit:inference": {
                "enabled": True,
                "gateway": {"allowedCidrs": ["198.51.100.0/24", "10.9.0.0/16"]},
            }
        }
    )
    rec = record(lambda: build(config))
    service = rec.one(ENVOY_PROXY).inputs["spec"]["provider"]["kubernetes"]["envoyService"]
    assert "service.beta.kubernetes.io/aws-load-balancer-internal" not in service["annotations"]
    assert service["loadBalancerSourceRanges"] == ["198.51.100.0/24", "10.9.0.0/16"]


def test_the_gateway_alone_builds_no_store_and_no_keda() -> None:
    config = eks_config(**{"gpukit:inference": {"gateway": {"enabled": True}}})
    rec = record(lambda: build(config))
    assert sorted(releases(rec)) == ["cluster-autoscaler", "envoy-gateway", "gpu-operator"]
    assert len(rec.of_type(HELM_CHART)) == 1
    assert len(rec.of_type(GATEWAY)) == 1


def test_gke_enables_its_own_gateway_with_a_proxy_only_subnet_and_no_crds_of_gpukits(gke: Recording) -> None:
    assert gke.one(GKE).inputs["gatewayApiConfig"] == {"channel": "CHANNEL_STANDARD"}
    assert gke.of_type(HELM_CHART) == [] and "envoy-gateway" not in releases(gke)
    subnets = {s.inputs["name"]: s.inputs for s in gke.of_type("gcp:compute/subnetwork:Subnetwork")}
    proxy = subnets["gke-dev-us-central1-proxy"]
    assert (proxy["purpose"], proxy["role"]) == ("REGIONAL_MANAGED_PROXY", "ACTIVE")
    nodes = subnets["gke-dev-us-central1"]
    assert not ipaddress.ip_network(proxy["ipCidrRange"]).overlaps(ipaddress.ip_network(nodes["ipCidrRange"]))
    for secondary in nodes["secondaryIpRanges"]:
        assert not ipaddress.ip_network(proxy["ipCidrRange"]).overlaps(
            ipaddress.ip_network(secondary["ipCidrRange"])
        )
    firewall = gke.one("gcp:compute/firewall:Firewall", "gke-dev-network-gateway-proxies")
    assert firewall.inputs["sourceRanges"] == [proxy["ipCidrRange"], "35.191.0.0/16", "130.211.0.0/22"]
    assert firewall.inputs["direction"] == "INGRESS"
    (nodes_account,) = [a for a in gke.of_type(GSA) if a.name == "gke-dev-nodes"]
    # The nodes only: their service account's email, not every machine of the network.
    assert len(firewall.inputs["targetServiceAccounts"]) == 1 and nodes_account.urn in firewall.dependencies
    # The cluster outlives the subnet its load balancer's proxies use: GCP keeps a subnet in use.
    (proxy_subnet,) = [
        s for s in gke.of_type("gcp:compute/subnetwork:Subnetwork") if s.name.endswith("-proxy-only")
    ]
    assert proxy_subnet.urn in gke.one(GKE).dependencies
    gateway = gke.one(GATEWAY)
    validate_crd(_object(gateway.inputs))
    assert gateway.inputs["spec"]["gatewayClassName"] == "gke-l7-rilb"  # internal: the VPC only
    # Its CRD is the cluster's: after the system pool, which is after the cluster.
    assert gke.one("gcp:container/nodePool:NodePool", "gke-dev-system-np").urn in gateway.dependencies


SECURITY_POLICY = "kubernetes:gateway.envoyproxy.io/v1alpha1:SecurityPolicy"
SG_INGRESS = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"


def test_k3s_serves_the_gateway_on_a_node_port_held_to_the_vpc_by_envoy_and_the_firewall() -> None:
    config = example_config("k3s-aws")
    config["gpukit:inference"] = {"enabled": True}
    rec = record(lambda: build(config), config=config, region=config["aws:region"])
    proxy, policy, gateway = rec.one(ENVOY_PROXY), rec.one(SECURITY_POLICY), rec.one(GATEWAY)
    for obj in (proxy, policy, gateway):
        validate_crd(_object(obj.inputs))
    service = proxy.inputs["spec"]["provider"]["kubernetes"]["envoyService"]
    assert (service["type"], service["externalTrafficPolicy"]) == (
        "NodePort",
        "Local",
    )  # the client's address
    assert service["patch"]["value"]["spec"]["ports"] == [{"port": 80, "nodePort": 30080}]
    vpc = config["gpukit:cluster"]["network"]["cidr"]
    authorization = policy.inputs["spec"]["authorization"]
    assert authorization["defaultAction"] == "Deny"
    # The VPC, and the cluster's own pods (flannel's range), which reach the Gateway's Service inside.
    assert authorization["rules"][0]["principal"] == {"clientCIDRs": [vpc, "10.42.0.0/16"]}
    assert "name" not in service  # Envoy Gateway's own per-Gateway name: no other Gateway can take it
    assert policy.inputs["spec"]["targetRefs"][0]["name"] == gateway.inputs["metadata"]["name"]
    assert policy.urn in gateway.dependencies  # the proxies never run without it
    # The cloud firewall admits the same range to the node port, on every node's group, and nothing else.
    rules = [r for r in rec.of_type(SG_INGRESS) if r.inputs.get("fromPort") == 30080]
    assert [(r.inputs["cidrIpv4"], r.inputs["toPort"]) for r in rules] == [(vpc, 30080)]
    assert rec.of_type("aws:lb/loadBalancer:LoadBalancer") and "keda" in releases(rec)


def test_k3s_servers_admit_the_add_ons_system_pods_and_only_theirs() -> None:
    """The servers' admission policy (install.sh's manifest) lets gpukit's add-on namespaces tolerate
    the servers' taint, where the store, KEDA and the Gateway's proxies may have to run; without them the
    policy is as before (the servers' user data unchanged)."""
    config = example_config("k3s-aws")
    plain = resolve_config(copy.deepcopy(config))
    assert plain.system_namespaces == ()
    config["gpukit:inference"] = {"enabled": True}
    cluster = resolve_config(config)
    assert cluster.system_namespaces == ("gpukit-monitoring", "keda", "envoy-gateway-system")
    (policy,) = [
        d
        for d in yaml.safe_load_all(server_policy(cluster.system_namespaces))
        if d["kind"] == "ValidatingAdmissionPolicy"
    ]
    excluded = policy["spec"]["matchConstraints"]["namespaceSelector"]["matchExpressions"][0]["values"]
    assert excluded == ["kube-system", "gpu-operator", "gpukit-monitoring", "keda", "envoy-gateway-system"]
    assert server_policy(()) == server_policy()
    # Both ways to k3s pass them on: the cloud machines' first boot, and the hosts' install over SSH.
    assert node_settings(cluster).system_namespaces == cluster.system_namespaces
    own = example_config("k3s-ssh")
    own["gpukit:sshPrivateKey"] = "not-a-real-key"
    rec = record(lambda: build(own, ["gpukit:sshPrivateKey"]))
    (server,) = [r for r in rec.of_type("command:remote:Command") if r.name == "lab-control-192-0-2-10-k3s"]
    assert "envoy-gateway-system" in str(server.inputs["create"])

"""The inference Gateway's pure parts: the values against the pinned Envoy Gateway charts, the objects
against the vendored Gateway API and Envoy Gateway CRDs, each substrate's load balancer and who it
admits, the proxy-only subnet's range, and what the plan says and charges."""

import copy
from typing import Any

import pytest
import yaml
from crd_schemas import ENVOY_GATEWAY as EG_REFERENCE
from crd_schemas import GATEWAY_API as GATEWAY_API_REFERENCE
from crd_schemas import chart_values, validate
from program.test_bad_configs_storage_gke import gke_on_reused_network

from gpukit.components.addons.inference.addon import INFERENCE_ADDON
from gpukit.components.addons.inference.charts import ENVOY_GATEWAY, GATEWAY_CRDS
from gpukit.components.addons.inference.findings import inference_findings
from gpukit.components.addons.inference.gateway_objects import (
    client_policy,
    envoy_gateway_class,
    envoy_proxy,
    gateway,
)
from gpukit.components.addons.inference.report import report_lines
from gpukit.components.addons.inference.settings import inference_settings
from gpukit.components.addons.inference.values import envoy_gateway_values, gateway_crds_values
from gpukit.components.errors import ConfigError
from gpukit.components.findings import Severity
from gpukit.components.resolve.config import resolve_config
from gpukit.components.substrate import ResolvedCluster
from gpukit.providers.aws.eks.inference_variant import EksInference
from gpukit.providers.gcp.gke.inference_variant import GkeInference
from gpukit.providers.gcp.k3s.firewall import firewall_rules
from gpukit.providers.gcp.ranges import overlaps, proxy_only_range, subnet_ranges
from harness import eks_config, example_config, unknown_values

SYSTEM = [{"key": "CriticalAddonsOnly", "operator": "Exists", "effect": "NoSchedule"}]
SSH_KEY = "gpukit:sshPrivateKey"


def with_inference(config: dict[str, Any], **inference: Any) -> ResolvedCluster:
    config["gpukit:inference"] = {"enabled": True, **inference}
    if SSH_KEY in config:
        config[SSH_KEY] = "stand-in key"
    return resolve_config(config, {SSH_KEY})


def test_every_envoy_gateway_value_is_a_key_of_the_pinned_charts() -> None:
    assert unknown_values(envoy_gateway_values(SYSTEM), chart_values(EG_REFERENCE)) == []
    crds_chart = yaml.safe_load((EG_REFERENCE / "crds-values.yaml").read_text())
    assert unknown_values(gateway_crds_values(), crds_chart) == []
    # The charts' defaults gpukit overrides: the experimental Gateway API CRDs, and none at all.
    assert chart_values(EG_REFERENCE)["crds"]["enabled"] is True
    assert crds_chart["crds"]["gatewayAPI"] == {"enabled": False, "channel": "experimental"}


def test_the_charts_are_pinned_to_the_vendored_version() -> None:
    assert ENVOY_GATEWAY.version == GATEWAY_CRDS.version == "v1.9.0"
    assert EG_REFERENCE.name == f"envoy-gateway-{ENVOY_GATEWAY.version}"
    assert "v1.6.1" in GATEWAY_API_REFERENCE.name
    for crd in GATEWAY_API_REFERENCE.glob("gateway.networking.k8s.io_*.yaml"):
        annotations = yaml.safe_load(crd.read_text())["metadata"]["annotations"]
        assert annotations["gateway.networking.k8s.io/bundle-version"] == "v1.6.1"
        assert annotations["gateway.networking.k8s.io/channel"] == "standard"


def test_the_objects_validate_and_a_misspelt_field_is_refused() -> None:
    service = EksInference().envoy_service(with_inference(eks_config()), [])
    for obj in (gateway("envoy-gateway"), envoy_gateway_class(), envoy_proxy(service, SYSTEM)):
        validate(obj)
    bad = gateway("gke-l7-rilb")
    bad["spec"]["listeners"][0]["allowedRoute"] = bad["spec"]["listeners"][0].pop("allowedRoutes")
    try:
        validate(bad)
    except Exception as err:  # jsonschema.ValidationError
        assert "allowedRoute" in str(err)
    else:
        raise AssertionError("a misspelt listener field validated")


def test_the_gateway_admits_routes_only_from_labelled_namespaces() -> None:
    (listener,) = gateway("gke-l7-rilb")["spec"]["listeners"]
    assert (listener["protocol"], listener["port"]) == ("HTTP", 80)
    assert listener["allowedRoutes"]["namespaces"]["from"] == "Selector"


def test_the_eks_load_balancer_is_internal_and_never_empty_of_ranges() -> None:
    new_vpc = with_inference(eks_config())
    variant = EksInference()
    service = variant.envoy_service(new_vpc, [])
    assert service["annotations"]["service.beta.kubernetes.io/aws-load-balancer-internal"] == "true"
    assert service["loadBalancerSourceRanges"] == [new_vpc.spec["network"]["cidr"]]
    config = eks_config()
    config["gpukit:cluster"]["network"] = {
        "vpcId": "vpc-0123456789abcdef0",
        "subnetIds": ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"],
    }
    reused = with_inference(config)
    assert variant.gateway_scope(reused, []).startswith("internal NLB, private address space only")
    assert variant.envoy_service(reused, [])["loadBalancerSourceRanges"] == [
        "10.0.0.0/8",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "100.64.0.0/10",
    ]
    private = variant.envoy_service(new_vpc, ["10.9.0.0/16"])
    assert "service.beta.kubernetes.io/aws-load-balancer-internal" in private["annotations"]
    public = variant.envoy_service(new_vpc, ["0.0.0.0/0"])
    assert "service.beta.kubernetes.io/aws-load-balancer-internal" not in public["annotations"]
    assert variant.gateway_scope(new_vpc, ["0.0.0.0/0"]) == "internet-facing NLB, admitting 0.0.0.0/0"


def test_the_proxy_only_subnet_clears_the_default_ranges_of_every_network_size() -> None:
    for cidr in ("10.0.0.0/16", "10.0.0.0/18", "10.0.0.0/20", "172.20.16.0/20"):
        proxy = proxy_only_range(cidr)
        assert proxy.endswith("/23")
        assert overlaps(subnet_ranges(cidr), proxy) == []
    assert proxy_only_range("10.0.0.0/16") == "10.0.126.0/23"


def test_a_pods_range_over_the_proxy_only_subnet_is_refused_only_with_the_gateway() -> None:
    config = example_config("gke-dev")
    config["gpukit:cluster"]["network"] = {"cidr": "10.0.0.0/16", "podsCidr": "10.0.96.0/19"}
    config.pop("gpukit:inference")  # the example stack's: the network alone is fine
    problem = GkeInference().gateway_network_problem(resolve_config(config).spec)
    assert problem is not None and problem.key == "gpukit:cluster.network"
    assert "10.0.126.0/23" in problem.message and "the pods range" in problem.message
    with pytest.raises(ConfigError, match=r"gpukit:cluster\.network: the inference Gateway's proxy-only"):
        with_inference(copy.deepcopy(config))
    assert not inference_settings(with_inference(config, gateway={"enabled": False})).gateway


def test_one_switch_turns_the_gateway_on_where_it_is_built() -> None:
    assert inference_settings(with_inference(eks_config())).gateway_class == "envoy-gateway"
    assert inference_settings(with_inference(example_config("gke-dev"))).gateway_class == "gke-l7-rilb"
    k3s = inference_settings(with_inference(example_config("k3s-ssh")))
    assert (k3s.gateway, k3s.gateway_class) == (True, "envoy-gateway")
    off = inference_settings(with_inference(eks_config(), gateway={"enabled": False}))
    assert not off.gateway and off.gateway_class == ""


def test_the_report_and_totals_carry_the_gateways_load_balancer() -> None:
    eks = with_inference(eks_config())
    (line,) = [x for x in report_lines(eks, inference_settings(eks)) if x.startswith("  gateway: ")]
    assert "class envoy-gateway" in line and "internal NLB, the VPC only (10.40.0.0/16)" in line
    assert any(
        c.what.startswith("Network Load Balancer (inference gateway") for c in INFERENCE_ADDON.charges(eks)
    )
    gke = with_inference(example_config("gke-dev"))
    charges = {c.what: c.idle for c in INFERENCE_ADDON.charges(gke)}
    assert any(what.startswith("internal Application Load Balancer") for what in charges)
    k3s = with_inference(example_config("k3s-ssh"))
    (k3s_line,) = [x for x in report_lines(k3s, inference_settings(k3s)) if x.startswith("  gateway: ")]
    assert "node port 30080 of the nodes of pool control (192.0.2.10)" in k3s_line
    assert all("gateway" not in c.what for c in INFERENCE_ADDON.charges(k3s))  # no load balancer


def test_a_gateway_open_to_the_internet_is_warned() -> None:
    cluster = with_inference(eks_config(), gateway={"allowedCidrs": ["0.0.0.0/1", "128.0.0.0/1"]})
    found = {f.key: f for f in inference_findings(cluster, inference_settings(cluster))}
    assert found["gpukit:inference.gateway.allowedCidrs"].severity is Severity.WARNING
    mixed = with_inference(eks_config(), gateway={"allowedCidrs": ["198.51.100.0/24", "10.9.0.0/16"]})
    (never,) = [f for f in inference_findings(mixed, inference_settings(mixed)) if "never match" in f.message]
    assert never.message.startswith("10.9.0.0/16 never match")
    quiet = with_inference(eks_config(), gateway={"allowedCidrs": ["198.51.100.0/24"]})
    assert "gpukit:inference.gateway.allowedCidrs" not in {
        f.key for f in inference_findings(quiet, inference_settings(quiet))
    }


def test_a_reused_gke_network_is_told_what_the_gateway_needs() -> None:
    cluster = with_inference(gke_on_reused_network())
    found = {f.key: f for f in inference_findings(cluster, inference_settings(cluster))}
    warning = found["gpukit:inference.gateway"]
    assert warning.severity is Severity.WARNING and "REGIONAL_MANAGED_PROXY" in warning.message


def test_k3s_on_compute_engine_opens_the_node_port_to_the_admitted_ranges_only() -> None:
    rules = {r.name: r for r in firewall_rules([], ["10.50.0.0/16"])}
    gateway = rules["k3s-inference-gateway"]
    assert (gateway.protocol, gateway.ports, gateway.source_ranges) == ("tcp", ("30080",), ("10.50.0.0/16",))
    assert "k3s-inference-gateway" not in {r.name for r in firewall_rules([])}


def test_the_client_policy_admits_the_ranges_and_denies_the_rest() -> None:
    policy = client_policy(["10.0.0.0/8"])
    validate(policy)
    assert policy["spec"]["authorization"] == {
        "defaultAction": "Deny",
        "rules": [
            {"name": "admitted-ranges", "action": "Allow", "principal": {"clientCIDRs": ["10.0.0.0/8"]}}
        ],
    }

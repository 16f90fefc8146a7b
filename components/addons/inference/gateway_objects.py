"""The inference Gateway's objects, as manifests (pure): the Gateway every substrate gets, on the
substrates where gpukit runs Envoy Gateway (EKS, k3s) the GatewayClass and the EnvoyProxy that say
how its proxies and what fronts them are run, and on k3s the client-address policy. Checked against
the vendored CRDs (tests/reference/gateway-api-v1.6.1, envoy-gateway-v1.9.0)."""

from typing import Any

from gpukit.components.addons.inference.gateway_names import (
    CLIENT_POLICY,
    ENVOY_GATEWAY_CLASS,
    ENVOY_GATEWAY_CONTROLLER,
    ENVOY_GATEWAY_NAMESPACE,
    ENVOY_PROXY_CONFIG,
    ENVOY_PROXY_REPLICAS,
    GATEWAY_LISTENER,
    GATEWAY_NAME,
    GATEWAY_NAMESPACE,
    GATEWAY_PORT,
    ROUTES_LABEL,
    ROUTES_LABEL_VALUE,
)
from gpukit.components.admission import MANAGED_LABELS

GATEWAY_API = "gateway.networking.k8s.io/v1"
GATEWAY_AWAIT = "pulumi.com/waitFor"
ENVOY_API = "gateway.envoyproxy.io/v1alpha1"


def gateway(class_name: str) -> dict[str, Any]:
    """One HTTP listener on port 80; routes from the namespaces labelled for it (gateway_names.py).
    No TLS listener: a certificate is the user's (a Secret, or on GKE a Google-managed one), added to
    this Gateway or to one of their own.

    `pulumi up` waits for it to be Programmed (pulumi-kubernetes' `pulumi.com/waitFor`, 4.18+, the
    condition Gateway API implementations set once the data plane is ready and has an address): an
    address never assigned (an NLB or a proxy-only subnet missing) fails the update after the
    provider's default 10 minutes instead of leaving a Gateway nobody can reach."""
    return {
        "apiVersion": GATEWAY_API,
        "kind": "Gateway",
        "metadata": {
            "name": GATEWAY_NAME,
            "namespace": GATEWAY_NAMESPACE,
            "labels": dict(MANAGED_LABELS),
            "annotations": {GATEWAY_AWAIT: "condition=Programmed"},
        },
        "spec": {
            "gatewayClassName": class_name,
            "listeners": [
                {
                    "name": GATEWAY_LISTENER,
                    "protocol": "HTTP",
                    "port": GATEWAY_PORT,
                    "allowedRoutes": {
                        "kinds": [{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute"}],
                        "namespaces": {
                            "from": "Selector",
                            "selector": {"matchLabels": {ROUTES_LABEL: ROUTES_LABEL_VALUE}},
                        },
                    },
                }
            ],
        },
    }


def envoy_gateway_class() -> dict[str, Any]:
    """Envoy Gateway's class, its proxies configured by gpukit's EnvoyProxy."""
    return {
        "apiVersion": GATEWAY_API,
        "kind": "GatewayClass",
        "metadata": {"name": ENVOY_GATEWAY_CLASS, "labels": dict(MANAGED_LABELS)},
        "spec": {
            "controllerName": ENVOY_GATEWAY_CONTROLLER,
            "parametersRef": {
                "group": "gateway.envoyproxy.io",
                "kind": "EnvoyProxy",
                "name": ENVOY_PROXY_CONFIG,
                "namespace": ENVOY_GATEWAY_NAMESPACE,
            },
        },
    }


def envoy_proxy(service: dict[str, Any], system: list[dict[str, str]]) -> dict[str, Any]:
    """How Envoy Gateway runs the Gateway's proxies: `service` is the substrate's load balancer
    (variant.py `envoy_service`); the proxies tolerate the pools without GPUs only, as every system
    pod gpukit runs, so they never hold a GPU node up."""
    return {
        "apiVersion": ENVOY_API,
        "kind": "EnvoyProxy",
        "metadata": {
            "name": ENVOY_PROXY_CONFIG,
            "namespace": ENVOY_GATEWAY_NAMESPACE,
            "labels": dict(MANAGED_LABELS),
        },
        "spec": {
            "provider": {
                "type": "Kubernetes",
                "kubernetes": {
                    "envoyService": service,
                    "envoyDeployment": {
                        "replicas": ENVOY_PROXY_REPLICAS,
                        "pod": {"tolerations": [dict(t) for t in system]},
                    },
                    "envoyPDB": {"minAvailable": ENVOY_PROXY_REPLICAS - 1},
                },
            },
        },
    }


def client_policy(ranges: list[str]) -> dict[str, Any]:
    """Envoy admits a request to the Gateway only from `ranges` (its peer's address: no header is
    trusted for it), every other one gets 403. A policy on a route overrides this one for that route
    (Envoy Gateway's precedence), so creating SecurityPolicies stays with the cluster's operators."""
    return {
        "apiVersion": ENVOY_API,
        "kind": "SecurityPolicy",
        "metadata": {"name": CLIENT_POLICY, "namespace": GATEWAY_NAMESPACE, "labels": dict(MANAGED_LABELS)},
        "spec": {
            "targetRefs": [{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": GATEWAY_NAME}],
            "authorization": {
                "defaultAction": "Deny",
                "rules": [
                    {"name": "admitted-ranges", "action": "Allow", "principal": {"clientCIDRs": ranges}}
                ],
            },
        },
    }

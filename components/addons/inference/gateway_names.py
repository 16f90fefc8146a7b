"""The names gpukit's inference Gateway lives under, and the convention a route follows to attach
(docs/inference.md states it)."""

import hashlib
from dataclasses import dataclass

GATEWAY_NAMESPACE = "gpukit-gateway"
GATEWAY_NAME = "gpukit-inference"
GATEWAY_PORT = 80
GATEWAY_LISTENER = "http"
ROUTES_LABEL = "gpukit.dev/gateway"
ROUTES_LABEL_VALUE = "true"
"""HTTPRoutes attach to the Gateway from namespaces labelled `gpukit.dev/gateway: "true"` only: a
namespace's label is set by whoever administers namespaces, so a team that may only write routes in
its own namespace cannot take another's hostnames or paths on the shared Gateway unless let in."""

ENVOY_GATEWAY_NAMESPACE = "envoy-gateway-system"
"""Envoy Gateway's controller, and the Envoy proxies it runs for each Gateway (its default deploy mode:
proxies in the controller's namespace)."""
ENVOY_GATEWAY_CLASS = "envoy-gateway"
ENVOY_GATEWAY_CONTROLLER = "gateway.envoyproxy.io/gatewayclass-controller"
"""The chart's `config.envoyGateway.gateway.controllerName` default (values.yaml)."""
ENVOY_PROXY_CONFIG = "gpukit-inference"
"""The EnvoyProxy the GatewayClass names: how the proxies and their Service are run."""
GATEWAY_NODE_PORT = 30080
"""k3s: the node port the proxies answer on (the Service's port 80), fixed so that firewalls can name
it; inside the default NodePort range, 30000-32767. The class's EnvoyProxy sets it, so a second Gateway
of the class gets no Service of its own there (the port is taken): add listeners to gpukit's instead.
The Service keeps the name Envoy Gateway generates: a fixed one would be any Gateway of the class's,
its selector following whichever was applied last."""
CLIENT_POLICY = "gpukit-admitted-ranges"
"""k3s: the SecurityPolicy that holds the Gateway to the admitted ranges."""
ENVOY_HASHED_NAME_MAX = 48
"""How much of a Gateway's key Envoy Gateway keeps in its proxies' names (GetHashedName's `length`)."""
ENVOY_PROXY_REPLICAS = 2
"""Two proxies, one disruption allowed: a node drained or replaced under one leaves the other serving."""


def envoy_proxy_service(gateway_namespace: str = GATEWAY_NAMESPACE, gateway_name: str = GATEWAY_NAME) -> str:
    """The name Envoy Gateway v1.9.0 gives a Gateway's proxies' Service (and Deployment) in its own
    namespace: `envoy-` + the Gateway's `<namespace>/<name>` with `/` made `-` (cut to 48 characters)
    + `-` + the first 8 hex digits of that key's SHA-256 (internal/infrastructure/kubernetes/proxy/
    resource.go ExpectedResourceHashedName, internal/utils/misc.go GetHashedName, the key from
    internal/gatewayapi/helpers.go irStringKey): `envoy-gpukit-gateway-gpukit-inference-9c77e548`."""
    key = f"{gateway_namespace}/{gateway_name}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:8]
    name = key.replace("/", "-")
    if len(name) > ENVOY_HASHED_NAME_MAX:
        name = name[:ENVOY_HASHED_NAME_MAX].removesuffix("-")  # Go's TrimSuffix: one only
    return f"envoy-{name}-{digest}"


@dataclass(frozen=True)
class GatewayTarget:
    """Where a pod in the cluster reaches the Gateway's proxies (the inference check's)."""

    host: str
    """A DNS name; empty: the Gateway's own status address, known only once it is programmed (GKE)."""
    port: int

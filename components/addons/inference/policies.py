"""What keeps the metrics store and KEDA's identity to their purpose, as manifests:

- The in-cluster Prometheus and kube-state-metrics answer only gpukit's monitoring and KEDA namespaces
  (a NetworkPolicy, where the CNI enforces one: variant.network_policy_enforced). Prometheus's API
  holds every namespace's series and lists every pod it scrapes; kube-state-metrics lists every
  object's name and labels. (KEDA still queries for whoever may create a ScaledObject: docs say so.)
- Where KEDA queries a managed store as a cloud identity of its own (GKE), a Prometheus trigger that
  authenticates may point only at that store. KEDA's Prometheus scaler sends the operator's token to
  whatever `serverAddress` a trigger names, and any namespace can name the ClusterTriggerAuthentication
  (or a TriggerAuthentication of its own with `podIdentity`): without this policy a tenant who may
  create a ScaledObject could collect a token that reads the project's metrics. A
  ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1, GA in Kubernetes 1.30) refuses it.
"""

from typing import Any

from gpukit.components.addons.inference.names import KEDA_NAMESPACE, MONITORING_NAMESPACE
from gpukit.components.admission import MANAGED_LABELS, admission_policy

ADDRESS_POLICY = "gpukit-keda-trigger-address"
GUARDED_APPS = ("prometheus", "kube-state-metrics")
"""`app.kubernetes.io/name` of the pods the NetworkPolicy guards: the Prometheus Operator's Prometheus
pods and the chart's kube-state-metrics. Not the whole namespace: the API server calls the operator's
admission webhook, from a node's address on k3s, which a namespace selector cannot allow."""


def _namespace(name: str) -> dict[str, Any]:
    return {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": name}}}


def prometheus_network_policy() -> dict[str, Any]:
    """Ingress to Prometheus and kube-state-metrics from `gpukit-monitoring` (Prometheus itself, the
    operator) and `keda` only."""
    selector = {"key": "app.kubernetes.io/name", "operator": "In", "values": list(GUARDED_APPS)}
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {
            "name": "gpukit-prometheus-clients",
            "namespace": MONITORING_NAMESPACE,
            "labels": dict(MANAGED_LABELS),
        },
        "spec": {
            "podSelector": {"matchExpressions": [selector]},
            "policyTypes": ["Ingress"],
            "ingress": [{"from": [_namespace(MONITORING_NAMESPACE), _namespace(KEDA_NAMESPACE)]}],
        },
    }


def trigger_address_rule(store_url: str) -> str:
    """The CEL rule: every Prometheus trigger that authenticates queries `store_url` (or below it)."""
    address = "t.metadata.serverAddress"
    return (
        "object.spec.triggers.all(t, t.type != 'prometheus' || !has(t.authenticationRef) || "
        f"(has(t.metadata) && has({address}) && "
        f"({address} == '{store_url}' || {address}.startsWith('{store_url}/'))))"
    )


def trigger_address_policy(store_url: str) -> list[dict[str, Any]]:
    """The ValidatingAdmissionPolicy and its binding, for ScaledObjects and ScaledJobs everywhere."""
    policy, binding = admission_policy(
        ADDRESS_POLICY,
        {"apiGroups": ["keda.sh"], "apiVersions": ["*"], "resources": ["scaledobjects", "scaledjobs"]},
        trigger_address_rule(store_url),
        "a prometheus trigger that authenticates (authenticationRef) must query the cluster's metrics "
        f"store, {store_url}: KEDA sends its cloud identity's token to that address",
    )
    return [policy, binding]

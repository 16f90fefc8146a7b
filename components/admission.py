"""ValidatingAdmissionPolicies, as pure manifests: gpukit's rules that Pod Security cannot say
(no pod outside the system namespaces on k3s servers; no inline NFS volumes). The API is GA since
Kubernetes 1.30, older than every minor gpukit supports."""

from collections.abc import Sequence
from typing import Any

MANAGED_LABELS = {"app.kubernetes.io/managed-by": "gpukit"}
"""What gpukit's own in-cluster objects carry (policies, StorageClasses), so `kubectl get -l` finds them."""


def admission_policy(
    name: str,
    resource_rule: dict[str, Any],
    expression: str,
    message: str,
    namespace_selector: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A policy that refuses objects of `resource_rule` (created or updated) for which CEL `expression`
    is false, in the namespaces `namespace_selector` selects (every one where None), and its Deny
    binding. failurePolicy Fail: a policy that cannot be evaluated refuses rather than lets one through."""
    # Keys in the order gpukit has always written them: the manifests land in k3s servers' user data,
    # which a reordering would change (and so replace the servers).
    rule = {
        "apiGroups": resource_rule["apiGroups"],
        "apiVersions": resource_rule["apiVersions"],
        "operations": ["CREATE", "UPDATE"],
        "resources": resource_rule["resources"],
    }
    constraints: dict[str, Any] = {"resourceRules": [rule]}
    if namespace_selector is not None:
        constraints["namespaceSelector"] = namespace_selector
    policy = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name, "labels": dict(MANAGED_LABELS)},
        "spec": {
            "failurePolicy": "Fail",
            "matchConstraints": constraints,
            "validations": [{"expression": expression, "message": message}],
        },
    }
    binding = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": name, "labels": dict(MANAGED_LABELS)},
        "spec": {"policyName": name, "validationActions": ["Deny"]},
    }
    return policy, binding


def pod_policy(
    name: str, namespaces: Sequence[dict[str, Any]], expression: str, message: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A policy that refuses pods for which CEL `expression` is false, in the namespaces the
    `namespaces` match expressions select, and its Deny binding (admission_policy)."""
    return admission_policy(
        name,
        {"apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]},
        expression,
        message,
        {"matchExpressions": [dict(e) for e in namespaces]},
    )


def not_in_namespaces(names: Sequence[str]) -> dict[str, Any]:
    """The match expression for every namespace but `names`."""
    return {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": list(names)}

"""ValidatingAdmissionPolicies on pods, as pure manifests: gpukit's rules that Pod Security cannot say
(no pod outside the system namespaces on k3s servers; no inline NFS volumes). The API is GA since
Kubernetes 1.30, older than every minor gpukit supports."""

from collections.abc import Sequence
from typing import Any

MANAGED_LABELS = {"app.kubernetes.io/managed-by": "gpukit"}
"""What gpukit's own in-cluster objects carry (policies, StorageClasses), so `kubectl get -l` finds them."""


def pod_policy(
    name: str, namespaces: Sequence[dict[str, Any]], expression: str, message: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A policy that refuses pods (created or updated) for which CEL `expression` is false, in the
    namespaces the `namespaces` match expressions select, and its Deny binding. failurePolicy Fail: a
    policy that cannot be evaluated refuses rather than lets a pod through."""
    policy = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name, "labels": dict(MANAGED_LABELS)},
        "spec": {
            "failurePolicy": "Fail",
            "matchConstraints": {
                "resourceRules": [
                    {
                        "apiGroups": [""],
                        "apiVersions": ["v1"],
                        "operations": ["CREATE", "UPDATE"],
                        "resources": ["pods"],
                    }
                ],
                "namespaceSelector": {"matchExpressions": [dict(e) for e in namespaces]},
            },
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


def not_in_namespaces(names: Sequence[str]) -> dict[str, Any]:
    """The match expression for every namespace but `names`."""
    return {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": list(names)}

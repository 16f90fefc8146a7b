"""Pod Security Admission's namespace labels (kubernetes.io/docs/concepts/security/pod-security-admission,
"Pod Security Admission labels for namespaces"), as a pure function."""

from gpukit.components.spec import PodSecurityLevel

ENFORCE_LABEL = "pod-security.kubernetes.io/enforce"


def pod_security_labels(enforce: PodSecurityLevel) -> dict[str, str]:
    """Enforce `enforce`; audit and warn against `restricted` either way, as k3s's default does."""
    return {
        ENFORCE_LABEL: enforce.value,
        "pod-security.kubernetes.io/audit": PodSecurityLevel.RESTRICTED.value,
        "pod-security.kubernetes.io/warn": PodSecurityLevel.RESTRICTED.value,
    }

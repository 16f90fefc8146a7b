"""The namespaces the inference add-on creates, as manifests."""

from typing import Any

from gpukit.components.admission import MANAGED_LABELS
from gpukit.components.pod_security_labels import pod_security_labels
from gpukit.components.spec import PodSecurityLevel


def namespace(name: str) -> dict[str, Any]:
    """Baseline enforced (audit and warn at restricted): nothing gpukit runs here needs the host (the
    node exporter, which would, is off: values.py), and a pod that asks for it is refused."""
    labels = {**MANAGED_LABELS, **pod_security_labels(PodSecurityLevel.BASELINE)}
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}

"""The names the batch add-on installs under, and the Kubernetes name rules its config keys follow."""

import re

KUEUE_NAMESPACE = "kueue-system"
TRAINER_NAMESPACE = "kubeflow-system"
QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_CLASS_LABEL = "kueue.x-k8s.io/priority-class"

OTHER_GPUKIT_NAMESPACES = ("gpu-operator", "gpukit-verify", "gpukit-verify-hostipc")
GANG_CHECK_NAMESPACE = "gpukit-verify-gang"
"""Namespaces other add-ons create (tests/unit/test_batch.py holds this to their constants): a team
namespace of the same name would be created twice."""
RESERVED_NAMESPACES = frozenset(
    {KUEUE_NAMESPACE, TRAINER_NAMESPACE, GANG_CHECK_NAMESPACE, *OTHER_GPUKIT_NAMESPACES}
)
EXISTING_NAMESPACES = frozenset({"default"})
"""Namespaces every cluster has: a queue may use them, and gpukit does not create them."""

DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
DNS_LABEL_MAX = 63


def dns_label_problem(value: str) -> str | None:
    """Why `value` is no RFC 1123 label (Kubernetes namespace and object names), or None."""
    if not DNS_LABEL.fullmatch(value):
        return (
            "must be lowercase letters, digits and '-', starting and ending with a letter or digit "
            f"(an RFC 1123 label); got {value!r}"
        )
    if len(value) > DNS_LABEL_MAX:
        return f"must be at most {DNS_LABEL_MAX} characters; got {len(value)} ({value!r})"
    return None


def flavor_name(pool: str) -> str:
    """The ResourceFlavor of a GPU pool (pool names are at most 24 characters of [a-z0-9-])."""
    return f"pool-{pool}"

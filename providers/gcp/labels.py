"""Google Cloud labels: what gpukit puts on every resource of a cluster, and the rules a label must meet.

`cluster.tags` become labels on GKE and k3s on Compute Engine (the provider's default labels, and the
node VMs' `resource_labels`, which default labels do not reach), so a tag Google would refuse must be
refused here, before anything is built.

Rules (Resource Manager "Requirements for labels", as restated in the Google API references, e.g.
googleapis Retail v2 `labels` and Spanner v1 `Instance.labels`): at most 64 labels per resource; keys
1-63 characters, starting with a lowercase letter, of lowercase letters, digits, `_` and `-`; values
0-63 characters of the same. Google also admits international lowercase letters; gpukit takes ASCII
only, which every API accepts.
"""

import re

from gpukit.components.ephemeral import EXPIRY_TAG, expiry_label
from gpukit.components.errors import Problem
from gpukit.components.spec import ClusterSpec

LABEL_KEY = re.compile(r"[a-z][a-z0-9_-]{0,62}")
LABEL_VALUE = re.compile(r"[a-z0-9_-]{0,63}")
MAX_LABELS = 64

CLUSTER_LABEL = "gpukit-cluster"
MANAGED_BY_LABEL = "managed-by"
POOL_LABEL = "gpukit-pool"
ROLE_LABEL = "gpukit-role"
EXPIRES_LABEL = EXPIRY_TAG
# gpukit's own keys: on every resource (cluster, managed-by; expires-at on an ephemeral stack's), and
# on k3s machines (pool, role).
GPUKIT_LABELS = (CLUSTER_LABEL, MANAGED_BY_LABEL, POOL_LABEL, ROLE_LABEL, EXPIRES_LABEL)
MAX_USER_LABELS = MAX_LABELS - len(GPUKIT_LABELS)

TAGS_KEY = "gpukit:cluster.tags"


def expiry_labels(spec: ClusterSpec) -> dict[str, str]:
    """An ephemeral stack's expiry label; nothing for an ordinary stack."""
    return {EXPIRES_LABEL: expiry_label(spec["expires_at"])} if "expires_at" in spec else {}


def cluster_labels(spec: ClusterSpec) -> dict[str, str]:
    """What every Google Cloud resource of the cluster is labelled with: its cluster, gpukit, the
    user's `tags` (validated: never one of gpukit's own keys), and an ephemeral stack's expiry."""
    return {
        **spec.get("tags", {}),
        CLUSTER_LABEL: spec["name"],
        MANAGED_BY_LABEL: "gpukit",
        **expiry_labels(spec),
    }


def validate_gcp_labels(cluster: ClusterSpec, problems: list[Problem]) -> None:
    """`tags` on Google Cloud: each a valid label that does not replace one of gpukit's own, and few
    enough that every resource stays within Google's 64."""
    tags = cluster.get("tags", {})
    for key, value in tags.items():
        where = f"{TAGS_KEY}.{key}"
        if key in GPUKIT_LABELS:
            problems.append(Problem(where, f"{key!r} is a label gpukit sets itself; use another key"))
        elif not LABEL_KEY.fullmatch(key):
            problems.append(
                Problem(
                    where,
                    "must be a Google Cloud label key: 1-63 characters, a lowercase letter first, then "
                    f"lowercase letters, digits, '_' or '-'; got {key!r}",
                )
            )
        if not isinstance(value, str) or not LABEL_VALUE.fullmatch(value):
            problems.append(
                Problem(
                    where,
                    "must be a Google Cloud label value: at most 63 lowercase letters, digits, '_' or '-'; "
                    f"got {value!r}",
                )
            )
    if len(tags) > MAX_USER_LABELS:
        problems.append(
            Problem(
                TAGS_KEY,
                f"at most {MAX_USER_LABELS} tags on Google Cloud (a resource takes {MAX_LABELS} labels and "
                f"gpukit sets up to {len(GPUKIT_LABELS)} itself); got {len(tags)}",
            )
        )

"""`gpukit:cluster.tags` on AWS: the user's tags go on every resource that takes tags (the provider's
default tags, providers/aws/provider.py), beside gpukit's own, so each must be one AWS accepts and none
may replace one of gpukit's.

AWS tag rules (AWS Tagging docs, "Tag restrictions", e.g. docs.aws.amazon.com/batch/latest/userguide/
tag-restrictions.html and the shared Tag type of the AWS SDKs): at most 50 tags per resource; keys 1 to
128 Unicode characters, values 0 to 256; "letters, numbers, and spaces representable in UTF-8, and the
following characters: + - = . _ : / @"; keys and values must not start with `aws:` in any case (reserved
for AWS).
"""

import re

from gpukit.components.errors import Problem

TAGS_KEY = "gpukit:cluster.tags"
MAX_TAGS_PER_RESOURCE = 50
MAX_KEY_LENGTH, MAX_VALUE_LENGTH = 128, 256
# \w: Unicode letters, digits and `_`; then space and + - = . : / @ (AWS's "generally allowed" set).
_ALLOWED = re.compile(r"[\w +\-=.:/@]*")

GPUKIT_TAG_KEYS = frozenset({"gpukit:cluster", "managed-by", "gpukit:pool", "Name", "gpukit-expires-at"})
"""Tags gpukit sets itself: on every resource (gpukit:cluster, managed-by; gpukit-expires-at on an
ephemeral stack's, components/ephemeral.py) or on some (Name, gpukit:pool)."""
GPUKIT_TAG_PREFIXES = (
    "gpukit:",  # gpukit's own namespace: IAM conditions read gpukit:cluster
    "kubernetes.io/cluster/",  # subnet discovery by load balancer controllers
    "kubernetes.io/role/",
    "k8s.io/cluster-autoscaler/",  # Cluster Autoscaler discovery and scale-from-zero templates
)
GPUKIT_TAGS_MAX = 6
"""The most tags gpukit itself puts on one resource that also gets the user's: a subnet carries
gpukit:cluster, managed-by, Name, kubernetes.io/cluster/<name> and kubernetes.io/role/..., and on an
ephemeral stack gpukit-expires-at (counted over
the example stacks' plans by tests/program/test_bad_configs_validation.py
test_gpukit_sets_at_most_its_budget_of_tags_beside_the_users, which fails when gpukit adds more)."""
MAX_USER_TAGS = MAX_TAGS_PER_RESOURCE - GPUKIT_TAGS_MAX


def _reserved(key: str) -> str | None:
    """Why `key` is not the user's to set, or None."""
    if key.lower().startswith("aws:"):
        return "the aws: prefix is reserved for AWS (in any case)"
    if key in GPUKIT_TAG_KEYS or key.startswith(GPUKIT_TAG_PREFIXES):
        return (
            "gpukit sets this tag itself (yours would replace it, and IAM conditions and autoscaler "
            "discovery read it)"
        )
    return None


def tag_problems(tags: dict[str, str]) -> list[Problem]:
    """Every problem with the user's tags, each naming `gpukit:cluster.tags.<key>`."""
    problems: list[Problem] = []
    if len(tags) > MAX_USER_TAGS:
        problems.append(
            Problem(
                TAGS_KEY,
                f"holds {len(tags)} tags: at most {MAX_USER_TAGS} (AWS takes {MAX_TAGS_PER_RESOURCE} per "
                f"resource and gpukit sets up to {GPUKIT_TAGS_MAX} of its own)",
            )
        )
    for key, value in tags.items():
        where = f"{TAGS_KEY}.{key}"
        why = _reserved(key)
        if why is not None:
            problems.append(Problem(where, f"the key {key!r} is refused: {why}"))
        if not 1 <= len(key) <= MAX_KEY_LENGTH or not _ALLOWED.fullmatch(key):
            problems.append(Problem(where, f"the key must be 1-{MAX_KEY_LENGTH} {_CHARACTERS}; got {key!r}"))
        if len(value) > MAX_VALUE_LENGTH or not _ALLOWED.fullmatch(value):
            problems.append(
                Problem(where, f"the value must be 0-{MAX_VALUE_LENGTH} {_CHARACTERS}; got {value!r}")
            )
        elif value.lower().startswith("aws:"):
            problems.append(
                Problem(where, f"the value must not start with aws: (reserved for AWS); got {value!r}")
            )
    return problems


_CHARACTERS = "characters: letters, digits, spaces and + - = . _ : / @ (AWS tag restrictions)"

"""The name of an ephemeral stack, which is also its cluster's name.

One name for both: `gpukit ephemeral list` shows what `kubectl config` and the cloud console show, and
two copies of one source stack in one account never share a cluster name (the random suffix), so
neither takes over the other's resources.

- Pulumi stack names: 1-100 characters of letters, digits, `_`, `.` and `-` (pulumi/pulumi
  sdk/go/common/tokens, validateStackName: `^[A-Za-z0-9_.-]{1,100}$`).
- gpukit cluster names: lowercase letters, digits and `-`, a letter first, at most CLUSTER_NAME_MAX
  (32) characters (components/resolve/validation.py); every cloud name gpukit composes from a cluster
  name fits its cloud's limit for names up to that length (components/names.py, checked by the plan
  fakes; tests/component/test_ephemeral_tags.py plans a longest ephemeral name on every cloud).

So: `eph-<source>-<yymmddhhmm UTC>-<4 random>`, the source cut to what leaves room (12 characters).
"""

import re
import secrets
import string
from datetime import UTC, datetime

from gpukit.components.resolve.validation import CLUSTER_NAME_MAX
from gpukit.components.validate.common import NAME_RE

PREFIX = "eph-"
STAMP_FORMAT = "%y%m%d%H%M"
SUFFIX_LENGTH = 4
_SUFFIX_ALPHABET = string.ascii_lowercase + string.digits
# "eph-" + source + "-" + 10-digit stamp + "-" + suffix
SOURCE_ROOM = CLUSTER_NAME_MAX - len(PREFIX) - 1 - 10 - 1 - SUFFIX_LENGTH
PULUMI_STACK_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")


def random_suffix() -> str:
    return "".join(secrets.choice(_SUFFIX_ALPHABET) for _ in range(SUFFIX_LENGTH))


def source_slug(source: str) -> str:
    """A source stack's name (or stack file's stem) as lowercase letters, digits and single `-`,
    cut to SOURCE_ROOM characters; `stack` where nothing usable is left."""
    slug = re.sub(r"[^a-z0-9]+", "-", source.lower()).strip("-")[:SOURCE_ROOM].strip("-")
    return slug or "stack"


def ephemeral_name(source: str, now: datetime, suffix: str) -> str:
    """`eph-eks-dev-2612011530-x7k2`: a valid Pulumi stack name and a valid gpukit cluster name."""
    if len(suffix) != SUFFIX_LENGTH or not all(c in _SUFFIX_ALPHABET for c in suffix):
        raise ValueError(f"the suffix must be {SUFFIX_LENGTH} lowercase letters or digits; got {suffix!r}")
    name = f"{PREFIX}{source_slug(source)}-{now.astimezone(UTC).strftime(STAMP_FORMAT)}-{suffix}"
    assert is_valid_name(name), name
    return name


def is_valid_name(name: str) -> bool:
    """Both a Pulumi stack name and a gpukit cluster name."""
    return (
        len(name) <= CLUSTER_NAME_MAX
        and NAME_RE.fullmatch(name) is not None
        and PULUMI_STACK_NAME.fullmatch(name) is not None
    )


def is_ephemeral(name: str) -> bool:
    """A stack `gpukit ephemeral up` made (the ones `list` and `reap` look at)."""
    return name.startswith(PREFIX) and is_valid_name(name)

"""The expiry of an ephemeral stack (`gpukit ephemeral up --ttl`): how the config holds it and how
every cloud resource carries it, so that a cluster whose creator vanished (a killed CI runner) can still
be found and destroyed by `gpukit ephemeral reap` or by a person looking at the cloud console.

`gpukit:ephemeral.expiresAt` is RFC 3339 in UTC with whole seconds (`2026-12-01T15:30:00Z`, RFC 3339
section 5.6 `date-time` with the `Z` offset). On the resources it becomes the tag/label
`gpukit-expires-at` with a value both clouds accept: Google Cloud label values take lowercase letters,
digits, `_` and `-` only, at most 63 characters (Resource Manager "Requirements for labels", see
providers/gcp/labels.py), and AWS tag values take letters, digits, spaces and `+ - = . _ : / @`
(providers/aws/tags.py), so the value is `20261201t1530z`: the UTC minute, lowercase.
"""

import re
from datetime import UTC, datetime

EXPIRES_AT_KEY = "gpukit:ephemeral.expiresAt"
EXPIRY_TAG = "gpukit-expires-at"
"""The tag (AWS) and label (Google Cloud) key: a valid label key (a lowercase letter first, then
lowercase letters, digits, `_`, `-`), and outside the `gpukit:` tag prefix users may not set."""

RFC3339_UTC = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
LABEL_FORMAT = "%Y%m%dt%H%Mz"


def parse_expiry(text: object) -> datetime | None:
    """The UTC instant `text` names, or None where it is not `YYYY-MM-DDTHH:MM:SSZ` or no real date."""
    if not isinstance(text, str) or not RFC3339_UTC.fullmatch(text):
        return None
    try:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:  # 2026-02-30T00:00:00Z has the shape but is no date
        return None


def format_expiry(when: datetime) -> str:
    """`when` as the config key holds it (RFC 3339, UTC, whole seconds)."""
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def expiry_label(expires_at: str) -> str:
    """The tag/label value of a valid `expiresAt`: `2026-12-01T15:30:00Z` -> `20261201t1530z`."""
    when = parse_expiry(expires_at)
    if when is None:
        raise ValueError(f"not an RFC 3339 UTC time (YYYY-MM-DDTHH:MM:SSZ): {expires_at!r}")
    return when.strftime(LABEL_FORMAT)


def expiry_problem(value: object) -> str | None:
    """Why `value` is not a valid `expiresAt`, or None."""
    if parse_expiry(value) is None:
        return f"must be an RFC 3339 time in UTC with whole seconds, e.g. 2026-12-01T15:30:00Z; got {value!r}"
    return None

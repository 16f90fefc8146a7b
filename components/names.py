"""Cloud resource names composed from the cluster's and pools' names, fitted to a cloud's length limit.

Validation caps the cluster name (32) and pool names (24); most names gpukit composes from them fit
their cloud's limit as they are, and stay exactly as they are. Where one could be too long (a Google
service account id holds 30 characters), the name is cut short and a hash of the whole name takes the
place of what was cut: two clusters whose names share a long beginning still get different names, which
plain truncation would make equal (and the second cluster would take over, or fail on, the first's).
"""

import hashlib

HASH_LENGTH = 6
"""Hex characters of the hash: 16.7 million values, for the handful of names one project holds."""


def fit_name(head: str, tail: str, limit: int) -> str:
    """`head + tail` when it has at most `limit` characters. Otherwise `head` cut short, `-`, a hash of
    the whole name, then `tail` unchanged (the part that tells the names of one family apart:
    `-nodes`, `-0-internal`): `research-gpu-cluster-us-east-01` + `-nodes` in 30 characters is
    `research-gpu-clus-f15de6-nodes`.

    The result starts as `head` does and ends as `tail` does (or with the hash, for an empty tail), so
    a head and tail that are valid in a name's character set give a valid name.
    """
    name = head + tail
    if len(name) <= limit:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:HASH_LENGTH]
    room = limit - len(tail) - len(digest) - 1
    if room < 1:
        raise ValueError(f"no room for {head!r} in {limit} characters before {tail!r}")
    return f"{head[:room].rstrip('-')}-{digest}{tail}"

"""k3s node names and API URLs from host addresses."""

import re

from gpukit.components.catalog.k3s import ARCHES, K3S_VERSIONS, binary_sha256, k3s_minor, k3s_version_for
from gpukit.components.k3s.names import node_name, url_host


def test_node_names_are_stable_valid_and_fold_case() -> None:
    assert node_name("l40s", "192.0.2.11") == "l40s-192-0-2-11"
    assert node_name("l40s", "GPU1.Lab.Example") == "l40s-gpu1-lab-example"
    assert node_name("l40s", "2001:db8::10") == "l40s-2001-db8-10"
    long = node_name("pool", "a" * 100 + ".example")
    assert len(long) <= 63 and not long.endswith("-")


def test_ipv6_addresses_are_bracketed_in_urls() -> None:
    assert url_host("192.0.2.10") == "192.0.2.10"
    assert url_host("k3s.lab.example") == "k3s.lab.example"
    assert url_host("2001:db8::10") == "[2001:db8::10]"


def test_pinned_k3s_versions_match_their_minor() -> None:
    for minor, version in K3S_VERSIONS.items():
        assert k3s_minor(version) == minor
        assert version.endswith("+k3s1")
    assert k3s_version_for("1.35") == K3S_VERSIONS["1.35"]
    assert k3s_version_for("1.35", "v1.35.9+k3s1") == "v1.35.9+k3s1"


def test_every_default_release_has_pinned_sums_for_both_architectures() -> None:
    """Issue 29, point 21: a stack on Kubernetes 1.34 or 1.35 needed a hand-given SHA-256; every
    release gpukit installs by default now carries its sums, and an unpinned one still needs the stack's."""
    for version in K3S_VERSIONS.values():
        for arch in ARCHES:
            digest = binary_sha256(version, arch)
            assert digest is not None and re.fullmatch(r"[0-9a-f]{64}", digest), (version, arch)
    assert binary_sha256("v1.35.9+k3s1", "amd64") is None

"""k3s node names and API URLs from host addresses."""

from gpukit.components.catalog.k3s import K3S_VERSIONS, k3s_minor, k3s_version_for
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

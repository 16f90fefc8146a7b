"""Internal vs internet-facing API endpoints, from apiAccessCidrs."""

import pytest

from gpukit.components.api_access import is_internal, needs_public_endpoint, public_cidrs


@pytest.mark.parametrize(
    ("cidr", "internal"),
    [
        ("10.0.0.0/8", True),
        ("10.20.30.0/24", True),
        ("172.16.0.0/12", True),
        ("172.32.0.0/16", False),  # just outside 172.16.0.0/12
        ("192.168.1.0/24", True),
        ("100.64.0.0/10", True),  # shared address space (CGNAT), used by VPNs
        ("203.0.113.0/24", False),  # documentation range: Python calls it private; gpukit does not
        ("8.8.8.0/24", False),
        ("0.0.0.0/0", False),
        ("10.0.0.0/7", False),  # wider than 10/8: reaches public space
        ("not-a-cidr", False),
    ],
)
def test_internal_ranges(cidr: str, internal: bool) -> None:
    assert is_internal(cidr) is internal


def test_an_empty_list_keeps_the_endpoint_internal() -> None:
    assert needs_public_endpoint([]) is False
    assert needs_public_endpoint(["10.0.0.0/8", "192.168.0.0/16"]) is False


def test_one_public_range_makes_it_internet_facing() -> None:
    cidrs = ["10.0.0.0/8", "203.0.113.0/24"]
    assert needs_public_endpoint(cidrs) is True
    assert public_cidrs(cidrs) == ["203.0.113.0/24"]

"""Internal vs internet-facing API endpoints, from apiAccessCidrs."""

import ipaddress

import pytest

from gpukit.components.api_access import (
    covers_public_internet,
    is_internal,
    needs_public_endpoint,
    public_cidrs,
)


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


@pytest.mark.parametrize(
    "cidrs",
    [
        ["0.0.0.0/0"],
        ["0.0.0.0/1", "128.0.0.0/1"],  # the whole space in two halves
        ["0.0.0.0/2", "64.0.0.0/2", "128.0.0.0/2", "192.0.0.0/2"],
        # Everything but 10.0.0.0/8: still every public address.
        [
            "0.0.0.0/5",
            "8.0.0.0/7",
            "11.0.0.0/8",
            "12.0.0.0/6",
            "16.0.0.0/4",
            "32.0.0.0/3",
            "64.0.0.0/2",
            "128.0.0.0/1",
        ],
        ["203.0.113.0/24", "0.0.0.0/0"],  # one range is enough
        ["0.0.0.0/1", "128.0.0.0/2", "192.0.0.0/3"],  # only 224.0.0.0/3 left out: multicast and reserved
    ],
)
def test_whole_internet_is_detected_however_it_is_written(cidrs: list[str]) -> None:
    assert covers_public_internet(cidrs) is True


@pytest.mark.parametrize(
    "cidrs",
    [
        [],
        ["203.0.113.0/24"],
        ["0.0.0.0/1"],  # half the internet is not all of it
        ["0.0.0.0/1", "128.0.0.0/2"],  # 192.0.0.0 to 223.255.255.255 left out: public space
        ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"],
        ["not-a-cidr", "::/0"],  # malformed and IPv6 ranges are the config checks' business
    ],
)
def test_ranges_that_leave_public_addresses_out_are_not_the_whole_internet(cidrs: list[str]) -> None:
    assert covers_public_internet(cidrs) is False


def test_the_whole_internet_less_one_public_address_is_not_the_whole_internet() -> None:
    everything = ipaddress.IPv4Network("0.0.0.0/0")
    missing = ipaddress.IPv4Network("8.8.8.8/32")
    rest = [str(n) for n in everything.address_exclude(missing)]
    assert covers_public_internet(rest) is False
    assert covers_public_internet([*rest, "8.8.8.8/32"]) is True

"""The address plan of a new VPC: private and public subnets per zone, inside the VPC, disjoint."""

import ipaddress
import itertools

import pytest

from gpukit.providers.aws.subnets import subnet_layout

ZONES = ["us-west-2a", "us-west-2b", "us-west-2c", "us-west-2d", "us-west-2e", "us-west-2f", "us-west-2g"]


def test_a_zone_keeps_its_subnets_when_the_zone_set_changes():
    """Adding d and dropping b must not move c's subnets: EC2 refuses a range another subnet holds."""
    region = ["us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d", "us-east-1e", "us-east-1f"]
    before = {z.zone: z for z in subnet_layout("10.40.0.0/16", region[:3], region)}
    after = {
        z.zone: z for z in subnet_layout("10.40.0.0/16", ["us-east-1a", "us-east-1c", "us-east-1d"], region)
    }
    assert after["us-east-1a"] == before["us-east-1a"]
    assert after["us-east-1c"] == before["us-east-1c"]
    assert after["us-east-1d"].private_cidr == "10.40.96.0/19"


def test_the_first_zones_by_name_keep_the_slots_they_always_had_whatever_their_letters():
    """ap-northeast-1 has a, c and d: a VPC on them is laid out as before zones had fixed slots."""
    region = ["ap-northeast-1a", "ap-northeast-1c", "ap-northeast-1d"]
    layout = subnet_layout("10.40.0.0/16", region, region)
    assert [z.private_cidr for z in layout] == ["10.40.0.0/19", "10.40.32.0/19", "10.40.64.0/19"]


def test_a_zone_past_the_sixth_or_outside_the_region_has_no_slot():
    region = [f"us-east-1{letter}" for letter in "abcdefg"]
    with pytest.raises(ValueError, match="zone number 7"):
        subnet_layout("10.40.0.0/16", ["us-east-1a", "us-east-1g"], region)
    with pytest.raises(ValueError, match="not among the region's zones"):
        subnet_layout("10.40.0.0/16", ["us-west-2a"], region)


def test_slash_16_with_three_zones():
    layout = subnet_layout("10.40.0.0/16", ZONES[:3], ZONES)
    assert [z.zone for z in layout] == ZONES[:3]
    assert [z.private_cidr for z in layout] == ["10.40.0.0/19", "10.40.32.0/19", "10.40.64.0/19"]
    assert [z.public_cidr for z in layout] == ["10.40.224.0/22", "10.40.228.0/22", "10.40.232.0/22"]


def test_slash_20_gives_slash_23_private_and_slash_26_public():
    layout = subnet_layout("10.0.16.0/20", ZONES[:2], ZONES)
    assert [z.private_cidr for z in layout] == ["10.0.16.0/23", "10.0.18.0/23"]
    assert [z.public_cidr for z in layout] == ["10.0.30.0/26", "10.0.30.64/26"]


@pytest.mark.parametrize("prefix", range(16, 21))
@pytest.mark.parametrize("zone_count", range(2, 7))
def test_subnets_are_disjoint_and_inside_the_vpc(prefix, zone_count):
    vpc = ipaddress.IPv4Network(f"10.64.0.0/{prefix}")
    layout = subnet_layout(str(vpc), ZONES[:zone_count], ZONES)
    assert len(layout) == zone_count
    subnets = [ipaddress.IPv4Network(c) for z in layout for c in (z.private_cidr, z.public_cidr)]
    assert len(subnets) == 2 * zone_count
    for subnet in subnets:
        assert subnet.subnet_of(vpc), f"{subnet} outside {vpc}"
    for a, b in itertools.combinations(subnets, 2):
        assert not a.overlaps(b), f"{a} overlaps {b}"


@pytest.mark.parametrize("prefix", range(16, 21))
def test_private_subnets_are_an_eighth_and_public_a_sixty_fourth(prefix):
    layout = subnet_layout(f"172.16.0.0/{prefix}", ZONES[:3], ZONES)
    for zone in layout:
        assert ipaddress.IPv4Network(zone.private_cidr).prefixlen == prefix + 3
        assert ipaddress.IPv4Network(zone.public_cidr).prefixlen == prefix + 6


@pytest.mark.parametrize("zone_count", [0, 7])  # 7 zones: one more than there are slots
def test_zone_count_out_of_range_raises(zone_count):
    with pytest.raises(ValueError, match="zones"):
        subnet_layout("10.40.0.0/16", ZONES[:zone_count], ZONES)

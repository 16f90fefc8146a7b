"""EKS zones, scaling and principals as pure functions: no Pulumi."""

import pytest

from gpukit.components.spec import Provider
from gpukit.providers.aws.autoscaling import ACCELERATOR_LABEL, accelerator_label
from gpukit.providers.aws.eks.scaling import current_desired_size, scaling
from gpukit.providers.aws.eks.zone_groups import ZoneError, group_plans
from gpukit.providers.aws.offerings import (
    AZ_ID_PREFIXES,
    AZ_ID_RE,
    pick_vpc_zones,
    split_evenly,
    zones_not_offering,
)
from gpukit.providers.aws.validation import principal_is_caller
from harness import pool_facts

ZONES = [
    ("us-east-1a", "use1-az2"),
    ("us-east-1b", "use1-az3"),
    ("us-east-1c", "use1-az4"),
    ("us-east-1d", "use1-az1"),
]


@pytest.mark.parametrize(
    ("total", "parts", "split"), [(8, 2, [4, 4]), (5, 2, [3, 2]), (0, 3, [0, 0, 0]), (2, 3, [1, 1, 0])]
)
def test_split_evenly_sums_to_the_total(total: int, parts: int, split: list[int]) -> None:
    assert split_evenly(total, parts) == split
    assert sum(split) == total


def test_min_never_exceeds_max_in_any_group() -> None:
    for parts in range(1, 5):
        for high in range(parts, 12):
            for low in range(high + 1):
                assert all(
                    a <= b for a, b in zip(split_evenly(low, parts), split_evenly(high, parts), strict=True)
                )


def test_vpc_zones_without_pins_are_the_first_by_name_as_before() -> None:
    assert pick_vpc_zones(ZONES, 3, []) == ZONES[:3]


def test_vpc_zones_include_every_pinned_zone() -> None:
    picked = pick_vpc_zones(ZONES, 3, ["use1-az1"])  # the AZ ID the account names us-east-1d
    assert ("us-east-1d", "use1-az1") in picked
    assert len(picked) == 3
    assert picked == sorted(picked)


def test_a_pinned_zone_the_account_lacks_is_left_out() -> None:
    assert "use1-az6" not in {z for _, z in pick_vpc_zones(ZONES, 2, ["use1-az6"])}


@pytest.mark.parametrize(
    ("current", "desired", "owned"),
    [(None, 2, True), (0, 2, False), (3, 3, True), (9, 5, False)],
)
def test_scaling_sets_desired_only_when_the_bounds_move_past_it(
    current: int | None, desired: int, owned: bool
) -> None:
    result = scaling(2, 5, current)
    assert (result.min_size, result.max_size, result.desired_size) == (2, 5, desired)
    assert result.autoscaler_owns_desired is owned


def test_current_size_is_matched_by_the_groups_whole_name() -> None:
    sizes = {"l4-usw2-az1-20260101000000000000000001": 3, "l4-usw2-az10-20260101000000000000000002": 7}
    assert current_desired_size("l4-usw2-az1-", sizes) == 3
    assert current_desired_size("l4-", sizes) is None  # a prefix of another group's name is not it
    assert current_desired_size("system-", sizes) is None


def l4(**extra: object):
    return pool_facts(
        {"name": "l4", "instance_type": "g6.xlarge", "min_nodes": 1, "max_nodes": 5, **extra}, Provider.AWS
    )


def test_a_gpu_pool_is_one_group_per_zone_with_its_share() -> None:
    plans = group_plans(
        1, l4(zones=["usw2-az1", "usw2-az3"]), "us-west-2", ["usw2-az1", "usw2-az2", "usw2-az3"]
    )
    assert [(p.name_prefix, p.zone_ids, p.min_size, p.max_size) for p in plans] == [
        ("l4-usw2-az1-", ("usw2-az1",), 1, 3),
        ("l4-usw2-az3-", ("usw2-az3",), 0, 2),
    ]


def test_a_cpu_pool_stays_one_group() -> None:
    system = pool_facts(
        {"name": "system", "instance_type": "m7i.large", "min_nodes": 1, "max_nodes": 3}, Provider.AWS
    )
    (plan,) = group_plans(0, system, "us-west-2", ["usw2-az1", "usw2-az2"])
    assert (plan.resource_suffix, plan.name_prefix, plan.zone_ids) == ("", "system-", ())


def test_a_pinned_zone_without_a_subnet_names_the_key() -> None:
    with pytest.raises(
        ZoneError, match=r"gpukit:nodePools\[1\]\.zones\[1\]: the VPC has no private subnet in usw2-az4"
    ):
        group_plans(1, l4(zones=["usw2-az1", "usw2-az4"]), "us-west-2", ["usw2-az1", "usw2-az2"])


def test_accelerator_label_uses_the_autoscalers_names() -> None:
    assert accelerator_label(l4()) == {ACCELERATOR_LABEL: "nvidia-l4"}
    t4 = pool_facts(
        {"name": "t4", "instance_type": "g4dn.xlarge", "min_nodes": 0, "max_nodes": 1}, Provider.AWS
    )
    assert t4.labels[ACCELERATOR_LABEL] == "nvidia-tesla-t4"
    system = pool_facts(
        {"name": "s", "instance_type": "m7i.large", "min_nodes": 1, "max_nodes": 1}, Provider.AWS
    )
    assert ACCELERATOR_LABEL not in system.labels


def test_every_known_region_prefix_makes_valid_az_ids() -> None:
    for prefix in AZ_ID_PREFIXES.values():
        match = AZ_ID_RE.fullmatch(f"{prefix}-az1")
        assert match is not None
        assert match["prefix"] == prefix


@pytest.mark.parametrize(
    ("principal", "caller", "same"),
    [
        ("arn:aws:iam::123456789012:user/ci", "arn:aws:iam::123456789012:user/ci", True),
        (
            "arn:aws:iam::123456789012:role/team/deployer",
            "arn:aws:sts::123456789012:assumed-role/deployer/s1",
            True,
        ),
        (
            "arn:aws:iam::123456789012:role/deployer",
            "arn:aws:sts::210987654321:assumed-role/deployer/s1",
            False,
        ),
        (
            "arn:aws:iam::123456789012:user/deployer",
            "arn:aws:sts::123456789012:assumed-role/deployer/s1",
            False,
        ),
        ("arn:aws:iam::123456789012:role/ops", "arn:aws:iam::123456789012:user/ci", False),
    ],
)
def test_the_deployer_is_recognised_through_an_assumed_role(principal: str, caller: str, same: bool) -> None:
    assert principal_is_caller(principal, caller) is same


def test_zones_not_offering_names_each_zone_and_type_ec2_does_not_offer() -> None:
    offered = {"p5.48xlarge": {"use1-az4"}, "p5en.48xlarge": {"use1-az4", "use1-az6"}}
    assert zones_not_offering(["p5.48xlarge", "p5en.48xlarge"], ("use1-az4", "use1-az6"), offered) == [
        ("use1-az6", "p5.48xlarge")
    ]
    assert zones_not_offering(["g6.xlarge"], ("use1-az1",), offered) == [("use1-az1", "g6.xlarge")]
    assert zones_not_offering(["p5.48xlarge"], ("use1-az4",), offered) == []

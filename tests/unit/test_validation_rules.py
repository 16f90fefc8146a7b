"""The rules validation enforces on values, as pure functions: one-line strings, CIDRs, provider limits,
AWS tags, and the sourced region and zone lists."""

import re
from pathlib import Path

import pytest

from gpukit.components.config.parse import text_problem
from gpukit.components.errors import Problem, printable
from gpukit.components.validate.common import check_cidr, check_cidr_list
from gpukit.components.validate.limits import Limit, list_size_problem, node_count_problem
from gpukit.providers.aws.limits import EKS_LIMITS
from gpukit.providers.aws.regions import AWS_REGIONS
from gpukit.providers.aws.tags import GPUKIT_TAGS_MAX, MAX_USER_TAGS, tag_problems
from gpukit.providers.gcp.catalog import ACCELERATOR_ZONES, region_zones
from gpukit.providers.gcp.limits import GKE_LIMITS
from gpukit.providers.gcp.regions import GCP_REGION_ZONES, GCP_ZONES
from harness import ROOT

KEY = "gpukit:cluster.apiAccessCidrs[0]"


def _cidr(text: str) -> list[Problem]:
    problems: list[Problem] = []
    check_cidr(KEY, text, problems)
    return problems


# --- one-line strings ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("eks-dev\n", "has a trailing newline"),  # a YAML `>` or `|` block
        ("eks-dev\r\n", "has a trailing newline"),
        (" eks-dev", "whitespace around it"),
        ("eks-dev\t", "whitespace around it"),
        ("eks\ndev", "without control characters"),
        ("eks\x00dev", "without control characters"),
    ],
)
def test_strings_with_newlines_whitespace_or_control_characters_are_refused(text: str, fragment: str) -> None:
    problem = text_problem("gpukit:cluster.name", text)
    assert problem is not None and problem.key == "gpukit:cluster.name"
    assert fragment in problem.message and repr(text) in problem.message


@pytest.mark.parametrize("text", ["eks-dev", "a b", "ssh-ed25519 AAAAC3Nza host", "", "Ünïcode"])
def test_one_line_strings_pass(text: str) -> None:
    assert text_problem("gpukit:cluster.name", text) is None


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("a\x1b]52;c;SGVsbG8=\x07b", "a\\x1b]52;c;SGVsbG8=\\x07b"),  # OSC 52: writes the clipboard
        ("a\nb\r\tc", "a\\nb\\r\\tc"),
        ("a\x7f\x85\x9bb", "a\\x7f\\x85\\x9bb"),  # DEL and C1 (0x9b: a one-byte CSI)
        ("\u202eevil\u202c \u2066x\u2069", "\\u202eevil\\u202c \\u2066x\\u2069"),  # bidi
        ("a\u2028b", "a\\u2028b"),  # a line separator
        ("Ünïcode 'ok' \\ (fine)", "Ünïcode 'ok' \\ (fine)"),
    ],
)
def test_problem_text_is_shown_with_its_control_and_bidi_characters_escaped(text: str, shown: str) -> None:
    assert printable(text) == shown
    assert str(Problem(f"gpukit:cluster.{text}", text)) == f"gpukit:cluster.{shown}: {shown}"


# --- CIDRs -----------------------------------------------------------------------------------------


def test_a_bare_address_is_refused_with_a_slash_32_hint() -> None:
    [problem] = _cidr("203.0.113.5")
    assert problem.key == KEY and "write 203.0.113.5/32" in problem.message


def test_host_bits_are_refused_naming_the_network() -> None:
    [problem] = _cidr("10.0.0.1/16")
    assert "has host bits set: the network it lies in is 10.0.0.0/16" in problem.message


def test_ipv6_is_refused_deliberately() -> None:
    [problem] = _cidr("2001:db8::/32")
    assert "IPv4-only" in problem.message


@pytest.mark.parametrize("text", ["office", "10.0.0.0/33", "10.0.0.0/8\n", "300.0.0.0/8", ""])
def test_malformed_cidrs_are_refused(text: str) -> None:
    assert len(_cidr(text)) == 1


def test_a_well_formed_cidr_passes() -> None:
    problems: list[Problem] = []
    assert str(check_cidr(KEY, "203.0.113.0/24", problems)) == "203.0.113.0/24" and problems == []


def test_a_range_listed_twice_is_refused_at_its_second_place() -> None:
    problems: list[Problem] = []
    check_cidr_list(
        "gpukit:cluster.apiAccessCidrs", ["203.0.113.0/24", "10.0.0.0/8", "203.0.113.0/24"], problems
    )
    assert [p.key for p in problems] == ["gpukit:cluster.apiAccessCidrs[2]"]
    assert "already listed at gpukit:cluster.apiAccessCidrs[0]" in problems[0].message


# --- provider limits -------------------------------------------------------------------------------


def test_node_counts_are_checked_against_the_limit_of_one_group() -> None:
    limit = Limit(450, "nodes per managed node group", "EKS service quotas", adjustable=True)
    assert node_count_problem("k", 450, limit) is None
    problem = node_count_problem("gpukit:nodePools[1].maxNodes", 451, limit)
    assert problem is not None and problem.key == "gpukit:nodePools[1].maxNodes"
    assert "must be at most 450" in problem.message and "got 451" in problem.message
    assert "EKS service quotas" in problem.message and "default quota" in problem.message


def test_node_counts_spread_over_zones_get_the_limit_of_each() -> None:
    limit = GKE_LIMITS.nodes_per_pool_zone
    assert node_count_problem("k", 3000, limit, groups=3) is None
    problem = node_count_problem("k", 3001, limit, groups=3)
    assert problem is not None and "3 zones x 1000 = 3000" in problem.message


def test_no_limit_means_nothing_is_enforced() -> None:
    assert node_count_problem("k", 10**6, None) is None
    assert list_size_problem("k", ["x"] * 1000, None) is None


def test_access_lists_are_checked_against_the_provider_limit() -> None:
    eks, gke = EKS_LIMITS.api_access_cidrs, GKE_LIMITS.api_access_cidrs
    assert eks is not None and gke is not None and (eks.most, gke.most) == (40, 50)
    assert list_size_problem("k", ["x"] * 40, eks) is None
    problem = list_size_problem("k", ["x"] * 41, eks)
    assert problem is not None and "holds 41 ranges: at most 40 public access CIDR ranges" in problem.message


# --- AWS tags --------------------------------------------------------------------------------------


def _tag_keys(tags: dict[str, str]) -> list[str]:
    return [p.key for p in tag_problems(tags)]


@pytest.mark.parametrize("key", ["aws:team", "AWS:team", "Aws:Team"])
def test_the_aws_prefix_is_refused_in_any_case(key: str) -> None:
    problems = tag_problems({key: "ml"})
    assert [p.key for p in problems] == [f"gpukit:cluster.tags.{key}"]
    assert "reserved for AWS" in problems[0].message


@pytest.mark.parametrize(
    "key", ["gpukit:cluster", "managed-by", "Name", "gpukit:pool", "gpukit:owner", "kubernetes.io/cluster/x"]
)
def test_keys_gpukit_sets_itself_are_refused(key: str) -> None:
    problems = tag_problems({key: "x"})
    assert len(problems) == 1 and "gpukit sets this tag itself" in problems[0].message


def test_tag_lengths_and_characters_follow_aws() -> None:
    assert _tag_keys({"k" * 128: "v" * 256}) == []
    assert _tag_keys({"k" * 129: "v"}) == [f"gpukit:cluster.tags.{'k' * 129}"]
    assert _tag_keys({"team": "v" * 257}) == ["gpukit:cluster.tags.team"]
    assert _tag_keys({"cost center": "ML/Research @ HQ+1=2_3.4:5-6"}) == []
    assert _tag_keys({"team": "a,b"}) == ["gpukit:cluster.tags.team"]
    assert _tag_keys({"team#1": "x"}) == ["gpukit:cluster.tags.team#1"]
    assert _tag_keys({"team": ""}) == []  # AWS takes empty values


def test_at_most_50_tags_counting_gpukits_own() -> None:
    assert MAX_USER_TAGS == 50 - GPUKIT_TAGS_MAX
    assert tag_problems({f"t{i}": "v" for i in range(MAX_USER_TAGS)}) == []
    problems = tag_problems({f"t{i}": "v" for i in range(MAX_USER_TAGS + 1)})
    assert [p.key for p in problems] == ["gpukit:cluster.tags"]
    assert f"at most {MAX_USER_TAGS}" in problems[0].message


# --- regions and zones -----------------------------------------------------------------------------


def test_the_aws_regions_are_the_commercial_partition() -> None:
    assert {"us-east-1", "us-west-2", "eu-central-1", "ap-southeast-7", "mx-central-1"} <= AWS_REGIONS
    assert not {r for r in AWS_REGIONS if r.startswith(("cn-", "us-gov-", "us-iso"))}
    assert all(re.fullmatch(r"[a-z]{2}-[a-z]+-\d", r) for r in AWS_REGIONS)


def test_every_zone_the_accelerator_table_names_is_a_zone_of_its_region() -> None:
    for regions in ACCELERATOR_ZONES.values():
        for region, letters in regions.items():
            assert {f"{region}-{letter}" for letter in letters} <= set(GCP_REGION_ZONES[region]), region


def test_gcp_zones_belong_to_their_region() -> None:
    for region, zones in GCP_REGION_ZONES.items():
        assert zones and all(re.fullmatch(rf"{re.escape(region)}-[a-z]", z) for z in zones)
    assert region_zones("us-central1") == ["us-central1-a", "us-central1-b", "us-central1-c", "us-central1-f"]
    assert region_zones("europe-west1") == ["europe-west1-b", "europe-west1-c", "europe-west1-d"]
    assert region_zones("us-centrall1") == []
    assert "us-central1-f" in GCP_ZONES


# --- full-string matching --------------------------------------------------------------------------

SOURCES = sorted(p for d in ("components", "providers", "gpukit") for p in (ROOT / d).rglob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_patterns_match_whole_strings(path: Path) -> None:
    """`re.match`/`.match(` and `$` let `name\\n` through; every check uses fullmatch (or search on a
    pattern of forbidden characters)."""
    text = path.read_text()
    assert not re.search(r"\bre\.match\(|\w\.match\(", text), path
    compiled = re.findall(r"re\.compile\(\s*r?[\"'](.*?)[\"']\s*[,)]", text)
    assert not [p for p in compiled if p.endswith("$")], path


def test_a_tag_value_with_a_newline_is_refused_by_the_aws_rules() -> None:
    """Maps are checked whole by their substrate (parse leaves them to it): AWS refuses the newline."""
    assert _tag_keys({"team": "ml\n"}) == ["gpukit:cluster.tags.team"]
    assert _tag_keys({"team\n": "ml"}) == ["gpukit:cluster.tags.team\n"]

"""The pure parts of `gpukit ephemeral`: names, ttl, the expiry's tag value, the list's text."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from gpukit.components.ephemeral import expiry_label, format_expiry, parse_expiry
from gpukit.components.validate.common import NAME_RE
from gpukit.ephemeral.guard import PlannedCost
from gpukit.ephemeral.lifecycle import EphemeralStack, lock_recovery
from gpukit.ephemeral.names import PULUMI_STACK_NAME, ephemeral_name, is_ephemeral, source_slug
from gpukit.ephemeral.render import age_text, list_document, render_list
from gpukit.ephemeral.ttl import TtlError, parse_ttl
from gpukit.ephemeral.workspace import EphemeralHome, shown_url
from gpukit.providers.aws.tags import _ALLOWED as AWS_TAG_CHARACTERS
from gpukit.providers.gcp.labels import LABEL_KEY, LABEL_VALUE

NOW = datetime(2026, 12, 1, 11, 30, 5, tzinfo=UTC)


@pytest.mark.parametrize(
    ("source", "name"),
    [
        ("eks-dev", "eph-eks-dev-2612011130-x7k2"),
        ("Pulumi.My_Team Stack", "eph-pulumi-my-te-2612011130-x7k2"),
        ("---", "eph-stack-2612011130-x7k2"),
        ("researchteamstack", "eph-researchteam-2612011130-x7k2"),
    ],
)
def test_names_are_stack_names_and_cluster_names(source: str, name: str) -> None:
    got = ephemeral_name(source, NOW, "x7k2")
    assert got == name
    assert len(got) <= 32 and NAME_RE.fullmatch(got) and PULUMI_STACK_NAME.fullmatch(got)
    assert is_ephemeral(got) and not is_ephemeral("eks-dev") and not is_ephemeral("eph-UPPER")
    assert len(source_slug("x" * 80)) == 12


def test_a_bad_suffix_is_refused() -> None:
    with pytest.raises(ValueError, match="suffix"):
        ephemeral_name("eks-dev", NOW, "X7K2")


@pytest.mark.parametrize(
    ("text", "ttl"),
    [
        ("30m", timedelta(minutes=30)),
        ("90m", timedelta(minutes=90)),
        ("4h", timedelta(hours=4)),
        ("7d", timedelta(days=7)),
    ],
)
def test_ttl(text: str, ttl: timedelta) -> None:
    assert parse_ttl(text) == ttl


@pytest.mark.parametrize("text", ["4", "4 h", "1.5h", "5m", "29m", "8d", "4h\n", "-4h"])
def test_bad_ttl(text: str) -> None:
    with pytest.raises(TtlError):
        parse_ttl(text)


def test_a_ttl_under_half_an_hour_is_refused_naming_the_bounds() -> None:
    """A cluster can take 20 minutes to come up: with less it could be reaped while `up` still runs."""
    with pytest.raises(TtlError, match="between 30m and 7d; got '20m'"):
        parse_ttl("20m")


@pytest.mark.parametrize(
    ("version", "backend", "refused"),
    [
        ("3.210.1", None, True),
        ("v3.210.0", "s3://bucket/prefix", True),
        ("3.211.0", None, False),
        ("v3.272.0", "gs://bucket", False),
        ("3.300.0-alpha.1", None, False),
        ("3.100.0", "https://api.pulumi.com", False),  # Pulumi Cloud keeps stack tags with any CLI
        ("not-a-version", None, True),
    ],
)
def test_a_pulumi_cli_that_drops_stack_tags_on_diy_backends_is_refused(
    version: str, backend: str | None, refused: bool, tmp_path: Path
) -> None:
    from gpukit.ephemeral.workspace import EphemeralHome, pulumi_version_problem

    problem = pulumi_version_problem(version, EphemeralHome(tmp_path, backend))
    assert (problem is not None) == refused
    if problem is not None and version != "not-a-version":
        assert "3.211.0 or later" in problem and "pulumi/pulumi#19882" in problem


def test_the_expiry_tag_value_is_legal_on_aws_and_google_cloud() -> None:
    assert format_expiry(NOW) == "2026-12-01T11:30:05Z"
    assert parse_expiry("2026-12-01T11:30:05Z") == NOW
    value = expiry_label("2026-12-01T11:30:05Z")
    assert value == "20261201t1130z"
    assert LABEL_VALUE.fullmatch(value) and LABEL_KEY.fullmatch("gpukit-expires-at")
    assert AWS_TAG_CHARACTERS.fullmatch(value) and AWS_TAG_CHARACTERS.fullmatch("gpukit-expires-at")
    for bad in ("2026-12-01T11:30:05+00:00", "2026-12-01T11:30:05.1Z", "2026-13-01T00:00:00Z", 20261201):
        assert parse_expiry(bad) is None


def test_age_text() -> None:
    assert [age_text(timedelta(minutes=m)) for m in (0, 12, 125, 3 * 1440 + 250)] == [
        "0m",
        "12m",
        "2h05m",
        "3d4h",
    ]


def test_the_list_text_and_json() -> None:
    stacks = [
        EphemeralStack(
            "eph-eks-dev-2612011130-x7k2",
            "eks-dev",
            NOW - timedelta(hours=2, minutes=5),
            NOW + timedelta(hours=2),
            PlannedCost(0.246, 6.68, False),
        ),
        EphemeralStack("eph-gke-dev-2611301130-ab12", "gke-dev", None, NOW - timedelta(days=1), None),
    ]
    assert render_list(stacks, NOW) == (
        "NAME                         FROM     AGE    EXPIRES (UTC)         EXPIRED  $/h IDLE  $/h MAX\n"
        "eph-eks-dev-2612011130-x7k2  eks-dev  2h05m  2026-12-01T13:30:05Z  no       $0.25     $6.68\n"
        "eph-gke-dev-2611301130-ab12  gke-dev  ?      2026-11-30T11:30:05Z  yes      -         -\n"
        "\n"
        "$/h: list prices from the offline plan of each stack's config ('-': no local config to plan)\n"
    )
    doc = list_document(stacks, NOW)
    assert doc[0]["ageSeconds"] == 7500 and doc[0]["expired"] is False and doc[0]["hourlyCostMax"] == 6.68
    assert doc[1]["expired"] is True and doc[1]["hourlyCostIdle"] is None
    assert render_list([], NOW) == "no ephemeral stacks\n"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://ci:s3cr3t@pulumi.example.com/org", "https://***@pulumi.example.com/org"),
        ("https://s3cr3t@pulumi.example.com", "https://***@pulumi.example.com"),
        ("https://ci:pa/s3cr3t@pulumi.example.com", "https://***@pulumi.example.com"),  # '/' unencoded
        ("https://ci:pa?s3cr3t@pulumi.example.com", "https://***@pulumi.example.com"),  # '?' unencoded
        ("s3://state?region=eu-west-1&secret_key=s3cr3t", "s3://state?***"),
        ("azblob://state?storage_account=acct&sig=s3cr3t#frag", "azblob://state?***"),
        ("gs://state/prefix#s3cr3t", "gs://state/prefix"),
        ("ci:s3cr3t@host", "***@host"),  # no scheme
        ("s3://my-state/ephemeral", "s3://my-state/ephemeral"),
        ("https://api.pulumi.com", "https://api.pulumi.com"),
        ("file:///home/me/.gpukit/ephemeral/backend", "file:///home/me/.gpukit/ephemeral/backend"),
        ("https://[::1", "https://[::1"),  # what urllib.parse raises on
    ],
)
def test_a_backend_url_is_shown_without_its_credentials(url: str, shown: str) -> None:
    assert shown_url(url) == shown


def test_the_way_out_of_a_locked_stack_never_prints_the_backends_credentials(tmp_path: Path) -> None:
    home = EphemeralHome(tmp_path, "https://ci:s3cr3t@pulumi.example.com?token=s3cr3t")
    text = lock_recovery(home, "eph-x")
    assert "s3cr3t" not in text
    assert "PULUMI_BACKEND_URL=https://***@pulumi.example.com?***" in text
    assert "gpukit ephemeral down eph-x --backend https://***@pulumi.example.com?***" in text

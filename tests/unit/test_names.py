"""Names composed to fit a cloud's limit: unchanged while they fit, cut and hashed (never cut alone)
when they do not, so two long names never become one."""

import re

import pytest

from gpukit.components.k3s.names import node_name
from gpukit.components.names import fit_name
from gpukit.components.spec import NodeRole
from gpukit.providers.gcp.gke.iam import node_service_account_id
from gpukit.providers.gcp.k3s.iam import account_id

ACCOUNT_ID = re.compile(r"[a-z][-a-z0-9]{4,28}[a-z0-9]")  # IAM API serviceAccounts.create accountId
DNS_LABEL = re.compile(r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?")


def test_a_name_that_fits_is_left_as_it_is() -> None:
    assert fit_name("ml-dev", "-nodes", 30) == "ml-dev-nodes"
    assert fit_name("a" * 24, "-nodes", 30) == "a" * 24 + "-nodes"


def test_a_name_too_long_is_cut_and_hashed_and_keeps_its_tail() -> None:
    name = fit_name("a" * 40, "-0-internal", 63)
    assert name == fit_name("a" * 40, "-0-internal", 63)  # stable from run to run
    fitted = fit_name("research-gpu-cluster-us-east-01", "-nodes", 30)
    assert len(fitted) == 30
    assert fitted.startswith("research-gpu-clus") and fitted.endswith("-nodes")
    assert re.fullmatch(r"research-gpu-clus-[0-9a-f]{6}-nodes", fitted)


def test_names_that_differ_only_past_the_cut_stay_different() -> None:
    first, second = "research-gpu-cluster-eu-west-01", "research-gpu-cluster-eu-west-02"
    assert fit_name(first, "-nodes", 30) != fit_name(second, "-nodes", 30)
    assert first[:24] == second[:24]  # what cutting alone kept: the same account for both clusters


def test_a_tail_that_leaves_no_room_is_an_error() -> None:
    with pytest.raises(ValueError, match="no room"):
        fit_name("cluster", "-" + "x" * 25, 30)


@pytest.mark.parametrize("role", list(NodeRole))
def test_service_account_ids_of_long_cluster_names_fit_and_differ(role: NodeRole) -> None:
    names = ["a" + "b" * 31, "a" + "b" * 30 + "c"]  # 32 characters, the longest cluster name
    ids = {account_id(n, role) for n in names} | {node_service_account_id(n) for n in names}
    assert len(ids) == 4
    for found in ids:
        assert ACCOUNT_ID.fullmatch(found), found
    assert account_id("ml-dev", role) == f"ml-dev-k3s-{role.value}"


def test_node_names_of_long_addresses_fit_and_differ() -> None:
    base = "gpu-host." + "rack" * 15 + ".lab.example"
    first, second = node_name("p" * 24, base + ".one"), node_name("p" * 24, base + ".two")
    assert first != second
    for name in (first, second):
        assert DNS_LABEL.fullmatch(name) and len(name) <= 63, name
    assert node_name("l40s", "192.0.2.11") == "l40s-192-0-2-11"

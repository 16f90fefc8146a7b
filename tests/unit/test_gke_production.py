"""GKE production settings as pure functions: labels from tags, exactly one default StorageClass,
gVNIC and compact placement per machine, the GKE service agent and the APIs a stack enables."""

import pytest

from gpukit.components.errors import Problem
from gpukit.components.spec import ClusterSpec
from gpukit.providers.gcp.apis import GKE_APIS, K3S_GCE_APIS, service_resource_name
from gpukit.providers.gcp.catalog import GCP_MACHINE_TYPES, requires_gvnic
from gpukit.providers.gcp.gke.compact_placement import compact_pool_zones, supports_compact_placement
from gpukit.providers.gcp.gke.secrets_key import gke_service_agent
from gpukit.providers.gcp.gke.storage import (
    GKE_SHIPPED_STORAGE_CLASSES,
    ShippedStorageClass,
    classes_to_undefault,
    default_classes,
    storage_summary,
)
from gpukit.providers.gcp.kms import ROTATION_PERIOD
from gpukit.providers.gcp.labels import MAX_USER_LABELS, cluster_labels, validate_gcp_labels


def spec(**values: object) -> ClusterSpec:
    base = {"name": "gke-dev", "region": "us-central1", "kubernetes_version": "1.35", "network": {}}
    return ClusterSpec(**{**base, **values})  # type: ignore[typeddict-item]


def label_problems(tags: dict[str, str]) -> list[str]:
    problems: list[Problem] = []
    validate_gcp_labels(spec(tags=tags), problems)
    return [str(p) for p in problems]


def test_tags_join_gpukits_own_labels() -> None:
    assert cluster_labels(spec(tags={"team": "ml"})) == {
        "team": "ml",
        "gpukit-cluster": "gke-dev",
        "managed-by": "gpukit",
    }


@pytest.mark.parametrize(
    "tags",
    [{"team": "ml"}, {"a": ""}, {"cost_center": "cc-42"}, {"k" + "x" * 62: "v" * 63}],
)
def test_valid_label_tags_pass(tags: dict[str, str]) -> None:
    assert label_problems(tags) == []


@pytest.mark.parametrize(
    ("tags", "fragment"),
    [
        ({"Team": "ml"}, "must be a Google Cloud label key"),
        ({"1team": "ml"}, "must be a Google Cloud label key"),
        ({"team": "ML"}, "must be a Google Cloud label value"),
        ({"team": "ml\n"}, "must be a Google Cloud label value"),  # a folded YAML scalar
        ({"k" + "x" * 63: "v"}, "must be a Google Cloud label key"),
        ({"team": "v" * 64}, "must be a Google Cloud label value"),
        ({"gpukit-cluster": "other"}, "a label gpukit sets itself"),
    ],
)
def test_label_tags_google_refuses_are_refused(tags: dict[str, str], fragment: str) -> None:
    (problem,) = label_problems(tags)
    assert problem.startswith(f"gpukit:cluster.tags.{next(iter(tags))}: ")
    assert fragment in problem


def test_too_many_tags_leave_no_room_for_gpukits_labels() -> None:
    tags = {f"t{i}": "x" for i in range(MAX_USER_LABELS + 1)}
    assert label_problems(tags) == [
        f"gpukit:cluster.tags: at most {MAX_USER_LABELS} tags on Google Cloud (a resource takes 64 labels "
        f"and gpukit sets up to 5 itself); got {MAX_USER_LABELS + 1}"
    ]
    assert label_problems(dict(list(tags.items())[:MAX_USER_LABELS])) == []


def test_a_planned_gke_cluster_has_exactly_one_default_storage_class() -> None:
    patched = classes_to_undefault(GKE_SHIPPED_STORAGE_CLASSES)
    assert patched == ["standard-rwo"]
    assert default_classes(
        {"pd-balanced": True, "hyperdisk-balanced": False}, GKE_SHIPPED_STORAGE_CLASSES, patched
    ) == ["pd-balanced"]


def test_the_check_sees_a_second_default() -> None:
    """Without the patch GKE's standard-rwo would be a second default."""
    assert default_classes({"pd-balanced": True}, GKE_SHIPPED_STORAGE_CLASSES, []) == [
        "pd-balanced",
        "standard-rwo",
    ]


def test_a_reconciled_default_cannot_be_patched_away() -> None:
    reconciled = (ShippedStorageClass("standard", "kubernetes.io/gce-pd", True, "Reconcile"),)
    with pytest.raises(ValueError, match="add-on manager"):
        classes_to_undefault(reconciled)


def test_storage_summary_names_the_one_default_and_the_patch() -> None:
    text = storage_summary({"pd-balanced": True}, ["standard-rwo"], hyperdisk=False)
    assert text.startswith("pd-balanced (")
    assert "the only default; GKE's standard-rwo set to non-default" in text


@pytest.mark.parametrize(
    ("machine", "gvnic"),
    [
        ("a3-highgpu-8g", True),
        ("a3-megagpu-8g", True),
        ("a3-ultragpu-8g", True),
        ("a4-highgpu-8g", True),
        ("g4-standard-48", True),
        ("g2-standard-8", False),
        ("a2-highgpu-1g", False),
        ("n1-standard-8", False),
        ("e2-standard-4", False),
    ],
)
def test_gvnic_only_machines(machine: str, gvnic: bool) -> None:
    assert requires_gvnic(GCP_MACHINE_TYPES[machine]) is gvnic


@pytest.mark.parametrize(
    ("machine", "attached", "supported"),
    [
        ("a3-highgpu-8g", None, True),
        ("a3-megagpu-8g", None, True),
        ("a2-ultragpu-8g", None, True),
        ("g2-standard-8", None, True),
        ("n2-standard-4", None, True),
        ("a3-ultragpu-8g", None, False),  # H200: not in GKE's list
        ("a4-highgpu-8g", None, False),
        ("g4-standard-48", None, False),
        ("e2-standard-4", None, False),
        ("n1-standard-8", "nvidia-tesla-t4", False),
    ],
)
def test_compact_placement_machines(machine: str, attached: str | None, supported: bool) -> None:
    assert supports_compact_placement(GCP_MACHINE_TYPES[machine], attached) is supported


def test_compact_pool_zones_follow_the_pool_placement() -> None:
    regional = spec()
    assert compact_pool_zones(regional, {"name": "p", "zones": ["us-central1-a"]}, "nvidia-l4") == [
        "us-central1-a"
    ]
    assert compact_pool_zones(regional, {"name": "p"}, "nvidia-l4") == [
        "us-central1-a",
        "us-central1-b",
        "us-central1-c",
    ]
    assert compact_pool_zones(regional, {"name": "p"}, None) == []
    assert compact_pool_zones(spec(zone="us-central1-b"), {"name": "p"}, None) == ["us-central1-b"]


def test_gke_service_agent_and_rotation() -> None:
    assert (
        gke_service_agent("42") == "serviceAccount:service-42@container-engine-robot.iam.gserviceaccount.com"
    )
    assert ROTATION_PERIOD == "7776000s"


def test_apis_each_stack_enables() -> None:
    assert {"container.googleapis.com", "compute.googleapis.com", "cloudkms.googleapis.com"} <= set(GKE_APIS)
    assert "container.googleapis.com" not in K3S_GCE_APIS
    assert "compute.googleapis.com" in K3S_GCE_APIS
    assert service_resource_name("gke-dev", "cloudkms.googleapis.com") == "gke-dev-api-cloudkms"

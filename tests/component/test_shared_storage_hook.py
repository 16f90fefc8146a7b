"""The storage add-on, apart from any cloud: the storage variant a fake substrate declares (it builds efs)
gets the validated, planned volumes after its cluster exists, and the plan reports them."""

from collections.abc import Iterator
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest

from gpukit.components import GpuCluster, SubstrateRegistry
from gpukit.components.addons.base import BuildContext
from gpukit.components.addons.storage.built import BuiltVolume
from gpukit.components.addons.storage.variant import STORAGE, StorageVariant
from gpukit.components.addons.storage.volume import PlannedVolume
from gpukit.components.spec import StorageKind
from gpukit.components.substrate import use_registry
from gpukit.plan import plan_program
from gpukit.plan.artifacts import plan_document
from gpukit.plan.report import render_text
from gpukit.providers.aws.config import AWS_REGION
from harness import record
from tests.component.test_fake_substrate import FakeSubstrate, args


class FakeEfs(StorageVariant):
    kinds = frozenset({StorageKind.EFS})

    def __init__(self) -> None:
        self.volumes: list[PlannedVolume] = []
        self.skip = False

    def build(self, ctx: BuildContext, volumes: list[PlannedVolume]) -> list[BuiltVolume]:
        self.volumes = volumes
        if self.skip:
            return []
        return [
            BuiltVolume(
                v.name,
                v.storage_class,
                [
                    k8s.storage.v1.StorageClass(
                        f"{ctx.name}-{v.name}",
                        metadata={"name": v.storage_class},
                        provisioner=v.backend.provisioner,
                        opts=pulumi.ResourceOptions(parent=ctx.parent, provider=ctx.handle.kubernetes),
                    )
                ],
            )
            for v in volumes
        ]


class StorageSubstrate(FakeSubstrate):
    name = "eks"  # the backend table's efs row serves eks
    settings = (AWS_REGION,)  # EFS is priced per region (components/addons/storage/rates.py)

    def __init__(self) -> None:
        super().__init__()
        self.storage = FakeEfs()
        self.addon_variants = {STORAGE: self.storage}

    @property
    def volumes(self) -> list[PlannedVolume]:
        return self.storage.volumes


@pytest.fixture
def substrate() -> Iterator[StorageSubstrate]:
    made = StorageSubstrate()
    previous = use_registry(SubstrateRegistry(made))
    try:
        yield made
    finally:
        use_registry(previous)


def cluster_in_region() -> dict[str, Any]:
    """The fake cluster in us-east-1, a region with a sourced EFS price (storage/rates.py)."""
    cluster_args = args()
    cluster_args["cluster"]["region"] = "us-east-1"
    return cluster_args


def with_volume(**values: Any) -> dict[str, Any]:
    cluster_args = cluster_in_region()
    volume = {"name": "checkpoints", "kind": "auto", "role": "checkpoints", "size_gb": 1200, **values}
    cluster_args["storage"] = {"shared": [volume]}
    return cluster_args


def test_the_substrate_builds_the_planned_volumes_after_the_cluster(substrate: StorageSubstrate) -> None:
    rec = record(lambda: GpuCluster("fake", with_volume()))  # type: ignore[arg-type]
    (volume,) = substrate.volumes
    assert (volume.name, volume.kind, volume.tier.name) == ("checkpoints", StorageKind.EFS, "elastic")
    assert volume.reason == "checkpoints on eks: efs (Amazon EFS, tier elastic)"
    storage_class = rec.one("kubernetes:storage.k8s.io/v1:StorageClass")
    assert storage_class.inputs["metadata"]["name"] == "shared-checkpoints"
    assert storage_class.inputs["provisioner"] == "efs.csi.aws.com"
    assert rec.parent_of(storage_class).type == "gpukit:index:GpuCluster"  # type: ignore[union-attr]


def test_no_volumes_no_call(substrate: StorageSubstrate) -> None:
    rec = record(lambda: GpuCluster("fake", cluster_in_region()))  # type: ignore[arg-type]
    assert substrate.volumes == []
    assert rec.of_type("kubernetes:storage.k8s.io/v1:StorageClass") == []


def test_a_volume_the_substrate_did_not_build_is_an_error(substrate: StorageSubstrate) -> None:
    substrate.storage.skip = True
    with pytest.raises(Exception, match="built no shared volume checkpoints"):
        record(lambda: GpuCluster("fake", with_volume()))  # type: ignore[arg-type]


def test_the_plan_lists_each_volume_with_its_storage_class(substrate: StorageSubstrate) -> None:
    plan = plan_program(lambda: GpuCluster("fake", with_volume()))  # type: ignore[arg-type]
    text = render_text(plan.clusters[0])
    assert "Shared storage (ReadWriteMany; a claim names the StorageClass):" in text
    row = next(line for line in text.splitlines() if line.strip().startswith("checkpoints"))
    for cell in (
        "efs (auto)",
        "elastic",
        "1,200 GiB",
        "1,073 MB/s",
        "yes",
        "$0.3000/GiB-month",
        "shared-checkpoints",
    ):
        assert cell in row, row
    assert "  checkpoints: auto chose checkpoints on eks: efs (Amazon EFS, tier elastic)" in text
    assert "shared volume checkpoints (efs, 1200 GiB): $0.493" in text  # 1200 x $0.30 / 730 h
    (document,) = plan_document(plan)["clusters"][0]["sharedStorage"]
    assert document["storageClass"] == "shared-checkpoints"
    assert document["backend"] == "efs" and document["highlyAvailable"] is True
    assert document["csiDriver"] == "efs.csi.aws.com"


def test_a_plan_without_volumes_has_no_section(substrate: StorageSubstrate) -> None:
    plan = plan_program(lambda: GpuCluster("fake", cluster_in_region()))  # type: ignore[arg-type]
    assert "Shared storage" not in render_text(plan.clusters[0])
    assert "sharedStorage" not in plan_document(plan)["clusters"][0]

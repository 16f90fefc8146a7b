"""Bad `gpukit:storage` configs: each is refused with exit 2, names the exact key to edit, and builds
nothing (checked like test_bad_configs.py: through `gpukit plan --config` and through
`gpukit.program.build` under the mock engine).

The neutral rules (structure, names, a backend the substrate cannot use or gpukit does not build there,
auto with nothing to choose, sizes and tiers) start from the example stacks. Backend helpers add their
backend's cases below; once a substrate builds a kind, the "not built yet" cases here move to a kind it
still does not build."""

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness import eks_config, example_config
from tests.program.test_bad_configs import Config, Mutation, assert_refused, broken, top_set

SHARED = "gpukit:storage.shared"


def volume(**values: Any) -> dict[str, Any]:
    return {"name": "checkpoints", "kind": "efs", "role": "checkpoints", "sizeGb": 1200, **values}


def shared(*volumes: dict[str, Any]) -> Mutation:
    return top_set("gpukit:storage", {"shared": list(volumes)})


def gke() -> Config:
    return example_config("gke-dev")


def k3s_ssh() -> Config:
    return example_config("k3s-ssh")


CASES: list[tuple[str, Callable[[], Config], Mutation, str, str]] = [
    (
        "storage-unknown-key",
        eks_config,
        top_set("gpukit:storage", {"type": "efs"}),
        "gpukit:storage.type",
        "unknown key; allowed keys: shared",
    ),
    (
        "volume-missing-size",
        eks_config,
        shared({"name": "data", "kind": "efs", "role": "datasets"}),
        f"{SHARED}[0].sizeGb",
        "required key is missing (size in GiB)",
    ),
    (
        "volume-unknown-kind",
        eks_config,
        shared(volume(kind="ebs")),
        f"{SHARED}[0].kind",
        "must be one of auto, efs, fsx-lustre, s3, filestore, gcs-fuse, managed-lustre, nfs; got 'ebs'",
    ),
    (
        "volume-unknown-role",
        eks_config,
        shared(volume(role="logs")),
        f"{SHARED}[0].role",
        "must be one of datasets, checkpoints, model-cache; got 'logs'",
    ),
    (
        "volume-name-not-a-dns-label",
        eks_config,
        shared(volume(name="Checkpoints_1")),
        f"{SHARED}[0].name",
        "must be lowercase letters, digits and '-', start with a letter, at most 24 characters",
    ),
    (
        "volume-name-twice",
        eks_config,
        shared(volume(), volume()),
        f"{SHARED}[1].name",
        "duplicate shared volume name 'checkpoints'",
    ),
    (
        "volume-size-zero",
        eks_config,
        shared(volume(sizeGb=0)),
        f"{SHARED}[0].sizeGb",
        "must be at least 1 GiB; got 0",
    ),
    (
        "backend-of-another-cloud",
        eks_config,
        shared(volume(kind="filestore")),
        f"{SHARED}[0].kind",
        "filestore (Filestore) is for gke; this cluster is",
    ),
    (
        "nfs-on-gke",
        gke,
        shared(volume(kind="nfs")),
        f"{SHARED}[0].kind",
        "nfs (NFS (NFS CSI driver)) is for k3s-aws, k3s-gcp, k3s-ssh",
    ),
    (
        # k3s over SSH builds nfs now: auto picks it there, and the volume must still say whose server.
        "auto-picks-nfs-which-needs-a-server",
        k3s_ssh,
        shared(volume(kind="auto", sizeGb=500)),
        f"{SHARED}[0].nfs",
        "required on k3s over ssh: {host: <one of the cluster's host addresses>}",
    ),
    (
        # Mountpoint for S3 cannot overwrite or append: a checkpoint save would fail at run time.
        "s3-for-checkpoints",
        eks_config,
        shared(volume(kind="s3", sizeGb=100, bucket="team-ckpts")),
        f"{SHARED}[0].role",
        "s3 cannot hold checkpoints (a bucket mount takes no appends or in-place writes): it serves "
        "datasets, model-cache",
    ),
    (
        "tier-with-auto",
        eks_config,
        shared(volume(kind="auto", tier="250")),
        f"{SHARED}[0].tier",
        "tiers are a backend's: name the backend in `kind` to pick one",
    ),
    (
        "throughput-zero",
        eks_config,
        shared(volume(throughputMbps=0)),
        f"{SHARED}[0].throughputMbps",
        "must be at least 1 MB/s; got 0",
    ),
]


@pytest.mark.parametrize(
    ("make", "key", "fragment"),
    [
        pytest.param(broken(base, mutation), key, fragment, id=case)
        for case, base, mutation, key, fragment in CASES
    ],
)
def test_bad_storage_config_is_refused(
    make: Callable[[], Config], key: str, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert_refused(make(), key, fragment, tmp_path, capsys)

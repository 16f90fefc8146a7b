"""NFS shared volumes on k3s that cannot work: each refused like every bad config (exit 2 naming the
key, no traceback, nothing built). Cases start from the k3s example stacks."""

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpukit.components.preflight import preflight
from gpukit.components.resolve.config import resolve_config
from tests.program.test_bad_configs import Config, assert_refused, broken, eks_config
from tests.program.test_bad_configs_k3s import for_program, k3s_config
from tests.program.test_bad_configs_k3s_cloud import aws_config, gcp_config

VOLUME = "gpukit:storage.shared[0]"


def nfs_volume(size_gb: int = 100, kind: str = "nfs", **nfs: str) -> Callable[[Config], None]:
    def mutate(config: Config) -> None:
        volume: dict[str, Any] = {
            "name": "checkpoints",
            "kind": kind,
            "role": "checkpoints",
            "sizeGb": size_gb,
        }
        if nfs:
            volume["nfs"] = dict(nfs)
        config["gpukit:storage"] = {"shared": [volume]}

    return mutate


CASES = [
    (
        "host-not-in-cluster",
        k3s_config,
        nfs_volume(host="192.0.2.99"),
        f"{VOLUME}.nfs.host",
        "one of the cluster's hosts",
    ),
    ("host-on-aws", aws_config, nfs_volume(host="10.50.1.10"), f"{VOLUME}.nfs.host", "only on k3s over SSH"),
    (
        "path-relative",
        k3s_config,
        nfs_volume(server="nas.lab.example", path="volume1/ml"),
        f"{VOLUME}.nfs.path",
        "absolute path",
    ),
    (
        "path-unsafe",
        k3s_config,
        nfs_volume(server="nas.lab.example", path="/srv/nfs;reboot"),
        f"{VOLUME}.nfs.path",
        "letters, digits",
    ),
    (
        "path-dot-dot",
        gcp_config,
        nfs_volume(server="10.70.0.50", path="/srv/../etc"),
        f"{VOLUME}.nfs.path",
        "'..'",
    ),
    (
        "server-not-a-host",
        k3s_config,
        nfs_volume(server="nas_lab!", path="/srv/nfs"),
        f"{VOLUME}.nfs.server",
        "not an IP address or DNS name",
    ),
    (
        # A zone id is local to one host, and would land in the StorageClass as written.
        "server-with-an-ipv6-zone-id",
        k3s_config,
        nfs_volume(server="fd00::5%x *(rw,no_root_squash,insecure) y", path="/srv/nfs"),
        f"{VOLUME}.nfs.server",
        "'fd00::5%x *(rw,no_root_squash,insecure) y' has an IPv6 zone (scope) id",
    ),
    (
        "server-loopback",
        aws_config,
        nfs_volume(server="127.0.0.1", path="/srv/nfs"),
        f"{VOLUME}.nfs.server",
        "loopback",
    ),
    (
        # NFS is plain text (sec=sys): never to an internet-routed server.
        "server-public",
        k3s_config,
        nfs_volume(server="8.8.8.8", path="/x"),
        f"{VOLUME}.nfs.server",
        "'8.8.8.8' is a public (global) address: NFS traffic (sec=sys) is plain text",
    ),
    ("no-export-over-ssh", k3s_config, nfs_volume(), f"{VOLUME}.nfs", "required on k3s over ssh"),
    # The VM gpukit makes on gcp keeps the volume on one pd-balanced disk: 10 to 65,536 GB.
    (
        "vm-disk-under-pd-balanced-min",
        gcp_config,
        nfs_volume(size_gb=5),
        f"{VOLUME}.sizeGb",
        "one pd-balanced disk, which takes 10 to 65,536 GiB; got 5",
    ),
    (
        "vm-disk-over-pd-balanced-max-by-auto",
        gcp_config,
        nfs_volume(size_gb=70000, kind="auto"),
        f"{VOLUME}.sizeGb",
        "takes 10 to 65,536 GiB; got 70,000",
    ),
    ("host-on-gcp", gcp_config, nfs_volume(host="10.70.0.10"), f"{VOLUME}.nfs.host", "only on k3s over SSH"),
    # The VM gpukit makes on aws keeps the volume on one gp3 disk: 1 to 16,384 GiB.
    (
        "vm-disk-over-gp3-max",
        aws_config,
        nfs_volume(size_gb=20000),
        f"{VOLUME}.sizeGb",
        "one gp3 disk, which takes 1 to 16,384 GiB; got 20,000",
    ),
    (
        "vm-disk-over-gp3-max-by-auto",
        aws_config,
        nfs_volume(size_gb=16385, kind="auto"),
        f"{VOLUME}.sizeGb",
        "takes 1 to 16,384 GiB; got 16,385",
    ),
    (
        "export-server-without-path-on-aws",
        aws_config,
        nfs_volume(server="10.50.0.9"),
        f"{VOLUME}.nfs.path",
        "required with server and path",
    ),
    ("nfs-on-eks", eks_config, nfs_volume(server="10.0.0.5", path="/srv/nfs"), f"{VOLUME}.kind", "nfs"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_nfs_volume_is_refused(
    case: tuple[str, Callable[[], Config], Callable[[Config], None], str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, base, mutation, key, fragment = case
    config = broken(base, mutation)()
    assert_refused(config, key, fragment, tmp_path, capsys, program=for_program(config))


@pytest.mark.parametrize("make", [k3s_config, aws_config, gcp_config])
def test_a_server_named_by_dns_plans_with_a_plain_text_warning_naming_the_key(
    make: Callable[[], Config],
) -> None:
    config = make()
    nfs_volume(server="nas.lab.example", path="/srv/nfs")(config)
    program_config, secret_keys = for_program(config)
    findings = [str(f) for f in preflight(resolve_config(program_config, secret_keys))]
    assert any(
        f.startswith(f"warning: {VOLUME}.nfs.server: 'nas.lab.example' is a DNS name") and "plain text" in f
        for f in findings
    ), findings

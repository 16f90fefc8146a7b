"""The NFS server script gpukit runs on a k3s host (k3s over SSH) or VM: golden, shellcheck-clean, and
executed against stub commands: the distribution's package, exports to the nodes only, re-runs."""

from pathlib import Path

import pytest
from scripts.stubs import NFS_SERVER_STUBS, FakeHost

from gpukit.components.addons.storage.nfs.exports import (
    EXPORT_OPTIONS,
    EXPORTS_FILE,
    V4_ONLY_MARK,
    NfsExport,
    exports,
    exports_file,
    nfs_server_script,
    nfs_unexport_script,
    volume_directory,
)
from tools import shellcheck_problems

# The k3s-ssh example's hosts: a server and two GPU hosts, and a fourth named by DNS.
NODES = ["192.0.2.10", "192.0.2.11", "192.0.2.12", "GPU-3.lab.example"]
TABLE = exports([volume_directory("checkpoints"), volume_directory("datasets")], NODES)

STUBS = NFS_SERVER_STUBS


@pytest.fixture
def host(tmp_path: Path) -> FakeHost:
    fake = FakeHost(tmp_path)
    for name, body in STUBS.items():
        fake.stub(name, body)
    return fake


def test_nfs_server_script_golden(golden) -> None:  # type: ignore[no-untyped-def]
    golden("scripts/nfs-server-k3s-ssh.sh", nfs_server_script(TABLE))


@pytest.mark.parametrize("script", [nfs_server_script(TABLE), nfs_unexport_script()])
def test_nfs_scripts_are_shellcheck_clean(script: str, tmp_path: Path) -> None:
    path = tmp_path / "script.sh"
    path.write_text(script)
    assert shellcheck_problems(path) == ""


def test_each_directory_is_exported_to_each_node_alone_never_to_everyone() -> None:
    lines = exports_file(TABLE).splitlines()[1:]
    assert [line.split()[0] for line in lines] == ["/srv/gpukit-nfs/checkpoints", "/srv/gpukit-nfs/datasets"]
    for line in lines:
        clients = line.split()[1:]
        assert clients == [
            f"192.0.2.10/32({EXPORT_OPTIONS})",
            f"192.0.2.11/32({EXPORT_OPTIONS})",
            f"192.0.2.12/32({EXPORT_OPTIONS})",
            f"gpu-3.lab.example({EXPORT_OPTIONS})",
        ]
        assert "*" not in line and "no_root_squash" not in line
    assert EXPORT_OPTIONS.split(",") == ["rw", "sync", "root_squash", "sec=sys", "no_subtree_check"]


def test_ipv6_nodes_are_single_addresses_and_duplicates_go() -> None:
    (export,) = exports(["/srv/x"], ["2001:DB8::1", "2001:db8:0::1", "192.0.2.10"])
    assert export.clients == ("2001:db8::1/128", "192.0.2.10/32")


@pytest.mark.parametrize("path", ["/srv/nfs dir", "/srv/$(reboot)", "srv/nfs", "/srv/../etc", "/", "/srv/*"])
def test_unsafe_directories_never_reach_an_exports_file(path: str) -> None:
    with pytest.raises(ValueError, match="export"):
        exports_file(exports([path], NODES))


@pytest.mark.parametrize(
    "client",
    [
        "fe80::1%x *(rw,no_root_squash,insecure) y/128",  # what client_spec makes of a zoned address
        "fe80::1%eth0/128",
        "192.0.2.10/32 *",
        "*",
        "gpu(rw,no_root_squash)",
        "@trusted",  # a netgroup
        "192.0.2.10/255.255.255.255",  # not canonical
        "2001:DB8::1/128",
        "10.0.0.1/16",  # host bits set
        "",
    ],
)
def test_a_client_that_is_no_single_address_network_or_name_never_reaches_an_exports_file(
    client: str,
) -> None:
    with pytest.raises(ValueError, match="exports client"):
        exports_file([NfsExport("/srv/x", ("192.0.2.10/32", client))])


def test_a_zoned_node_address_never_becomes_an_export() -> None:
    with pytest.raises(ValueError, match="zone id"):
        exports_file(exports(["/srv/x"], [*NODES, "fe80::1%x *(rw,no_root_squash,insecure) y"]))


@pytest.mark.parametrize(
    "client", ["192.0.2.10/32", "192.0.2.10", "2001:db8::1/128", "10.0.0.0/16", "gpu-3.lab"]
)
def test_canonical_addresses_networks_and_names_are_exported(client: str) -> None:
    assert f"/srv/x {client}({EXPORT_OPTIONS})" in exports_file([NfsExport("/srv/x", (client,))])


def test_a_host_without_nfs_gets_the_distribution_package_directories_and_exports(host: FakeHost) -> None:
    result = host.run(nfs_server_script(TABLE))
    assert result.code == 0, result.stderr
    assert "apt-get install -y -q --no-install-recommends nfs-kernel-server" in result.calls
    # Owned by the user root_squash maps the CSI controller to, so it can make the claims' folders.
    assert "chown 65534:65534 " + str(host.root / "srv/gpukit-nfs/checkpoints") in result.calls
    assert host.mode("/srv/gpukit-nfs/datasets") == 0o755
    assert (host.root / EXPORTS_FILE.lstrip("/")).read_text() == exports_file(TABLE)
    assert result.calls[-5:] == [
        "systemctl mask --now rpcbind.service rpcbind.socket rpc-statd.service",
        "systemctl enable nfs-server",
        "systemctl restart nfs-server",
        "exportfs -ra",
        "exportfs -v",
    ]


def test_the_server_is_nfsv4_only_without_rpcbind_and_says_so_once(host: FakeHost) -> None:
    conf = host.root / "etc/nfs.conf"
    conf.parent.mkdir(parents=True)
    conf.write_text("[nfsd]\n# vers3=y\n")  # the distribution's file: every key commented out
    first = host.run(nfs_server_script(TABLE))
    assert first.code == 0, first.stderr
    assert conf.read_text() == f"[nfsd]\n# vers3=y\n\n{V4_ONLY_MARK}\n[nfsd]\nvers2=n\nvers3=n\n"
    assert (host.root / "proc/fs/nfsd/versions").read_text().split()[:2] == ["-2", "-3"]
    assert "systemctl mask --now rpcbind.service rpcbind.socket rpc-statd.service" in first.calls
    again = host.run(nfs_server_script(TABLE))
    assert again.code == 0, again.stderr
    assert conf.read_text().count(V4_ONLY_MARK) == 1
    # Unchanged config: the running server is not restarted under its clients.
    assert "systemctl start nfs-server" in again.calls and "systemctl restart nfs-server" not in again.calls


def test_a_vers3_line_that_wins_over_gpukits_fails_loudly(host: FakeHost) -> None:
    conf = host.root / "etc/nfs.conf"
    conf.parent.mkdir(parents=True)
    conf.write_text("[nfsd]\nvers3=y\n")  # set by the host's owner: nfs-utils keeps the first value
    result = host.run(nfs_server_script(TABLE))
    assert result.code == 1
    assert "still offers NFSv2/v3 (+3 +4 +4.1 +4.2)" in result.stderr
    assert "exportfs -ra" not in result.calls


def test_running_again_installs_nothing_keeps_data_and_rewrites_nothing(host: FakeHost) -> None:
    assert host.run(nfs_server_script(TABLE)).code == 0
    data = host.root / "srv/gpukit-nfs/checkpoints/pvc-1/step-100.pt"
    data.parent.mkdir()
    data.write_text("weights")
    again = host.run(nfs_server_script(TABLE))
    assert again.code == 0, again.stderr
    assert not any(call.startswith("apt-get") for call in again.calls)
    assert "exports written" not in again.stdout
    assert data.read_text() == "weights"
    assert not any("-R" in call for call in again.calls if call.startswith("chown"))


def test_a_changed_node_list_rewrites_the_exports_and_reexports(host: FakeHost) -> None:
    assert host.run(nfs_server_script(TABLE)).code == 0
    fewer = exports([volume_directory("checkpoints")], NODES[:2])
    result = host.run(nfs_server_script(fewer))
    assert result.code == 0
    text = (host.root / EXPORTS_FILE.lstrip("/")).read_text()
    assert "192.0.2.12" not in text and "datasets" not in text
    assert "exportfs -ra" in result.calls


def test_a_host_without_apt_or_dnf_is_refused_with_what_to_install(host: FakeHost, tmp_path: Path) -> None:
    (host.bin / "apt-get").unlink()
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    script = nfs_server_script(TABLE).replace(
        "set -euo pipefail\n", f"set -euo pipefail\nPATH={host.bin}:{empty}\n", 1
    )
    result = host.run(script)
    assert result.code == 1
    assert "install its NFS server (nfs-kernel-server or nfs-utils)" in result.stderr


def test_removing_the_server_unexports_and_keeps_the_data(host: FakeHost) -> None:
    assert host.run(nfs_server_script(TABLE)).code == 0
    result = host.run(nfs_unexport_script())
    assert result.code == 0
    assert not (host.root / EXPORTS_FILE.lstrip("/")).exists()
    assert (host.root / "srv/gpukit-nfs/checkpoints").is_dir()
    assert result.calls == ["exportfs -ra"]

"""gpukit's host scripts, executed: under bash, in a temporary root, with stub commands on PATH."""

import base64
import hashlib
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from scripts.stubs import FAKE_BINARY, FAKE_INSTALLER, FakeHost, Result

from gpukit.components.catalog.k3s import binary_url, installer_url
from gpukit.components.k3s.host_scripts import (
    AGENT_TOKEN_FILE,
    ETCD_DIR,
    JOIN_FILE,
    KUBELET_DROP_IN,
    REJOIN_DROP_IN,
    REJOIN_MARKER,
    START_MARKER,
    TOKEN_FILE,
    Join,
    K3sDownload,
    MachineCheck,
    drain_script,
    install_script,
    k3s_config,
    kubelet_shutdown_config,
    metadata_guard_script,
    node_sync_script,
    preflight_script,
    secrets_bundle,
    server_join,
    server_rejoin_script,
    uninstall_script,
)
from gpukit.components.pools import GPU_MODEL_LABEL, GPU_PRESENT_LABEL, SERVER_TAINT
from gpukit.components.sharing import DEVICE_PLUGIN_CONFIG_LABEL, MIG_CONFIG_LABEL
from gpukit.components.spec import DriverMode, NodeRole
from gpukit.providers.aws.autoscaling import ACCELERATOR_LABEL
from gpukit.providers.gcp.k3s.autoscaler import GPU_LABEL as GCE_GPU_LABEL
from tools import shellcheck_problems

L40S = "NVIDIA L40S, 46068, 580.95.05, [N/A]"
VERSION = "v1.36.4+k3s1"


@pytest.fixture
def host(tmp_path: Path) -> FakeHost:
    return FakeHost(tmp_path)


def facts(stdout: str) -> dict[str, str]:
    return {p[1]: p[2] for p in (line.split("\t") for line in stdout.splitlines()) if p[0] == "fact"}


def checks(stdout: str) -> list[tuple[str, str]]:
    return [(p[1], p[2]) for p in (line.split("\t") for line in stdout.splitlines()) if p[0] == "check"]


# --- preflight


def test_a_ready_gpu_host_reports_its_gpus_driver_and_toolkit(host: FakeHost) -> None:
    host.gpus(L40S, L40S, driver="580.95.05")
    result = host.run(preflight_script(2, "L40S", DriverMode.PREINSTALLED, 570, "12.8"))
    assert result.code == 0, result.stdout
    found = facts(result.stdout)
    assert (found["gpu_count"], found["gpu_model"], found["gpu_memory_mib"]) == ("2", "NVIDIA L40S", "46068")
    assert (found["driver_loaded"], found["driver_version"], found["container_toolkit"]) == (
        "yes",
        "580.95.05",
        "yes",
    )
    assert found["mig"] == "not-capable"
    assert ("ok", "driver 580.95.05 runs CUDA 12.8") in checks(result.stdout)
    assert checks(result.stdout)[-1] == ("ok", "ready to join")


def rdma_port(
    host: FakeHost, device: str, port: int, state: str, link: str, *, vendor: str | None = "0x15b3"
) -> None:
    """A port as the kernel lists it under /sys/class/infiniband (the files ibstat reads); `vendor`
    None: a software device (rxe, siw), with no PCI device behind it."""
    base = host.root / "sys/class/infiniband" / device
    (base / "device").mkdir(parents=True, exist_ok=True)
    if vendor is not None:
        (base / "device/vendor").write_text(f"{vendor}\n")
    files = {"state": state, "link_layer": link, "rate": "400 Gb/sec (4X NDR)"}
    (base / "ports" / str(port)).mkdir(parents=True, exist_ok=True)
    for name, value in files.items():
        (base / "ports" / str(port) / name).write_text(f"{value}\n")


def test_the_preflight_reports_active_rdma_ports_and_that_pods_do_not_get_them_yet(host: FakeHost) -> None:
    host.gpus(L40S, L40S, driver="580.95.05")
    rdma_port(host, "mlx5_0", 1, "4: ACTIVE", "InfiniBand")
    rdma_port(host, "mlx5_1", 1, "4: ACTIVE", "InfiniBand")
    rdma_port(host, "mlx5_2", 1, "1: DOWN", "InfiniBand")
    rdma_port(host, "efa_0", 1, "4: ACTIVE", "Unspecified", vendor="0x1d0f")  # EKS's EFA: not counted
    rdma_port(host, "rxe0", 1, "4: ACTIVE", "Ethernet", vendor=None)  # software RoCE: no NIC
    rdma_port(host, "mlx5_3", 1, "5: ACTIVE_DEFER", "InfiniBand")  # counted, not active
    result = host.run(preflight_script(2, "L40S", DriverMode.PREINSTALLED, rdma=True))
    assert result.code == 0, result.stdout
    found = facts(result.stdout)
    assert (found["rdma_ports"], found["rdma_active_ports"]) == ("4", "2")
    assert (found["rdma_link_layer"], found["rdma_rate"]) == ("InfiniBand", "400 Gb/sec (4X NDR)")
    assert (
        "ok",
        "2 RDMA ports active (InfiniBand, 400 Gb/sec (4X NDR)): gpukit does not set up RDMA for pods yet "
        "(the NVIDIA Network Operator), so NCCL between nodes uses TCP",
    ) in checks(result.stdout)


def test_roce_ports_none_active_warn_and_a_host_without_rdma_says_nothing(host: FakeHost) -> None:
    host.gpus(L40S, driver="580.95.05")
    plain = facts(host.run(preflight_script(1, "L40S", DriverMode.PREINSTALLED, rdma=True)).stdout)
    assert (plain["rdma_ports"], plain["rdma_link_layer"]) == ("0", "none")
    rdma_port(host, "mlx5_0", 1, "1: DOWN", "Ethernet")
    result = host.run(preflight_script(1, "L40S", DriverMode.PREINSTALLED, rdma=True))
    assert result.code == 0  # a warning, not a refusal: the host joins on the ordinary network
    assert (
        "warn",
        "1 RDMA ports found, none active (/sys/class/infiniband/*/ports/*/state): NCCL between "
        "nodes will use TCP; check the cabling or the subnet manager",
    ) in checks(result.stdout)
    rdma_port(host, "mlx5_0", 1, "4: ACTIVE", "Ethernet")
    rerun = host.run(preflight_script(1, "L40S", DriverMode.PREINSTALLED, rdma=True))
    assert facts(rerun.stdout)["rdma_link_layer"] == "RoCE"
    # A cloud machine's preflight (its user data) leaves RDMA out.
    assert "rdma_ports" not in facts(host.run(preflight_script(1, "L40S", DriverMode.PREINSTALLED)).stdout)


def test_a_gpu_pool_host_without_a_gpu_is_refused(host: FakeHost) -> None:
    result = host.run(preflight_script(2, "L40S", DriverMode.PREINSTALLED))
    assert result.code == 1
    assert ("fail", "no NVIDIA GPU found: this host cannot join a GPU pool") in checks(result.stdout)


def test_preinstalled_mode_refuses_a_host_without_a_driver_but_not_one_without_the_toolkit(
    host: FakeHost,
) -> None:
    host.gpus(L40S, toolkit=False)  # GPU visible on the PCI bus and to a stub nvidia-smi, no driver loaded
    result = host.run(preflight_script(1, "L40S", DriverMode.PREINSTALLED))
    assert result.code == 1
    messages = [m for status, m in checks(result.stdout) if status == "fail"]
    assert messages == [
        m for m in messages if m.startswith("no NVIDIA driver loaded, but driver: preinstalled")
    ]
    assert messages
    # The GPU Operator brings its own container toolkit: a host without one is fine.
    assert facts(result.stdout)["container_toolkit"] == "no"


def test_operator_mode_refuses_a_host_with_a_loaded_driver(host: FakeHost) -> None:
    host.gpus(L40S, driver="580.95.05")
    result = host.run(preflight_script(1, "L40S", DriverMode.OPERATOR))
    assert result.code == 1
    assert any(
        status == "fail" and "is loaded, but driver: operator installs its own" in message
        for status, message in checks(result.stdout)
    )


def test_count_and_model_must_match_the_pool(host: FakeHost) -> None:
    host.gpus("NVIDIA A10G, 23028, 580.95.05, [N/A]", driver="580.95.05")
    result = host.run(preflight_script(2, "L40S", DriverMode.PREINSTALLED))
    assert result.code == 1
    failed = [m for status, m in checks(result.stdout) if status == "fail"]
    assert "found 1 NVIDIA GPUs, but the pool declares gpu.count 2: fix the pool or the host" in failed
    assert "the GPU is 'NVIDIA A10G', but the pool declares L40S: fix gpu.model or move the host" in failed


def test_model_patterns_match_nvidia_smi_names(host: FakeHost) -> None:
    host.gpus("NVIDIA A100-SXM4-80GB, 81920, 580.95.05, Disabled", driver="580.95.05")
    result = host.run(preflight_script(1, "A100-80GB", DriverMode.PREINSTALLED))
    assert result.code == 0, result.stdout
    assert facts(result.stdout)["mig"] == "capable"


@pytest.mark.parametrize(
    ("row", "model"),
    [
        ("NVIDIA GeForce RTX 4090, 24564, 580.95.05, [N/A]", "RTX-4090"),
        ("NVIDIA RTX 6000 Ada Generation, 49140, 580.95.05, [N/A]", "RTX-6000-Ada"),
        ("NVIDIA H100 80GB HBM3, 81559, 580.95.05, Disabled", "H100"),
        ("NVIDIA H100 PCIe, 81559, 580.95.05, Disabled", "H100"),
        ("Tesla T4, 15360, 580.95.05, [N/A]", "T4"),
        # A declared model (not in the catalog) is checked part by part against the normalised name.
        ("NVIDIA GeForce RTX 4080 SUPER, 16376, 580.95.05, [N/A]", "RTX-4080-SUPER"),
    ],
)
def test_a_host_reporting_any_spelling_of_the_pools_model_joins(host: FakeHost, row: str, model: str) -> None:
    host.gpus(row, driver="580.95.05")
    result = host.run(preflight_script(1, model, DriverMode.PREINSTALLED))
    assert result.code == 0, result.stdout


@pytest.mark.parametrize(
    ("row", "model"),
    [
        # "H100" would match "H100 NVL" part by part: the NVL is another catalog model (94 GB).
        ("NVIDIA H100 NVL, 95830, 580.95.05, Disabled", "H100"),
        ("NVIDIA GeForce RTX 3090, 24576, 580.95.05, [N/A]", "RTX-4090"),
        ("NVIDIA RTX A6000, 49140, 580.95.05, [N/A]", "RTX-6000-Ada"),
    ],
)
def test_a_host_with_another_catalog_model_is_refused(host: FakeHost, row: str, model: str) -> None:
    host.gpus(row, driver="580.95.05")
    result = host.run(preflight_script(1, model, DriverMode.PREINSTALLED))
    assert result.code == 1
    name = row.split(",", maxsplit=1)[0]
    assert (
        "fail",
        f"the GPU is '{name}', but the pool declares {model}: fix gpu.model or move the host",
    ) in (checks(result.stdout))


def test_an_old_driver_for_the_cuda_version_is_a_warning_not_a_refusal(host: FakeHost) -> None:
    host.gpus(L40S, driver="580.95.05")
    result = host.run(preflight_script(1, "L40S", DriverMode.PREINSTALLED, 590, "13.1"))
    assert result.code == 0
    assert ("warn", "driver 580.95.05 is older than R590, which CUDA 13.1 needs") in checks(result.stdout)


def test_a_cpu_pool_host_with_gpus_gets_a_warning(host: FakeHost) -> None:
    host.gpus(L40S, driver="580.95.05")
    result = host.run(preflight_script(0, "", DriverMode.PREINSTALLED))
    assert result.code == 0
    assert checks(result.stdout)[0] == (
        "warn",
        "this host has 1 NVIDIA GPUs (NVIDIA L40S) but its pool declares no gpu: pods cannot use them "
        "(gpukit installs no device plugin or GPU Operator for them); declare them with gpu: {model, count} "
        "in the pool",
    )


# --- install


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


DOWNLOAD = K3sDownload(
    VERSION, {"amd64": _sha(FAKE_BINARY), "arm64": _sha(FAKE_BINARY)}, _sha(FAKE_INSTALLER)
)
FIRST = Join((), may_init=True)
SERVER_URLS = ("https://192.0.2.10:6443", "https://192.0.2.13:6443")


def _install(
    role: NodeRole = NodeRole.SERVER,
    labels: dict[str, str] | None = None,
    join: Join = FIRST,
    download: K3sDownload = DOWNLOAD,
) -> str:
    config = k3s_config(role, "n1", labels or {"gpukit.dev/pool": "control"}, [], tls_sans=["192.0.2.10"])
    return install_script(role, download, config, kubelet_shutdown_config(), join)


BUNDLE = secrets_bundle(
    {
        TOKEN_FILE: "s3cret-token",
        AGENT_TOKEN_FILE: "ag3nt-token",
        "/var/lib/rancher/k3s/server/tls/server-ca.crt": "-----BEGIN CERTIFICATE-----\nCA\n-----END "
        "CERTIFICATE-----\n",
    }
)
AGENT_BUNDLE = secrets_bundle({TOKEN_FILE: "K10abc::node:ag3nt-token"})


def test_install_writes_secrets_and_config_then_installs_the_checked_binary(host: FakeHost) -> None:
    result = host.run(_install(), stdin=BUNDLE)
    assert result.code == 0, result.stderr
    installs = [c for c in result.calls if c.startswith("sh ")]
    assert len(installs) == 1
    assert f"VERSION={VERSION} EXEC=server FORCE=true SKIP_DOWNLOAD=true" in installs[0]
    downloads = [c.split()[-3] for c in result.calls if c.startswith("curl -sfL")]
    assert downloads == [binary_url(VERSION, "amd64"), installer_url()]
    assert (host.root / "usr/local/bin/k3s").read_bytes() == FAKE_BINARY
    assert host.mode("/usr/local/bin/k3s") == 0o755
    assert (host.root / TOKEN_FILE.lstrip("/")).read_text() == "s3cret-token"
    assert (host.root / AGENT_TOKEN_FILE.lstrip("/")).read_text() == "ag3nt-token"
    assert host.mode(TOKEN_FILE) == 0o600
    assert host.mode("/var/lib/rancher/k3s/server/tls/server-ca.crt") == 0o600
    config = (host.root / "etc/rancher/k3s/config.yaml").read_text()
    assert "secrets-encryption: true" in config and "token-file: /etc/rancher/k3s/gpukit-token" in config
    assert "agent-token-file: /etc/rancher/k3s/gpukit-agent-token" in config
    assert "shutdownGracePeriod: 60s" in (host.root / KUBELET_DROP_IN.lstrip("/")).read_text()
    # A single server starts the cluster (SQLite) at once: there is no other server to ask.
    assert (host.root / JOIN_FILE.lstrip("/")).read_text() == "cluster-init: false\n"
    assert not any("/ping" in c for c in result.calls)
    for secret in ("s3cret-token", "ag3nt-token"):
        assert secret not in result.stdout + result.stderr + "\n".join(result.calls)
    assert f"k3s {VERSION} (server) installed and running" in result.stdout


def test_pods_are_kept_off_the_metadata_server_before_k3s_starts(host: FakeHost) -> None:
    (host.state / "answering").write_text(SERVER_URLS[0] + "\n")
    result = host.run(_install(NodeRole.AGENT, join=Join(SERVER_URLS[:1])), stdin=AGENT_BUNDLE)
    assert result.code == 0, result.stderr
    guard = host.root / "usr/local/lib/gpukit/metadata-guard.sh"
    assert host.mode("/usr/local/lib/gpukit/metadata-guard.sh") == 0o700
    drop_in = (host.root / "etc/systemd/system/k3s-agent.service.d/50-gpukit-metadata-guard.conf").read_text()
    assert "Requires=gpukit-metadata-guard.service" in drop_in
    start = result.calls.index("systemctl start gpukit-metadata-guard.service")
    assert start < next(i for i, c in enumerate(result.calls) if c.startswith("sh "))
    ran = host.run(guard.read_text())
    assert ran.code == 0, ran.stderr
    # All TCP but DNS: on Compute Engine the metadata address is also the resolver CoreDNS forwards to.
    rule = "-w -t raw PREROUTING -s 10.42.0.0/16 -d 169.254.169.254 -p tcp ! --dport 53 -j DROP"
    assert (host.state / "iptables-rules").read_text().splitlines() == [rule]
    again = host.run(guard.read_text())  # at every boot: the rule goes in once
    assert again.code == 0 and (host.state / "iptables-rules").read_text().splitlines() == [rule]


def test_a_binary_without_the_pinned_sum_never_runs(host: FakeHost) -> None:
    wrong = K3sDownload(VERSION, {"amd64": "0" * 64, "arm64": "0" * 64}, _sha(FAKE_INSTALLER))
    result = host.run(_install(download=wrong), stdin=BUNDLE)
    assert result.code == 1
    assert f"{binary_url(VERSION, 'amd64')} does not have the SHA-256 gpukit pins" in result.stderr
    assert not any(c.startswith("sh ") for c in result.calls)
    assert not (host.root / "usr/local/bin/k3s").exists()
    unpinned = K3sDownload(VERSION, {}, _sha(FAKE_INSTALLER))
    result = host.run(_install(download=unpinned), stdin=BUNDLE)
    assert result.code == 1 and "set gpukit:cluster.k3sSha256" in result.stderr


def test_an_installer_without_the_pinned_sum_never_runs(host: FakeHost) -> None:
    wrong = K3sDownload(VERSION, DOWNLOAD.sha256, "f" * 64)
    result = host.run(_install(download=wrong), stdin=BUNDLE)
    assert result.code == 1
    assert f"{installer_url()} does not have the SHA-256 gpukit pins" in result.stderr
    assert not any(c.startswith("sh ") for c in result.calls)


@pytest.mark.parametrize(
    ("role", "path"),
    [
        (NodeRole.SERVER, "/etc/passwd"),
        (NodeRole.SERVER, "/var/lib/rancher/k3s/server/tls/../../../../../root/.ssh/authorized_keys"),
        (NodeRole.AGENT, "/var/lib/rancher/k3s/server/tls/server-ca.key"),
        (NodeRole.AGENT, AGENT_TOKEN_FILE),
    ],
)
def test_an_unexpected_bundle_path_is_refused_before_anything_is_written(
    host: FakeHost, role: NodeRole, path: str
) -> None:
    bundle = secrets_bundle({TOKEN_FILE: "s3cret-token", path: "owned"})
    result = host.run(_install(role), stdin=bundle)
    assert result.code == 1
    assert f"the secrets bundle names {path}" in result.stderr
    assert not (host.root / TOKEN_FILE.lstrip("/")).exists()
    assert not [p for p in host.root.rglob("*") if p.is_file()]


def test_a_second_server_joins_through_the_first_that_answers(host: FakeHost) -> None:
    (host.state / "answering").write_text(SERVER_URLS[1] + "\n")
    result = host.run(_install(join=Join(SERVER_URLS)), stdin=BUNDLE)
    assert result.code == 0, result.stderr
    assert (host.root / JOIN_FILE.lstrip("/")).read_text() == f"server: {SERVER_URLS[1]}\n"
    assert f"joining the cluster through {SERVER_URLS[1]}" in result.stdout


def test_a_joining_server_waits_for_a_server_then_gives_up(host: FakeHost) -> None:
    result = host.run(_install(join=Join(SERVER_URLS)), stdin=BUNDLE)
    assert result.code == 1
    assert "no server answered at" in result.stderr and "this machine cannot join" in result.stderr
    assert not (host.root / JOIN_FILE.lstrip("/")).exists()
    assert not any(c.startswith("sh ") for c in result.calls)


def test_the_first_server_starts_a_new_cluster_only_when_no_other_answers(host: FakeHost) -> None:
    first = Join(SERVER_URLS[1:], may_init=True, cluster_init=True)
    result = host.run(_install(join=first), stdin=BUNDLE)
    assert result.code == 0, result.stderr
    assert len([c for c in result.calls if "/ping" in c]) == 6  # asked 6 times, 10 s apart
    assert (host.root / JOIN_FILE.lstrip("/")).read_text() == "cluster-init: true\n"


def test_a_replaced_first_server_joins_the_running_cluster(host: FakeHost) -> None:
    """A new machine in the first server's place (empty disk) finds the others and joins them
    instead of starting a second, empty cluster."""
    (host.state / "answering").write_text(SERVER_URLS[1] + "\n")
    replaced = Join(SERVER_URLS[1:], may_init=True, cluster_init=True)
    result = host.run(_install(join=replaced), stdin=BUNDLE)
    assert result.code == 0, result.stderr
    assert (host.root / JOIN_FILE.lstrip("/")).read_text() == f"server: {SERVER_URLS[1]}\n"


def test_the_join_is_decided_once_per_machine(host: FakeHost) -> None:
    assert (
        host.run(_install(join=Join(SERVER_URLS[1:], may_init=True, cluster_init=True)), stdin=BUNDLE).code
        == 0
    )
    (host.state / "answering").write_text(SERVER_URLS[1] + "\n")  # later, the others answer
    again = host.run(_install(join=Join(SERVER_URLS[1:], may_init=True, cluster_init=True)), stdin=BUNDLE)
    assert again.code == 0
    assert "already installed and up to date" in again.stdout
    assert (host.root / JOIN_FILE.lstrip("/")).read_text() == "cluster-init: true\n"


def test_a_recreated_agent_rejoins_under_a_new_node_name(host: FakeHost) -> None:
    """A group's replacement machine may reuse its predecessor's hostname (a recycled private
    address): `with-node-id` gives it a node name of its own, so k3s's node-password check, which
    binds a name to the first machine that used it, does not refuse it."""
    config = k3s_config(NodeRole.AGENT, None, {"gpukit.dev/pool": "l4"}, [], with_node_id=True)
    assert "with-node-id: true" in config and "node-name" not in config
    script = install_script(NodeRole.AGENT, DOWNLOAD, config, kubelet_shutdown_config(), Join(SERVER_URLS))
    (host.state / "answering").write_text(SERVER_URLS[0] + "\n")
    first = host.run(script, stdin=AGENT_BUNDLE)
    assert first.code == 0, first.stderr
    replacement = FakeHost(host.state.parent / "replacement")  # a new machine: an empty disk
    (replacement.state / "answering").write_text(SERVER_URLS[1] + "\n")  # and the first server is gone
    second = replacement.run(script, stdin=AGENT_BUNDLE)
    assert second.code == 0, second.stderr
    assert (replacement.root / JOIN_FILE.lstrip("/")).read_text() == f"server: {SERVER_URLS[1]}\n"
    assert "with-node-id: true" in (replacement.root / "etc/rancher/k3s/config.yaml").read_text()


def test_install_twice_changes_nothing_the_second_time(host: FakeHost) -> None:
    assert host.run(_install(), stdin=BUNDLE).code == 0
    before = {p: p.stat().st_mtime_ns for p in host.root.rglob("*") if p.is_file()}
    again = host.run(_install(), stdin=BUNDLE)
    assert again.code == 0
    assert not any(c.startswith(("sh ", "curl ")) for c in again.calls)
    assert "already installed and up to date" in again.stdout
    assert {p: p.stat().st_mtime_ns for p in host.root.rglob("*") if p.is_file()} == before


def test_a_changed_config_restarts_k3s_with_it(host: FakeHost) -> None:
    assert host.run(_install(), stdin=BUNDLE).code == 0
    changed = host.run(_install(labels={"gpukit.dev/pool": "renamed"}), stdin=BUNDLE)
    assert changed.code == 0
    assert "FORCE=true" in next(c for c in changed.calls if c.startswith("sh "))
    assert "gpukit.dev/pool=renamed" in (host.root / "etc/rancher/k3s/config.yaml").read_text()


def test_a_host_of_another_cluster_is_refused_and_left_alone(host: FakeHost) -> None:
    ca = host.root / "var/lib/rancher/k3s/server/tls/server-ca.crt"
    ca.parent.mkdir(parents=True)
    ca.write_text("another cluster's CA\n")
    token = host.root / TOKEN_FILE.lstrip("/")
    token.parent.mkdir(parents=True)
    token.write_text("the other cluster's token")
    result = host.run(_install(), stdin=BUNDLE)
    assert result.code == 1
    assert "already runs another k3s cluster; uninstall it first" in result.stderr
    assert ca.read_text() == "another cluster's CA\n"
    # Refused before anything is written: the other cluster keeps its token, and ours is not left here.
    assert token.read_text() == "the other cluster's token"
    assert not (host.root / AGENT_TOKEN_FILE.lstrip("/")).exists()
    assert not any(c.startswith("sh ") for c in result.calls)


def test_the_secrets_never_rest_outside_k3s_files(host: FakeHost) -> None:
    assert host.run(_install(), stdin=BUNDLE).code == 0
    secret_files = {TOKEN_FILE, AGENT_TOKEN_FILE, "/var/lib/rancher/k3s/server/tls/server-ca.crt"}
    for path in host.root.rglob("*"):
        if path.is_file() and f"/{path.relative_to(host.root)}" not in secret_files:
            assert "s3cret-token" not in path.read_text(errors="replace"), path
    assert list((host.root / "run").iterdir()) == []  # the bundle's working copy (memory-backed) is gone


def test_only_a_pong_counts_and_servers_check_the_cluster_ca(host: FakeHost) -> None:
    host.stub(
        "curl", 'echo "curl $*" >> "$STATE/calls.log"; case "$*" in */ping*) echo "<html>hi</html>" ;; esac'
    )
    first = Join(SERVER_URLS[1:], may_init=True, cluster_init=True)
    result = host.run(_install(join=first), stdin=BUNDLE)  # fails later at the download: enough here
    probes = [c for c in result.calls if "/ping" in c]
    assert len(probes) == 6  # an answer that is not "pong" is no server
    ca = host.root / "var/lib/rancher/k3s/server/tls/server-ca.crt"
    assert all(f"--cacert {ca}" in c and " -k " not in f" {c} " for c in probes)
    assert (host.root / JOIN_FILE.lstrip("/")).read_text() == "cluster-init: true\n"


def test_a_single_server_becoming_the_first_of_three_moves_to_embedded_etcd(host: FakeHost) -> None:
    assert host.run(_install(), stdin=BUNDLE).code == 0
    assert (host.root / JOIN_FILE.lstrip("/")).read_text() == "cluster-init: false\n"
    three = Join(SERVER_URLS[1:], may_init=True, cluster_init=True)
    result = host.run(_install(join=three), stdin=BUNDLE)
    assert result.code == 0, result.stderr
    assert (host.root / JOIN_FILE.lstrip("/")).read_text() == "cluster-init: true\n"  # k3s converts SQLite
    assert "FORCE=true" in next(c for c in result.calls if c.startswith("sh "))


def test_a_failed_download_is_retried_with_backoff_then_given_up_with_a_clear_message(host: FakeHost) -> None:
    (host.state / "curl-failures").write_text("2")
    (host.state / "answering").write_text(SERVER_URLS[0] + "\n")
    retried = host.run(_install(NodeRole.AGENT, join=Join(SERVER_URLS)), stdin=AGENT_BUNDLE)
    assert retried.code == 0, retried.stderr
    assert [c for c in retried.calls if c.startswith("sleep")] == ["sleep 1", "sleep 4"]
    assert len([c for c in retried.calls if c.startswith("curl -sfL")]) == 4  # 3 for the binary, 1 installer

    other = FakeHost(host.state.parent / "second")
    (other.state / "curl-failures").write_text("9")
    (other.state / "answering").write_text(SERVER_URLS[0] + "\n")
    failed = other.run(_install(NodeRole.AGENT, join=Join(SERVER_URLS)), stdin=AGENT_BUNDLE)
    assert failed.code == 1
    assert f"could not download {binary_url(VERSION, 'amd64')} after 5 attempts" in failed.stderr


def test_the_token_is_only_ever_read_from_stdin() -> None:
    script = _install()
    assert "s3cret" not in script
    assert base64.b64encode(b"s3cret-token").decode() not in script


# --- uninstall and drain


def test_uninstall_removes_k3s_and_gpukit_files_and_can_run_again(host: FakeHost) -> None:
    assert host.run(_install(), stdin=BUNDLE).code == 0
    uninstaller = host.root / "usr/local/bin/k3s-uninstall.sh"
    uninstaller.parent.mkdir(parents=True, exist_ok=True)
    uninstaller.write_text('#!/usr/bin/env bash\necho "k3s-uninstall" >> "$STATE/calls.log"\n')
    uninstaller.chmod(0o755)
    first = host.run(uninstall_script(NodeRole.SERVER))
    assert first.code == 0
    assert "k3s-uninstall" in first.calls
    assert not (host.root / "etc/rancher/k3s/config.yaml").exists()
    assert not (host.root / TOKEN_FILE.lstrip("/")).exists()
    uninstaller.unlink()
    second = host.run(uninstall_script(NodeRole.SERVER))
    assert second.code == 0
    assert "nothing to remove" in second.stdout


def test_drain_moves_pods_off_then_removes_the_node(host: FakeHost) -> None:
    nothing = host.run(drain_script("l40s-192-0-2-11"))
    assert nothing.code == 0 and "no k3s on this server" in nothing.stdout
    assert host.run(_install(), stdin=BUNDLE).code == 0
    (host.state / "node-present").touch()
    drained = host.run(drain_script("l40s-192-0-2-11"))
    assert drained.code == 0
    assert (
        "k3s kubectl drain l40s-192-0-2-11 --ignore-daemonsets --delete-emptydir-data --timeout=300s"
        in drained.calls
    )
    assert "k3s kubectl delete node l40s-192-0-2-11 --ignore-not-found" in drained.calls


# --- static checks on every rendered script


RENDERED = {
    "preflight-gpu": lambda: preflight_script(2, "L40S", DriverMode.PREINSTALLED, 570, "12.8"),
    "preflight-own-host": lambda: preflight_script(
        2, "L40S", DriverMode.PREINSTALLED, 570, "12.8", rdma=True
    ),
    "preflight-cpu": lambda: preflight_script(0, "", DriverMode.OPERATOR),
    "install-server": _install,
    "install-agent": lambda: _install(NodeRole.AGENT, join=Join(SERVER_URLS)),
    "metadata-guard": metadata_guard_script,
    "node-sync": lambda: node_sync_script(1800),
    "server-rejoin": lambda: server_rejoin_script(server_join(1, list(SERVER_URLS))),
    "uninstall-server": lambda: uninstall_script(NodeRole.SERVER),
    "uninstall-agent": lambda: uninstall_script(NodeRole.AGENT),
    "drain": lambda: drain_script("l40s-192-0-2-11"),
}


@pytest.mark.parametrize("name", sorted(RENDERED))
def test_rendered_scripts_are_shellcheck_clean(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.sh"
    path.write_text(RENDERED[name]())
    assert shellcheck_problems(path) == ""


@pytest.mark.parametrize("name", sorted(RENDERED))
def test_rendered_scripts_golden(name: str, golden) -> None:  # type: ignore[no-untyped-def]
    golden(f"scripts/{name}.sh", RENDERED[name]())


def test_a_server_waits_for_its_api_before_reporting_success(host: FakeHost) -> None:
    (host.state / "api-down").touch()
    result = host.run(_install(), stdin=BUNDLE)
    assert result.code == 1
    assert "the Kubernetes API on this server did not become ready within 300s" in result.stderr
    assert result.calls.count("k3s kubectl get --raw=/readyz") == 61  # every 5s for 300s, then once more


# --- node sync (servers, every two minutes)

NODE_SYNC_K3S = r"""
echo "k3s $*" >> "$STATE/calls.log"
case "$*" in
  "kubectl -n kube-system get configmap gpukit-pools"*) cat "$STATE/pools" ;;
  "kubectl -n kube-system get configmap gpukit-node-sync --ignore-not-found "*)
    [ ! -e "$STATE/record-error" ] || exit 1  # the API failing, not the record missing
    [ -e "$STATE/record" ] || exit 0  # missing: --ignore-not-found prints nothing, succeeds
    cat "$STATE/record" ;;
  "kubectl -n kube-system create configmap gpukit-node-sync "*) echo "$*" ;;
  "kubectl apply "*) cat > "$STATE/applied" ;;
  "kubectl get nodes -l gpukit.dev/pool=l4 "*)
    [ ! -e "$STATE/nodes-error" ] || exit 1
    cat "$STATE/nodes-l4" 2>/dev/null ;;
  "kubectl get nodes -l gpukit.dev/pool,!"*) cat "$STATE/readiness" 2>/dev/null ;;
  "kubectl get nodes -l gpukit.dev/pool,node-role"*) cat "$STATE/servers" 2>/dev/null ;;
  "kubectl get node "*"gpukit\.dev/labels"*) cat "$STATE/labels-$4" 2>/dev/null ;;
  "kubectl get node "*"gpukit\.dev/taints"*) cat "$STATE/taints-$4" 2>/dev/null ;;
  "kubectl label node "*)
    for arg in "$@"; do
      case "$arg" in node-restriction.kubernetes.io/*) exit 1 ;; esac  # NodeRestriction's keys
    done ;;
esac
exit 0
"""
RECORD_WRITE = "k3s kubectl -n kube-system create configmap gpukit-node-sync"


def _sync_calls(result: Result) -> list[str]:
    """What the sync changed on nodes: every kubectl call but reads and the record's write."""
    return [
        c
        for c in result.calls
        if c.startswith("k3s kubectl ")
        and " get " not in c
        and not c.startswith((RECORD_WRITE, "k3s kubectl apply "))
    ]


def _record_written(host: FakeHost) -> list[str]:
    """The entries the sync wrote to its record (kube-system/gpukit-node-sync), in order."""
    applied = (host.state / "applied").read_text().split()
    return [a.removeprefix("--from-literal=") for a in applied if a.startswith("--from-literal=")]


def test_node_sync_puts_a_pools_changed_labels_and_taints_on_its_existing_nodes(host: FakeHost) -> None:
    host.stub("k3s", NODE_SYNC_K3S)
    (host.state / "pools").write_text(
        "control\tgpukit.dev/pool=control\tCriticalAddonsOnly=true:NoExecute\n"
        "l4\tgpukit.dev/pool=l4,nvidia.com/device-plugin.config=ts-4\tnvidia.com/gpu=true:NoSchedule\n"
    )
    (host.state / "nodes-l4").write_text("gpu-1")
    (host.state / "record").write_text(
        "labels.gpu-1\tgpukit.dev/pool=l4,nvidia.com/device-plugin.config=ts-2,nvidia.com/mig.config=all-1g.10gb\n"
        "taints.gpu-1\tnvidia.com/gpu=true:NoSchedule,gpukit.dev/dedicated=a:NoSchedule\n"
        "labels.gone-node\tgpukit.dev/pool=l4\n"
    )
    result = host.run(node_sync_script(0))
    assert result.code == 0, result.stderr
    assert _sync_calls(result) == [
        "k3s kubectl label node gpu-1 --overwrite nvidia.com/mig.config- gpukit.dev/pool=l4 "
        "nvidia.com/device-plugin.config=ts-4",
        "k3s kubectl taint node gpu-1 gpukit.dev/dedicated:NoSchedule-",
        "k3s kubectl taint node gpu-1 --overwrite nvidia.com/gpu=true:NoSchedule",
    ]
    # What it set is on record for next time; a node that no longer exists drops out of it.
    assert _record_written(host) == [
        "labels.gpu-1=gpukit.dev/pool=l4,nvidia.com/device-plugin.config=ts-4",
        "taints.gpu-1=nvidia.com/gpu=true:NoSchedule",
        "pool.gpu-1=l4",
    ]
    assert (
        "k3s kubectl apply --server-side --force-conflicts --field-manager=gpukit-node-sync -f -"
        in result.calls
    )


def test_node_sync_never_lets_a_node_decide_what_it_removes(host: FakeHost) -> None:
    """A kubelet may write its own Node's annotations and labels (NodeRestriction lets it update its
    Node): what a node says gpukit set must not make the sync, which runs as cluster admin, clear a
    quarantine taint or a node-restriction.kubernetes.io/ label an admin put on it."""
    host.stub("k3s", NODE_SYNC_K3S)
    (host.state / "pools").write_text("l4\tgpukit.dev/pool=l4\tnvidia.com/gpu=true:NoSchedule\n")
    (host.state / "nodes-l4").write_text("gpu-1")
    # What the node wrote on itself, where the sync used to keep its record.
    (host.state / "labels-gpu-1").write_text("gpukit.dev/pool=l4,node-restriction.kubernetes.io/tenant=a")
    (host.state / "taints-gpu-1").write_text("quarantine=true:NoExecute,nvidia.com/gpu=true:NoSchedule")
    result = host.run(node_sync_script(0))
    assert result.code == 0, result.stderr
    assert _sync_calls(result) == [
        "k3s kubectl label node gpu-1 --overwrite gpukit.dev/pool=l4",
        "k3s kubectl taint node gpu-1 --overwrite nvidia.com/gpu=true:NoSchedule",
    ]
    # Even the sync's own record removes only keys gpukit manages.
    (host.state / "record").write_text(
        "labels.gpu-1\tgpukit.dev/pool=l4,node-restriction.kubernetes.io/tenant=a,team=a\n"
        "taints.gpu-1\tquarantine=true:NoExecute\n"
    )
    result = host.run(node_sync_script(0))
    assert result.code == 0, result.stderr
    assert not [c for c in _sync_calls(result) if "node-restriction" in c or "quarantine" in c or "team" in c]


@pytest.mark.parametrize(
    "key",
    sorted(
        {
            GPU_MODEL_LABEL,
            GPU_PRESENT_LABEL,
            DEVICE_PLUGIN_CONFIG_LABEL,
            MIG_CONFIG_LABEL,
            ACCELERATOR_LABEL,
            GCE_GPU_LABEL,
        }
    ),
)
def test_node_sync_takes_off_every_label_gpukit_puts_on_k3s_pools(host: FakeHost, key: str) -> None:
    host.stub("k3s", NODE_SYNC_K3S)
    (host.state / "pools").write_text("l4\tgpukit.dev/pool=l4\t\n")
    (host.state / "nodes-l4").write_text("gpu-1")
    (host.state / "record").write_text(
        f"labels.gpu-1\tgpukit.dev/pool=l4,{key}=x\ntaints.gpu-1\t{SERVER_TAINT.spec()}\n"
    )
    result = host.run(node_sync_script(0))
    assert result.code == 0, result.stderr
    assert _sync_calls(result)[:2] == [
        f"k3s kubectl label node gpu-1 --overwrite {key}- gpukit.dev/pool=l4",
        f"k3s kubectl taint node gpu-1 {SERVER_TAINT.key}:{SERVER_TAINT.effect}-",
    ]


def test_node_sync_keeps_its_record_of_a_node_it_could_not_sync(host: FakeHost) -> None:
    host.stub("k3s", NODE_SYNC_K3S)
    (host.state / "pools").write_text("l4\tgpukit.dev/pool=l4,node-restriction.kubernetes.io/x=y\t\n")
    (host.state / "nodes-l4").write_text("gpu-1")
    (host.state / "record").write_text("labels.gpu-1\tgpukit.dev/pool=l4,gpukit.dev/old=x\n")
    result = host.run(node_sync_script(0))
    assert "could not sync node gpu-1" in result.stderr
    assert _record_written(host) == ["labels.gpu-1=gpukit.dev/pool=l4,gpukit.dev/old=x", "taints.gpu-1="]


def test_node_sync_never_syncs_a_node_that_says_it_moved_pools(host: FakeHost) -> None:
    """A kubelet may set its own Node's gpukit.dev/pool: a GPU node relabelled into an untainted pool
    would otherwise have its recorded GPU taint taken off by the sync, drawing any pod onto it."""
    host.stub("k3s", NODE_SYNC_K3S)
    (host.state / "pools").write_text("l4\tgpukit.dev/pool=l4\t\n")
    (host.state / "nodes-l4").write_text("gpu-1")
    (host.state / "record").write_text(
        "labels.gpu-1\tgpukit.dev/pool=h100\ntaints.gpu-1\tnvidia.com/gpu=true:NoSchedule\npool.gpu-1\th100\n"
    )
    result = host.run(node_sync_script(0))
    assert result.code == 0, result.stderr
    assert "node gpu-1 was in pool h100 and now says l4: not synced" in result.stderr
    assert _sync_calls(result) == []
    assert _record_written(host) == [
        "labels.gpu-1=gpukit.dev/pool=h100",
        "taints.gpu-1=nvidia.com/gpu=true:NoSchedule",
        "pool.gpu-1=h100",
    ]


@pytest.mark.parametrize("failing", ["record-error", "nodes-error"])
def test_node_sync_writes_no_record_when_a_read_fails(host: FakeHost, failing: str) -> None:
    """An API error reading the record or a pool's nodes is not "nothing there": a record written then
    would forget what earlier syncs set, and those labels and taints would never come off."""
    host.stub("k3s", NODE_SYNC_K3S)
    (host.state / "pools").write_text("l4\tgpukit.dev/pool=l4\t\n")
    (host.state / "nodes-l4").write_text("gpu-1")
    (host.state / "record").write_text("labels.gpu-1\tgpukit.dev/pool=l4,gpukit.dev/old=x\n")
    (host.state / failing).write_text("")
    result = host.run(node_sync_script(0))
    assert result.code == 0, result.stderr
    assert "left as it is" in result.stderr
    assert not (host.state / "applied").exists()


def test_node_sync_leaves_its_record_alone_without_the_desired_state(host: FakeHost) -> None:
    host.stub("k3s", NODE_SYNC_K3S.replace('cat "$STATE/pools" ;;', "exit 1 ;;"))
    (host.state / "record").write_text("labels.gpu-1\tgpukit.dev/pool=l4\n")
    result = host.run(node_sync_script(0))
    assert result.code == 0, result.stderr
    assert not (host.state / "applied").exists()


def test_node_sync_never_expands_what_it_reads_into_file_names(host: FakeHost) -> None:
    """A glob in a label list must stay text, not become the names of files on the server."""
    host.stub("k3s", NODE_SYNC_K3S)
    (host.state / "pools").write_text("l4\tgpukit.dev/pool=l4\tnvidia.com/gpu=true:NoSchedule\n")
    (host.state / "nodes-l4").write_text("gpu-1")
    (host.state / "record").write_text(
        "labels.gpu-1\tgpukit.dev/pool=l4,gpukit.dev/*\ntaints.gpu-1\tgpukit.dev/*\n"
    )
    result = host.run(node_sync_script(0))
    assert result.code == 0, result.stderr
    calls = _sync_calls(result)
    assert calls[0] == "k3s kubectl label node gpu-1 --overwrite gpukit.dev/*- gpukit.dev/pool=l4"
    assert "k3s kubectl taint node gpu-1 gpukit.dev/*:gpukit.dev/*-" in calls
    assert not any("/etc" in c or "/usr" in c for c in calls)


def test_node_sync_deletes_agent_nodes_whose_machines_are_gone(host: FakeHost) -> None:
    host.stub("k3s", NODE_SYNC_K3S)
    (host.state / "pools").write_text("")
    (host.state / "readiness").write_text(
        "gone\tUnknown\t2026-01-01T00:00:00Z\n"  # preempted months ago
        "booting\tFalse\t2099-01-01T00:00:00Z\n"  # not Ready only just now
        "fine\tTrue\t2026-01-01T00:00:00Z\n"
    )
    reaped = host.run(node_sync_script(1800))
    assert reaped.code == 0, reaped.stderr
    assert _sync_calls(reaped) == ["k3s kubectl delete node gone --ignore-not-found"]
    assert "node gone has not been Ready since 2026-01-01T00:00:00Z" in reaped.stdout
    kept = host.run(node_sync_script(0))  # hosts over SSH: a NotReady host is down, not gone
    assert kept.code == 0 and _sync_calls(kept) == []


def _machine_check(tmp_path: Path) -> MachineCheck:
    """A cloud that knows fake://gone is gone and fake://recreated was made after 2026-06-01."""
    check = tmp_path / "machine-gone-fake.sh"
    check.write_text(
        'machine_gone() { echo "asked $1 $2" >> "$STATE/asked"; [ "$1" = fake://gone ] '
        '|| { [ "$1" = fake://recreated ] && [[ "$2" < 2026-06-01 ]]; }; }\n'
    )
    return MachineCheck((check,))


def test_node_sync_removes_a_server_only_when_its_machine_is_gone(host: FakeHost, tmp_path: Path) -> None:
    """A server's Node goes (and with it its etcd member, which k3s never lets back in by itself) only
    when the cloud says its machine is gone or recreated, never because it was down for a while."""
    host.stub("k3s", NODE_SYNC_K3S)
    (host.state / "pools").write_text("")
    ready = "control-1\tTrue\t2026-01-01T00:00:00Z\tfake://there\t2026-01-01T00:00:00Z\n"
    (host.state / "servers").write_text(
        "control-0-old\tUnknown\t2026-01-01T00:00:00Z\tfake://gone\t2026-01-01T00:00:00Z\n"
        "control-2-old\tUnknown\t2026-01-01T00:00:00Z\tfake://recreated\t2026-01-01T00:00:00Z\n"
        "control-3\tUnknown\t2026-01-01T00:00:00Z\tfake://recreated\t2026-07-01T00:00:00Z\n"  # its own
        "stopped\tUnknown\t2026-01-01T00:00:00Z\tfake://there\t2026-01-01T00:00:00Z\n"  # months down
        "no-id\tUnknown\t2026-01-01T00:00:00Z\t\t2026-01-01T00:00:00Z\n" + ready + ready.replace("-1", "-4")
    )
    reaped = host.run(node_sync_script(1800, _machine_check(tmp_path)))
    assert reaped.code == 0, reaped.stderr
    assert _sync_calls(reaped) == [
        "k3s kubectl delete node control-0-old --ignore-not-found",
        "k3s kubectl delete node control-2-old --ignore-not-found",
    ]
    assert "server control-0-old is not Ready, its machine fake://gone is gone" in reaped.stdout
    # Without a cloud to ask, no server is ever removed, however long it has been down.
    alone = host.run(node_sync_script(1800))
    assert alone.code == 0 and _sync_calls(alone) == []


def test_node_sync_keeps_a_gone_server_while_etcd_would_lose_its_majority(
    host: FakeHost, tmp_path: Path
) -> None:
    host.stub("k3s", NODE_SYNC_K3S)
    (host.state / "pools").write_text("")
    (host.state / "servers").write_text(
        "control-0-old\tUnknown\t2026-01-01T00:00:00Z\tfake://gone\t2026-01-01T00:00:00Z\n"
        "control-1\tTrue\t2026-01-01T00:00:00Z\tfake://there\t2026-01-01T00:00:00Z\n"
        "control-2\tFalse\t2026-01-01T00:00:00Z\tfake://there\t2026-01-01T00:00:00Z\n"
    )
    kept = host.run(node_sync_script(1800, _machine_check(tmp_path)))
    assert kept.code == 0 and _sync_calls(kept) == []


def test_servers_run_the_node_sync_every_two_minutes(host: FakeHost) -> None:
    result = host.run(_install(), stdin=BUNDLE)
    assert result.code == 0, result.stderr
    assert "systemctl enable --now gpukit-node-sync.timer" in result.calls
    timer = (host.root / "etc/systemd/system/gpukit-node-sync.timer").read_text()
    assert "OnUnitActiveSec=2min" in timer
    assert host.mode("/usr/local/lib/gpukit/node-sync.sh") == 0o700


def test_tainted_servers_refuse_pods_that_tolerate_their_taint(host: FakeHost) -> None:
    tainted = k3s_config(
        NodeRole.SERVER, "n1", {}, ["CriticalAddonsOnly=true:NoExecute"], tls_sans=["192.0.2.10"]
    )
    script = install_script(NodeRole.SERVER, DOWNLOAD, tainted, kubelet_shutdown_config(), FIRST)
    assert host.run(script, stdin=BUNDLE).code == 0
    manifests = host.root / "var/lib/rancher/k3s/server/manifests"
    policy, binding = yaml.safe_load_all((manifests / "gpukit-server-policy.yaml").read_text())
    for obj in (policy, binding):
        kubernetes_validate.validate(obj, "1.34.0", strict=True)
    assert binding["spec"] == {"policyName": policy["metadata"]["name"], "validationActions": ["Deny"]}
    selector = policy["spec"]["matchConstraints"]["namespaceSelector"]["matchExpressions"][0]
    assert selector["operator"] == "NotIn" and selector["values"] == ["kube-system", "gpu-operator"]
    expression = policy["spec"]["validations"][0]["expression"]
    assert "CriticalAddonsOnly" in expression and "'Exists'" in expression
    # Made schedulable later: the policy goes with the taint.
    untainted = install_script(NodeRole.SERVER, DOWNLOAD, _config(), kubelet_shutdown_config(), FIRST)
    assert host.run(untainted, stdin=BUNDLE).code == 0
    assert not (manifests / "gpukit-server-policy.yaml").exists()


def _config() -> str:
    return k3s_config(NodeRole.SERVER, "n1", {}, [], tls_sans=["192.0.2.10"])


# --- a server whose etcd member was removed joins again by itself


def _rejoin(host: FakeHost, journal: str, answering: str = "", previous_start: str | None = "100") -> Result:
    """One run before a k3s start; `previous_start`: when the previous one began (None: never seen)."""
    host.stub("journalctl", f'echo "journalctl $*" >> "$STATE/calls.log"\ncat <<\'LOG\'\n{journal}\nLOG\n')
    (host.state / "answering").write_text(answering)
    started = host.root / START_MARKER.lstrip("/")
    if previous_start is not None:
        started.parent.mkdir(parents=True, exist_ok=True)
        started.write_text(previous_start + "\n")
    return host.run(server_rejoin_script(server_join(0, SERVER_URLS_WITH_OWN)))


SERVER_URLS_WITH_OWN = ["https://10.0.1.10:6443", "https://10.0.2.10:6443", "https://10.0.3.10:6443"]
REMOVED = (
    '{"level":"warn","msg":"server error","error":"the member has been permanently removed from the cluster"}'
)


def test_a_removed_server_moves_its_etcd_data_aside_and_joins_through_another(host: FakeHost) -> None:
    """k3s exits on a server whose etcd member was removed, and never comes back until its data is gone
    (k3s-io/k3s#13498): before the next start it joins again as a new member, through a server that
    answers, and never as a new cluster, even on the server that once started the cluster."""
    etcd = host.root / ETCD_DIR.lstrip("/")
    (etcd / "member").mkdir(parents=True)
    snapshots = etcd.parent / "snapshots"
    snapshots.mkdir()
    join = host.root / JOIN_FILE.lstrip("/")
    join.parent.mkdir(parents=True)
    join.write_text("cluster-init: true\n")
    result = _rejoin(host, REMOVED, answering="https://10.0.3.10:6443\n")
    assert result.code == 0, result.stderr
    assert "joining again through https://10.0.3.10:6443" in result.stdout
    assert join.read_text() == "server: https://10.0.3.10:6443\n"
    assert not etcd.exists() and snapshots.exists()
    (moved,) = etcd.parent.glob("etcd.removed-*")
    assert (moved / "member").is_dir()
    # The next start looks only at what k3s logged since.
    since = (host.root / REJOIN_MARKER.lstrip("/")).read_text().strip()
    etcd.mkdir()
    again = _rejoin(host, "", answering="https://10.0.3.10:6443\n")
    assert again.code == 0 and etcd.exists()
    assert f"journalctl -u k3s --since @{since} -o cat --no-pager" in again.calls


@pytest.mark.parametrize(
    ("journal", "answering"),
    [
        ('level=info msg="etcd is up"', "https://10.0.2.10:6443\n"),  # not removed: a plain restart
        (REMOVED, ""),  # removed, but no other server answers: never a cluster of its own
    ],
)
def test_a_server_keeps_its_etcd_data_unless_removed_and_another_server_answers(
    host: FakeHost, journal: str, answering: str
) -> None:
    etcd = host.root / ETCD_DIR.lstrip("/")
    etcd.mkdir(parents=True)
    join = host.root / JOIN_FILE.lstrip("/")
    join.parent.mkdir(parents=True)
    join.write_text("server: https://10.0.2.10:6443\n")
    result = _rejoin(host, journal, answering)
    assert result.code == 0, result.stderr
    assert etcd.exists() and join.read_text() == "server: https://10.0.2.10:6443\n"


def test_the_removed_line_is_found_in_a_long_journal(host: FakeHost) -> None:
    """`grep -q` would stop at the match, journalctl would fail on the closed pipe, and pipefail would
    turn the match into none: on a real server the rejoin would never fire."""
    etcd = host.root / ETCD_DIR.lstrip("/")
    etcd.mkdir(parents=True)
    journal = REMOVED + "\n" + "\n".join(f"line {i}" for i in range(20000))
    host.stub(
        "journalctl",
        f"cat <<'LOG' || exit 1\n{journal}\nLOG\n",
    )
    (host.state / "answering").write_text("https://10.0.2.10:6443\n")
    started = host.root / START_MARKER.lstrip("/")
    started.parent.mkdir(parents=True, exist_ok=True)
    started.write_text("100\n")
    result = host.run(server_rejoin_script(server_join(0, SERVER_URLS_WITH_OWN)))
    assert result.code == 0, result.stderr
    assert not etcd.exists()


def test_only_what_k3s_logged_since_the_previous_start_counts(host: FakeHost) -> None:
    """The first start the script sees only records its time (an old "removed" line from an incident
    fixed by hand must not move a healthy member aside); the next start reads the log from there."""
    etcd = host.root / ETCD_DIR.lstrip("/")
    etcd.mkdir(parents=True)
    first = _rejoin(host, REMOVED, answering="https://10.0.2.10:6443\n", previous_start=None)
    assert first.code == 0 and etcd.exists()
    assert "journalctl" not in first.calls
    recorded = (host.root / START_MARKER.lstrip("/")).read_text().strip()
    assert recorded.isdigit()
    second = _rejoin(host, REMOVED, answering="https://10.0.2.10:6443\n", previous_start=recorded)
    assert f"journalctl -u k3s --since @{recorded} -o cat --no-pager" in second.calls
    assert not etcd.exists()


def test_servers_check_for_a_removed_member_before_every_k3s_start(host: FakeHost) -> None:
    result = host.run(_install(), stdin=BUNDLE)
    assert result.code == 0, result.stderr
    drop_in = host.root / "etc/systemd/system/k3s.service.d/50-gpukit-rejoin.conf"
    assert drop_in.read_text().strip() == REJOIN_DROP_IN
    assert host.mode("/usr/local/lib/gpukit/server-rejoin.sh") == 0o700
    assert "\nREJOIN_SCRIPT=''\n" in _install(NodeRole.AGENT, join=Join(SERVER_URLS))  # agents have no etcd

"""The NCCL check's script, both sides, executed under bash with stub sshd, ssh and mpirun (mpirun prints
a recorded-format log, tests/fixtures/nccl) and the real judge; and the rendered scripts shellcheck-clean.
"""

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from gpukit.components.addons.interconnect import nccl_judge
from gpukit.components.addons.interconnect.nccl_check import (
    BUSBW_GATES,
    NcclExpectation,
    NcclPoolCheck,
    ScriptPaths,
    check_script,
)
from tools import shellcheck_problems

FIXTURES = Path(__file__).parents[1] / "fixtures" / "nccl"
CHECK = NcclPoolCheck(
    pool="h100",
    node_selector=(("gpukit.dev/pool", "h100"),),
    tolerations=(("nvidia.com/gpu", "Exists", "NoSchedule"),),
    gpus_per_node=8,
    requests=(("hugepages-2Mi", "5120Mi"), ("vpc.amazonaws.com/efa", "32")),
    env=(("FI_EFA_USE_DEVICE_RDMA", "1"), ("FI_PROVIDER", "efa")),
    expectation=NcclExpectation(("Libfabric", "OFI"), True, BUSBW_GATES["p5.48xlarge"]),
)
STUBS = {
    "sshd": 'printf "%s\\n" "$*" >> "$CALLS/sshd"\n',
    # ssh: record, then run what the launcher asks of the worker (`touch <done>`) locally.
    "ssh": 'printf "%s\\n" "$*" >> "$CALLS/ssh"\nlast="${*: -2}"\n'
    'case "$last" in "touch "*) touch "${last#touch }" ;; esac\n',
    "mpirun": 'printf "%s\\n" "$*" >> "$CALLS/mpirun"\ncat "$NCCL_LOG"\nexit "${MPIRUN_STATUS:-0}"\n',
}


@dataclass
class Side:
    code: int
    out: str
    calls: Path
    done: Path

    def called(self, tool: str) -> str:
        path = self.calls / tool
        return path.read_text() if path.exists() else ""


LAUNCHER, WORKER = "0", "1"
JOB = "nccl-h100-0123abcd"


def run_side(tmp_path: Path, index: str, log: str = "p5-passing.log", **env: str) -> Side:
    stubs, calls, keys = tmp_path / "bin", tmp_path / "calls", tmp_path / "keys"
    for folder in (stubs, calls, keys):
        folder.mkdir(exist_ok=True)
    for tool, body in STUBS.items():
        (stubs / tool).write_text("#!/usr/bin/env bash\n" + body)
        (stubs / tool).chmod(0o755)
    for name in ("id_ed25519", "authorized_keys", "known_hosts", "ssh_host_ed25519_key"):
        (keys / name).write_text(f"test {name}\n")
    all_reduce = stubs / "all_reduce_perf"
    all_reduce.write_text("#!/usr/bin/env bash\n")
    all_reduce.chmod(0o755)
    paths = ScriptPaths(
        sshd=str(stubs / "sshd"),
        privsep_dir=str(tmp_path / "run-sshd"),
        all_reduce=str(all_reduce),
        ssh_dir=str(tmp_path / "ssh"),
        host_key=str(tmp_path / "host_key"),
        done=str(tmp_path / "done"),
        log=str(tmp_path / "nccl.log"),
        keys_dir=str(keys),
        tools_dir=str(Path(nccl_judge.__file__).parent),
    )
    environment = {
        **os.environ,
        "PATH": f"{stubs}:{os.environ['PATH']}",
        "CALLS": str(calls),
        "NCCL_LOG": str(FIXTURES / log),
        "NCCL_SOCKET_IFNAME": "^docker,lo,veth",
        "PMIX_MCA_gds": "hash",
        "FI_PROVIDER": "efa",
        "FI_EFA_USE_DEVICE_RDMA": "1",
        "JOB_COMPLETION_INDEX": index,
        "JOB_NAME": JOB,
        **env,
    }
    done = subprocess.run(
        ["bash", "-c", check_script(CHECK, paths)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return Side(done.returncode, done.stdout + done.stderr, calls, Path(paths.done))


def test_the_launcher_runs_16_ranks_over_both_nodes_and_passes_a_healthy_run(tmp_path: Path) -> None:
    side = run_side(tmp_path, LAUNCHER)
    assert side.code == 0, side.out
    assert side.out.splitlines()[-2:] == [
        "gpukit-verify: ok: all_reduce bus bandwidth 487.6 GB/s at 16 GiB over Libfabric",
        "gpukit-verify: ok: pool h100: NCCL over the fabric between two nodes",
    ]
    (mpirun,) = side.called("mpirun").splitlines()
    assert f"-np 16 -H localhost:8,{JOB}-1.nccl-h100:8 " in mpirun
    # Open MPI 4 would cut the worker's name at its first dot, which does not resolve alone.
    assert " --mca orte_keep_fqdn_hostnames 1 " in mpirun
    exported = mpirun.split()
    forwarded = {exported[i + 1] for i, arg in enumerate(exported) if arg == "-x"}
    assert {"NCCL_DEBUG=INFO", "FI_EFA_USE_DEVICE_RDMA", "FI_PROVIDER", "PATH"} <= forwarded
    assert {"NCCL_SOCKET_IFNAME", "PMIX_MCA_gds"} <= forwarded  # the image's, set in the container
    assert "HOME" not in forwarded and "NCCL_DEBUG" not in forwarded
    assert " --mca pml ^ucx --mca btl tcp,self " in mpirun
    assert mpirun.endswith("/all_reduce_perf -b 8 -e 16G -f 2 -g 1 -c 1 -n 20")
    # Host keys checked against the check's own known_hosts, never the image's "no" default.
    assert "--mca plm_rsh_args -p 2222 -o BatchMode=yes -o StrictHostKeyChecking=yes " in mpirun
    assert side.done.exists()  # it told the worker to stop
    assert side.called("ssh").splitlines()[0].endswith(f"{JOB}-1.nccl-h100 true")


def test_the_launcher_fails_a_slow_run_with_the_judges_reason(tmp_path: Path) -> None:
    side = run_side(tmp_path, LAUNCHER, log="p5-slow.log")
    assert side.code == 1
    fails = [line for line in side.out.splitlines() if line.startswith("gpukit-verify: FAIL: ")]
    assert fails == [
        "gpukit-verify: FAIL: bus bandwidth 179.9 GB/s at 16 GiB (out of place) is below the 300 GB/s this "
        "machine reaches (NVIDIA AICR's EKS H100 gate)",
        "gpukit-verify: FAIL: pool h100: the NCCL check failed (lines above)",
    ]
    assert side.done.exists()  # the worker is released on failure too


def test_the_launcher_fails_a_socket_fallback(tmp_path: Path) -> None:
    side = run_side(tmp_path, LAUNCHER, log="p5-socket-fallback.log")
    assert side.code == 1
    assert "gpukit-verify: FAIL: NCCL fell back to TCP sockets (NET/Socket)" in side.out


def test_a_failed_mpirun_fails_the_check_even_with_a_fast_log(tmp_path: Path) -> None:
    side = run_side(tmp_path, LAUNCHER, MPIRUN_STATUS="3")
    assert side.code == 1
    assert side.out.splitlines()[-1] == "gpukit-verify: FAIL: pool h100: all_reduce_perf exited with status 3"


def test_the_worker_serves_until_the_launcher_is_done(tmp_path: Path) -> None:
    (tmp_path / "done").touch()
    side = run_side(tmp_path, WORKER)
    assert side.code == 0, side.out
    assert side.out.splitlines()[-1] == "gpukit-verify: ok: pool h100: worker served the run"
    (sshd,) = side.called("sshd").splitlines()
    assert sshd.startswith(f"-p 2222 -h {tmp_path / 'host_key'} ")
    for option in ("PermitRootLogin=prohibit-password", "PasswordAuthentication=no", "StrictModes=yes"):
        assert f"-o {option}" in sshd
    assert side.called("mpirun") == ""
    assert oct((tmp_path / "ssh" / "id_ed25519").stat().st_mode & 0o777) == "0o600"


def test_a_hung_run_is_stopped_and_judged(tmp_path: Path) -> None:
    """An EFA or NCCL hang blocks mpirun: the launcher stops it after RUN_SECONDS and says so."""
    side = run_side(tmp_path, LAUNCHER, MPIRUN_STATUS="124")
    assert side.code == 1
    assert side.out.splitlines()[-1].startswith(
        "gpukit-verify: FAIL: pool h100: all_reduce_perf did not finish within 900 seconds (a hang"
    )


def test_the_rendered_script_is_shellcheck_clean(tmp_path: Path) -> None:
    path = tmp_path / "nccl-check.sh"
    path.write_text(check_script(CHECK))
    assert shellcheck_problems(path) == ""

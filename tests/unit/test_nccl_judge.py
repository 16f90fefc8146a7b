"""The NCCL check's judge on nccl-tests logs (tests/fixtures/nccl/README.md says what they are): a passing
EFA run, a slow one, a socket fallback, a run cut short and one with wrong values; and that the judge
runs as the launcher pod runs it (python3.10, the standard library only, exit 1 on failure)."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from gpukit.components.addons.interconnect import nccl_judge
from gpukit.components.addons.interconnect.nccl_judge import Expectation, judge, parse

FIXTURES = Path(__file__).parents[1] / "fixtures" / "nccl"
EFA = ("Libfabric", "OFI")
P5 = Expectation(EFA, True, 1 << 30, 300.0, "NVIDIA AICR's EKS H100 gate", max_bytes=16 << 30)
SOCKET = (
    "NCCL fell back to TCP sockets (NET/Socket): the fabric's NCCL plugin did not load or found no device"
)


def verdict(name: str, expect: Expectation = P5) -> tuple[list[str], str]:
    return judge(parse((FIXTURES / name).read_text()), expect)


def test_a_healthy_efa_run_passes_and_says_what_it_reached() -> None:
    run = parse((FIXTURES / "p5-passing.log").read_text())
    assert run.networks == ["Libfabric"]
    assert run.net_paths == ["Libfabric"]  # the P2P line inside a node is no NET path
    assert run.gpudirect
    assert len(run.rows) == 32 and run.largest is not None and run.largest.size_bytes == 16 << 30
    assert run.avg_busbw == 161.72
    assert verdict("p5-passing.log") == (
        [],
        "all_reduce bus bandwidth 487.6 GB/s at 16 GiB over Libfabric",
    )


def test_a_slow_run_fails_below_the_gate_naming_its_source() -> None:
    failures, _ = verdict("p5-slow.log")
    assert failures == [
        "bus bandwidth 179.9 GB/s at 16 GiB (out of place) is below the 300 GB/s this machine reaches "
        "(NVIDIA AICR's EKS H100 gate)"
    ]
    no_gate = Expectation(EFA, True, 1 << 30, None)
    assert verdict("p5-slow.log", no_gate)[0] == []  # without a published gate: reported, not judged


def test_a_socket_fallback_fails_even_where_no_gate_is_set() -> None:
    failures, summary = verdict("p5-socket-fallback.log", Expectation(EFA, True, 1 << 30, None))
    assert failures == [SOCKET]  # not also "no Libfabric" nor "no GDRDMA": one cause, said once
    assert summary == "all_reduce bus bandwidth 14.0 GB/s at 16 GiB over Socket"
    assert verdict("p5-socket-fallback.log")[0][0] == SOCKET


def test_a_run_cut_short_fails_though_its_rows_were_fast() -> None:
    assert verdict("p5-truncated.log")[0] == ["the run stopped after 1 GiB (no `# Avg bus bandwidth` line)"]


def test_wrong_values_fail_counted_once() -> None:
    assert verdict("p5-wrong-values.log")[0] == [
        "nccl-tests found 24 wrong values: a GPU, NVLink or the network corrupts data"
    ]


def test_a_log_without_nccl_info_lines_cannot_show_the_fabric() -> None:
    table = [
        line
        for line in (FIXTURES / "p5-passing.log").read_text().splitlines()
        if "NCCL INFO" not in line and "NET/OFI" not in line
    ]
    failures, _ = judge(parse("\n".join(table)), P5)
    assert failures == [
        "NCCL names no Libfabric or OFI transport; it said: nothing (was NCCL_DEBUG=INFO set?)",
        "no channel between nodes uses GPUDirect RDMA (no `via NET/.../GDRDMA` line)",
    ]


def test_efa_without_gpudirect_fails_where_the_machine_has_it() -> None:
    text = (FIXTURES / "p5-passing.log").read_text().replace("/GDRDMA", "")
    assert judge(parse(text), P5)[0] == [
        "no channel between nodes uses GPUDirect RDMA (no `via NET/.../GDRDMA` line)"
    ]
    assert judge(parse(text), Expectation(EFA, False, 1 << 30, 300.0))[0] == []


def test_a_sweep_that_stops_short_of_large_messages_is_not_judged_fast() -> None:
    lines = (FIXTURES / "p5-passing.log").read_text().splitlines()
    small = [line for line in lines if not line.strip()[:1].isdigit() or int(line.split()[0]) <= 256 << 20]
    failures, _ = judge(parse("\n".join(small)), Expectation(EFA, True, 1 << 30, 300.0))
    assert failures == ["the largest message was 256 MiB; the bandwidth is judged at 1 GiB or more"]
    failures, _ = judge(parse("\n".join(small)), P5)
    assert failures == [
        "the table ends at 256 MiB; the sweep was asked to reach 16 GiB (a row lost among NCCL's lines, "
        "or a run cut short)"
    ]


def test_a_last_row_split_by_an_nccl_line_is_not_passed_on_the_row_before() -> None:
    """NCCL prints to the same stream: an INFO line in the middle of the 16 GiB row hides it, and the
    8 GiB row must not stand in for it."""
    text = (FIXTURES / "p5-passing.log").read_text()
    row = next(line for line in text.splitlines() if line.split()[:1] == [str(16 << 30)])
    cut = (
        row[:40] + "ip-10-60-1-42:4108:4190 [0] NCCL INFO Channel 03/1 : 8[0] -> 0[0] [receive]\n" + row[40:]
    )
    failures, _ = judge(parse(text.replace(row, cut)), P5)
    assert failures == [
        "the table ends at 8 GiB; the sweep was asked to reach 16 GiB (a row lost among NCCL's lines, "
        "or a run cut short)"
    ]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Using network Libfabric", "Using network AWS Libfabric"),  # aws-ofi-nccl's older name
        ("Using network Libfabric", "Using network OFI"),  # NCCL_NET=OFI
        ("/GDRDMA", "/GDRDMA/Shared"),
        ("/GDRDMA", "/GDRDMA(PCI)"),
    ],
)
def test_the_spellings_nccl_and_the_plugin_use_for_the_same_thing_pass(old: str, new: str) -> None:
    text = (FIXTURES / "p5-passing.log").read_text().replace(old, new)
    if "OFI" in new:
        text = text.replace("via NET/Libfabric/", "via NET/OFI/")
    assert judge(parse(text), P5)[0] == []


def test_rows_with_exponent_formatted_times_and_wrong_counts_are_read() -> None:
    """nccl-tests prints times of 1e8 us or more as %7.1e and #wrong as %6g."""
    row = (
        "17179869184    4294967296     float     sum      -1  1.2e+08    0.14    0.27  1.07374e+09  "
        "1.2e+08    0.14    0.27      0"
    )
    (parsed,) = parse(row).rows
    assert (parsed.size_bytes, parsed.busbw_out_of_place, parsed.wrong) == (16 << 30, 0.27, 1073740000)


def test_no_rows_at_all() -> None:
    assert judge(parse("mpirun: ssh: connect to host worker port 2222: refused\n"), P5)[0] == [
        "no result rows: the run ended before its first message size (read the log above)",
        "NCCL names no Libfabric or OFI transport; it said: nothing (was NCCL_DEBUG=INFO set?)",
        "no channel between nodes uses GPUDirect RDMA (no `via NET/.../GDRDMA` line)",
    ]


@pytest.mark.parametrize(
    ("name", "code", "last"),
    [
        (
            "p5-passing.log",
            0,
            "gpukit-verify: ok: all_reduce bus bandwidth 487.6 GB/s at 16 GiB over Libfabric",
        ),
        (
            "p5-slow.log",
            1,
            "gpukit-verify: measured: all_reduce bus bandwidth 179.9 GB/s at 16 GiB over Libfabric",
        ),
    ],
)
def test_the_judge_runs_as_a_script_and_exits_1_on_failure(name: str, code: int, last: str) -> None:
    args = ["--network", "Libfabric", "--network", "OFI", "--gpudirect", "--min-busbw", "300"]
    args += ["--source", "NVIDIA AICR", "--max-bytes", str(16 << 30)]
    done = subprocess.run(
        [sys.executable, nccl_judge.__file__, *args],
        input=(FIXTURES / name).read_text(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == code, done.stderr
    assert done.stdout.splitlines()[-1] == last
    fails = [line for line in done.stdout.splitlines() if line.startswith("gpukit-verify: FAIL: ")]
    assert len(fails) == code


def test_the_judge_needs_only_what_the_images_python_has() -> None:
    """It runs under the nccl-tests image's python3 (Ubuntu 22.04: 3.10): 3.10 syntax, the standard
    library only, nothing of gpukit."""
    source = Path(nccl_judge.__file__).read_text()
    tree = ast.parse(source, feature_version=(3, 10))
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
    }
    assert imported <= {"__future__", "argparse", "re", "sys", "dataclasses", "pathlib"}
    assert imported <= sys.stdlib_module_names | {"__future__"}

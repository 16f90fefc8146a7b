"""Judge one nccl-tests all_reduce_perf run from its output: did NCCL go over the fabric, and was the
large-message bus bandwidth what the machine should reach?

Runs in the NCCL check's launcher pod (python3 of the nccl-tests image, Ubuntu 22.04's 3.10: the
standard library only, nothing newer than 3.10) on the log the run printed, and under the unit tests on
recorded logs: one implementation decides both. Prints `gpukit-verify: FAIL: <why>` per failure (what
`gpukit verify` and the failed Job's log show) or one `gpukit-verify: ok: ...` line; exits 1 on failure.

What it reads (nccl-tests src/common.cu, v2.13 to v2.19): one table line per message size, `size count
type redop root` then, out of place and in place, `time algbw busbw #wrong` (`#wrong` is `N/A` with
checking off, `-c 0`); comment lines start with `#`; the run ends with `# Out of bounds values : <n>
OK|FAILED` and `# Avg bus bandwidth : <GB/s>`. And NCCL's own log (NCCL_DEBUG=INFO), interleaved: the
network plugin it uses (`NCCL INFO Using network <name>`) and each channel's path between ranks on two
nodes (`... via NET/<name>/<dev>[/GDRDMA]`; `via P2P/...` and `via SHM/...` stay inside a node).

The rules (shared/reference interconnect.md 4.3 and 4.4, the practice of AWS's and NVIDIA's validators):
- any wrong value, or a run that did not reach its summary, fails;
- NCCL's sockets transport (`Using network Socket`, `via NET/Socket`) fails: the fabric's plugin did
  not load or found no device, and a socket run can still look fast at small sizes;
- the fabric's plugin must be named (`--network`, substrings, any of them: `Libfabric` or `OFI` for
  EFA's aws-ofi-nccl);
- with `--gpudirect`, some NET path must say `/GDRDMA` (AWS's EKS tests require it where EC2 offers
  GPUDirect RDMA reads);
- the table must reach the sweep's largest message (`--max-bytes`: NCCL's lines, printed to the same
  stream, can split a row), which must be at least `--min-bytes`, and there the out-of-place bus
  bandwidth at least `--min-busbw` GB/s (NVIDIA AICR's rule: the last row's out-of-place busbw); no
  `--min-busbw`: the bandwidth is reported, not judged.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

PREFIX = "gpukit-verify"
# Times of 1e8 us or more print as `%7.1e`, and `#wrong` as `%6g` (`1.07374e+09`; nccl-tests
# src/util.cu), so each number is taken in either form.
_NUM = r"[\d.]+(?:e[+-]?\d+)?"
_ROW = re.compile(
    rf"\s*(?P<size>\d+)\s+\d+\s+\w+\s+\w+\s+-?\d+\s+"
    rf"{_NUM}\s+{_NUM}\s+(?P<busbw_out>{_NUM})\s+(?P<wrong_out>{_NUM}|N/A)\s+"
    rf"{_NUM}\s+{_NUM}\s+(?P<busbw_in>{_NUM})\s+(?P<wrong_in>{_NUM}|N/A)\s*"
)
_AVG = re.compile(r"#\s*Avg bus bandwidth\s*:\s*(?P<value>[\d.]+)\s*")
_BOUNDS = re.compile(r"#\s*Out of bounds values\s*:\s*(?P<count>\d+)\s+(?:OK|FAILED)\s*")
_NETWORK = re.compile(r"NCCL INFO Using network (?P<name>.+)")
# `via NET/AWS Libfabric/0/GDRDMA`, `via NET/IB/0(0)/GDRDMA`, `via NET/Socket/0`: the name runs to the
# next slash (it may hold spaces); a bare `via NET/Socket` at the end of a line has none.
_VIA_NET = re.compile(r"via NET/(?:(?P<name>[\w .-]+?)(?P<rest>/\S*)|(?P<bare>\w+))")
SOCKET = "Socket"


@dataclass(frozen=True)
class Row:
    size_bytes: int
    busbw_out_of_place: float
    """GB/s: nccl-tests' bus bandwidth, comparable to the hardware's peak whatever the rank count."""
    busbw_in_place: float
    wrong: int


@dataclass
class Run:
    rows: list[Row] = field(default_factory=list)
    avg_busbw: float | None = None
    out_of_bounds: int | None = None
    networks: list[str] = field(default_factory=list)
    """The network plugins NCCL said it uses, in order, without repeats."""
    net_paths: list[str] = field(default_factory=list)
    """The NET transports the channels between nodes go over, in order, without repeats."""
    gpudirect: bool = False
    """Whether some NET path reads and writes GPU memory directly (`.../GDRDMA`)."""

    @property
    def largest(self) -> Row | None:
        return max(self.rows, key=lambda r: r.size_bytes, default=None)


def _wrong(value: str) -> int:
    return 0 if value == "N/A" else int(float(value))


def _add(seen: list[str], item: str) -> None:
    if item not in seen:
        seen.append(item)


def parse(log: str) -> Run:
    """What one run printed (all ranks' NCCL lines included)."""
    run = Run()
    for line in log.splitlines():
        row = _ROW.fullmatch(line)
        if row is not None:
            wrong = _wrong(row["wrong_out"]) + _wrong(row["wrong_in"])
            run.rows.append(Row(int(row["size"]), float(row["busbw_out"]), float(row["busbw_in"]), wrong))
            continue
        avg = _AVG.fullmatch(line)
        if avg is not None:
            run.avg_busbw = float(avg["value"])
            continue
        bounds = _BOUNDS.fullmatch(line)
        if bounds is not None:
            run.out_of_bounds = int(bounds["count"])
            continue
        network = _NETWORK.search(line)
        if network is not None:
            _add(run.networks, network["name"].strip())
        for path in _VIA_NET.finditer(line):
            _add(run.net_paths, path["name"] or path["bare"])
            # `/GDRDMA`, `/GDRDMA(PCI)`, `/GDRDMA/Shared`: NCCL's spellings of the same path.
            run.gpudirect = run.gpudirect or "/GDRDMA" in (path["rest"] or "")
    return run


def human_bytes(size: int) -> str:
    """`16 GiB`, `128 MiB`, `8 B`."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


@dataclass(frozen=True)
class Expectation:
    """What a pool's run must show."""

    networks: tuple[str, ...]
    """Substrings of the plugin name NCCL must say it uses, any of them (`Libfabric`, `OFI` for EFA's
    aws-ofi-nccl); empty: any but sockets."""
    gpudirect: bool
    min_bytes: int
    min_busbw: float | None
    """GB/s at the largest message; None: reported, not judged."""
    source: str = ""
    """Where `min_busbw` comes from, for the failure message."""
    max_bytes: int | None = None
    """The sweep's largest message as asked (`-e`): the table must reach it (a row lost in the log, or a
    run cut short, is not judged on a smaller message)."""


def judge(run: Run, expect: Expectation) -> tuple[list[str], str]:
    """The failures (empty: passed), and the one-line summary of what the run reached."""
    failures: list[str] = []
    # The rows' counts and the summary's are the same values counted twice: take the larger.
    wrong = max(sum(r.wrong for r in run.rows), run.out_of_bounds or 0)
    if wrong:
        failures.append(f"nccl-tests found {wrong} wrong values: a GPU, NVLink or the network corrupts data")
    largest = run.largest
    if largest is None:
        failures.append("no result rows: the run ended before its first message size (read the log above)")
    elif run.avg_busbw is None:
        failures.append(
            f"the run stopped after {human_bytes(largest.size_bytes)} (no `# Avg bus bandwidth` line)"
        )
    socket = SOCKET in run.networks or SOCKET in run.net_paths
    if socket:
        failures.append(
            "NCCL fell back to TCP sockets (NET/Socket): the fabric's NCCL plugin did not load or found no "
            "device"
        )
    elif expect.networks and not any(
        wanted in name for wanted in expect.networks for name in run.networks + run.net_paths
    ):
        said = ", ".join(run.networks + run.net_paths) or "nothing (was NCCL_DEBUG=INFO set?)"
        failures.append(f"NCCL names no {' or '.join(expect.networks)} transport; it said: {said}")
    if expect.gpudirect and not socket and not run.gpudirect:
        failures.append("no channel between nodes uses GPUDirect RDMA (no `via NET/.../GDRDMA` line)")
    summary = "no bandwidth measured"
    if largest is not None:
        at = human_bytes(largest.size_bytes)
        transport = ", ".join(run.net_paths or run.networks) or "an unnamed transport"
        summary = f"all_reduce bus bandwidth {largest.busbw_out_of_place:.1f} GB/s at {at} over {transport}"
        if (
            expect.max_bytes is not None
            and largest.size_bytes < expect.max_bytes
            and run.avg_busbw is not None
        ):
            failures.append(
                f"the table ends at {at}; the sweep was asked to reach {human_bytes(expect.max_bytes)} "
                "(a row lost among NCCL's lines, or a run cut short)"
            )
        elif largest.size_bytes < expect.min_bytes:
            failures.append(
                f"the largest message was {at}; the bandwidth is judged at {human_bytes(expect.min_bytes)} "
                "or more"
            )
        elif expect.min_busbw is not None and largest.busbw_out_of_place < expect.min_busbw:
            failures.append(
                f"bus bandwidth {largest.busbw_out_of_place:.1f} GB/s at {at} (out of place) is below the "
                f"{expect.min_busbw:g} GB/s this machine reaches"
                + (f" ({expect.source})" if expect.source else "")
            )
    return failures, summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Judge an nccl-tests all_reduce_perf log (stdin or a file).")
    parser.add_argument("log", nargs="?", help="the log file; stdin when left out")
    parser.add_argument(
        "--network",
        action="append",
        default=[],
        help="a substring of the NCCL net plugin's name (repeatable)",
    )
    parser.add_argument("--gpudirect", action="store_true", help="require a /GDRDMA path between nodes")
    parser.add_argument("--min-bytes", type=int, default=1 << 30)
    parser.add_argument("--max-bytes", type=int, default=None, help="the sweep's largest message, as asked")
    parser.add_argument("--min-busbw", type=float, default=None, help="GB/s at the largest message")
    parser.add_argument("--source", default="", help="where --min-busbw comes from")
    args = parser.parse_args(argv)
    text = Path(args.log).read_text(encoding="utf-8", errors="replace") if args.log else sys.stdin.read()
    expect = Expectation(
        tuple(args.network), args.gpudirect, args.min_bytes, args.min_busbw, args.source, args.max_bytes
    )
    failures, summary = judge(parse(text), expect)
    for failure in failures:
        print(f"{PREFIX}: FAIL: {failure}")
    if not failures:
        print(f"{PREFIX}: ok: {summary}")
    else:
        print(f"{PREFIX}: measured: {summary}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

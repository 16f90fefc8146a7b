"""The `gpukit` command's conventions as a user meets them: --version, bare `gpukit`, and a plan that
leads with its verdict and summary, says how long it took, shows each pool's zones and each finding's
fix, and never points at gpukit's source files."""

import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from importlib import metadata

import pytest

from conftest import PlannedStack
from gpukit.cli import EXIT_OK, EXIT_PREFLIGHT, main
from harness import ROOT, STACKS


def test_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"gpukit {metadata.version('gpukit')}\n"


def test_bare_gpukit_prints_help_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == EXIT_OK
    out = capsys.readouterr().out
    assert out.startswith("usage: gpukit")
    for command in ("plan", "catalog", "size", "doctor"):
        assert re.search(rf"^\s+{command}\s", out, re.MULTILINE), f"{command} missing from the help"


def test_an_unknown_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["plna"])
    assert stop.value.code == 2
    assert "invalid choice: 'plna'" in capsys.readouterr().err


def test_plan_leads_with_verdict_and_summary(planned_stack: Callable[[str], PlannedStack]) -> None:
    lines = planned_stack("gke-train").report.splitlines()
    assert lines[0] == "gpukit plan: stack gke-train (gke, us-central1, Kubernetes 1.35)"
    assert lines[1] == "Result: ready to `pulumi up`"
    # The h100 pool and the Filestore volume have no price in us-central1: totals are lower bounds.
    assert lines[2] == "62 resources, 2 GPU pools, idle at least $0.491/h, max at least $7.73/h"
    assert lines[-1] == lines[1]  # and closes with it too, where a terminal's scrolling stops


def test_summary_of_a_fully_priced_stack_has_no_lower_bound(
    planned_stack: Callable[[str], PlannedStack],
) -> None:
    summary = planned_stack("eks-dev").report.splitlines()[2]  # its EFS model cache is priced too
    assert re.fullmatch(r"\d+ resources, 1 GPU pool, idle \$[\d.,]+/h, max \$[\d.,]+/h", summary)


def test_ssh_stack_header_has_no_empty_region_and_no_price(
    planned_stack: Callable[[str], PlannedStack],
) -> None:
    lines = planned_stack("k3s-ssh").report.splitlines()
    assert lines[0] == "gpukit plan: stack k3s-ssh (k3s, Kubernetes 1.36)"
    assert re.fullmatch(r"\d+ resources, 1 GPU pool, own hosts: no \$/h", lines[2])


def test_plan_says_how_long_it_took_on_stderr_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--project", str(ROOT), "--stack", "k3s-ssh"]) == EXIT_OK
    captured = capsys.readouterr()
    assert re.fullmatch(r"gpukit: planned in \d+\.\d s\n", captured.err)
    assert "planned in" not in captured.out  # the report stays the same from run to run


def test_each_pool_shows_its_zones(planned_stack: Callable[[str], PlannedStack]) -> None:
    eks = planned_stack("eks-train").report
    assert re.search(r"^l4 .* use1-az1,az2 ", eks, re.MULTILINE)  # pinned zones
    assert re.search(r"^h100 .* use1-az4 ", eks, re.MULTILINE)
    assert re.search(r"^system .* cluster's ", eks, re.MULTILINE)  # the cloud picks among the cluster's
    gke = planned_stack("gke-train").report
    # GKE: the region's zones that offer the pool's accelerator.
    assert re.search(r"^l4 .* us-central1-a,b,c ", gke, re.MULTILINE)


def test_a_finding_carries_its_fix(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (ROOT / "stacks" / "Pulumi.eks-dev.yaml").read_text()
    stack = tmp_path / "Pulumi.nocuda.yaml"
    stack.write_text(re.sub(r"(?m)^  gpukit:workloads:\n(    .*\n)+", "", text))
    assert "cudaVersion" not in stack.read_text()
    assert main(["plan", "--config", str(stack)]) in (EXIT_OK, EXIT_PREFLIGHT)
    out = capsys.readouterr().out
    info = "  info: gpukit:workloads.cudaVersion: not set: "
    fix = (
        "      fix: set gpukit:workloads.cudaVersion to the CUDA version your images are built for "
        '(e.g. "12.8")'
    )
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(info))
    assert lines[at + 1] == fix


@pytest.mark.parametrize("stack", STACKS)
def test_plan_never_points_users_at_gpukit_source_files(
    stack: str, planned_stack: Callable[[str], PlannedStack]
) -> None:
    report = planned_stack(stack).report
    for line in report.splitlines():
        if line.lstrip().startswith(("├─", "└─", "│")):
            continue  # resource names
        assert not re.search(r"\b(providers|components)/|\w\.py\b", line), line


def test_catalog_lists_gcp_gpus_with_europe_west4_prices(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalog", "--cloud", "gcp", "--region", "europe-west4"]) == EXIT_OK
    out = capsys.readouterr().out
    lines = out.splitlines()
    # The price basis first: the region and the regional table's source, not the home region's.
    assert lines[0].startswith("gcp europe-west4: on-demand list prices, USD per hour (")
    assert "us-central1" not in lines[0]
    # europe-west4's own price for g2-standard-4 (skypilot-catalog vms.csv, region_prices.py), which
    # differs from us-central1's $0.707.
    from gpukit.providers.gcp.catalog import GCP_CATALOG

    g2 = GCP_CATALOG.quote(GCP_CATALOG.machine("g2-standard-4"), "europe-west4").per_node
    assert g2 is not None and g2 != GCP_CATALOG.machine("g2-standard-4").price_per_hour
    assert re.search(rf"^L4 +1 +24 GB +g2-standard-4 +4 +16 GiB +\${g2:.3f}$", out, re.MULTILINE)
    # A machine with no price there says so rather than showing the home price.
    assert re.search(r"^H200 +8 +141 GB +a3-ultragpu-8g .* no price for europe-west4$", out, re.MULTILINE)
    # Sorted by GPU model, then count, then price.
    l4 = [line for line in lines if line.startswith("L4 ")]
    keys = [(int(line.split()[1]), float(line.rsplit("$", 1)[1])) for line in l4]
    assert keys == sorted(keys) and len(keys) > 3


def test_catalog_filters_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["catalog", "--cloud", "aws", "--gpu", "h100", "--min-gpu-memory", "80", "--max-price", "200"]
    assert main([*argv, "--json"]) == EXIT_OK
    doc = capsys.readouterr().out
    listing = json.loads(doc)
    assert listing["cloud"] == "aws" and listing["region"] == "us-east-1"
    assert listing["priceBasis"]["source"].startswith("aws/karpenter-provider-aws")
    machines = listing["machines"]
    assert machines and all(m["gpuModel"] == "H100" and m["gpuMemoryGb"] == 80 for m in machines)
    assert all(isinstance(m["pricePerHour"], float) and m["pricePerHour"] <= 200 for m in machines)
    assert [m["pricePerHour"] for m in machines] == sorted(m["pricePerHour"] for m in machines)
    assert "p5.48xlarge" in {m["instanceType"] for m in machines}
    # GPUs of other models or too little memory are left out.
    assert main(["catalog", "--cloud", "aws", "--min-gpu-memory", "100", "--json"]) == EXIT_OK
    big = json.loads(capsys.readouterr().out)["machines"]
    assert big and all(m["gpuMemoryGb"] >= 100 for m in big)


def test_catalog_takes_a_gpu_as_nvidia_smi_spells_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalog", "--cloud", "aws", "--gpu", "NVIDIA H100 80GB HBM3", "--json"]) == EXIT_OK
    machines = json.loads(capsys.readouterr().out)["machines"]
    assert machines and {m["gpuModel"] for m in machines} == {"H100"}


def test_catalog_lists_attachable_t4s_as_a_pool_names_them(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalog", "--cloud", "gcp", "--gpu", "T4"]) == EXIT_OK
    out = capsys.readouterr().out
    assert re.search(r"^T4 +2 +16 GB +n1-standard-8 \+ gpu: \{model: T4, count: 2\} ", out, re.MULTILINE)


def test_catalog_refuses_an_unknown_region_and_gpu_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalog", "--cloud", "gcp", "--region", "europe-wst4", "--gpu", "X100", "--json"]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc["exitCode"] == 2 and doc["error"] == "invalid catalog query"
    problems = {p["key"]: p["message"] for p in doc["problems"]}
    assert "did you mean europe-west4" in problems["--region"]
    assert "known: A100-40GB" in problems["--gpu"]


def test_json_errors_are_json_on_stdout_with_the_same_exit_code(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Invalid config: exit 2, every problem with its key.
    bad = tmp_path / "Pulumi.bad.yaml"
    bad.write_text(
        (ROOT / "stacks" / "Pulumi.eks-dev.yaml").read_text().replace("minNodes: 1", "minNodes: -1")
    )
    assert main(["plan", "--config", str(bad)]) == 2
    text_err = capsys.readouterr().err
    assert main(["plan", "--config", str(bad), "--json"]) == 2
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert captured.err == ""
    assert doc["exitCode"] == 2 and doc["error"].startswith("invalid configuration in ")
    assert doc["problems"] and all(set(p) == {"key", "message"} for p in doc["problems"])
    assert any(p["key"].startswith("gpukit:nodePools[") for p in doc["problems"])
    assert all(f"{p['key']}: {p['message']}" in text_err for p in doc["problems"])  # same as the text
    # An unknown stack: the stacks there are.
    assert main(["plan", "--project", str(ROOT), "--stack", "eks-prod", "--json"]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc["exitCode"] == 2 and "the stacks there are: eks-dev, eks-train" in doc["error"]


def test_budget_refusal_exits_1_with_the_plan_as_json(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (ROOT / "stacks" / "Pulumi.eks-dev.yaml").read_text()
    over = tmp_path / "Pulumi.over.yaml"
    over.write_text(text + "  gpukit:budget:\n    maxHourlyCost: 1\n")
    assert main(["plan", "--config", str(over), "--json"]) == EXIT_PREFLIGHT
    doc = json.loads(capsys.readouterr().out)
    (refusal,) = [f for f in doc["findings"] if f["severity"] == "error"]
    assert refusal["key"] == "gpukit:budget.maxHourlyCost"
    assert refusal["fix"].startswith("lower maxNodes or pick cheaper instance types")
    assert main(["plan", "--config", str(over)]) == EXIT_PREFLIGHT
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "Result: 1 preflight error(s)"


class _Terminal(io.StringIO):
    """What the CLI writes to when stdout is a terminal."""

    def isatty(self) -> bool:
        return True


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_plan_is_coloured_on_a_terminal_and_the_same_text_underneath(
    planned_stack: Callable[[str], PlannedStack], monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpukit.colour import write

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("TERM", raising=False)
    plain = planned_stack("gke-train").report
    terminal = _Terminal()
    write(plain, terminal)
    coloured = terminal.getvalue()
    assert ANSI.sub("", coloured) == plain  # same characters, same lines: tables stay aligned
    assert "\x1b[1;32mResult: ready to `pulumi up`\x1b[0m" in coloured
    assert "\x1b[33m  warning: \x1b[0m" in coloured and "\x1b[32m      fix: \x1b[0m" in coloured
    header = next(line for line in coloured.splitlines() if "GPUs/node" in line)
    assert header.startswith("\x1b[1;36mpool")  # a table's header stands out


@pytest.mark.parametrize("no_color", ["1", "true"])
def test_no_color_turns_colour_off_on_a_terminal(
    no_color: str, planned_stack: Callable[[str], PlannedStack], monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpukit.colour import write

    monkeypatch.setenv("NO_COLOR", no_color)
    terminal = _Terminal()
    write(planned_stack("gke-dev").report, terminal)
    assert terminal.getvalue() == planned_stack("gke-dev").report


def test_piped_output_is_plain_and_never_imports_rich() -> None:
    probe = (
        "import sys\nfrom gpukit.cli import main\n"
        "code = main(['catalog', '--cloud', 'gcp', '--gpu', 'L4'])\n"
        "print('rich imported' if 'rich' in sys.modules else 'rich not imported', code, file=sys.stderr)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert done.stderr.strip() == "rich not imported 0"
    assert "\x1b[" not in done.stdout and "g2-standard-4" in done.stdout


def test_a_reader_that_stops_early_gets_no_traceback() -> None:
    # `gpukit plan --json | head -1`: the reader closes the pipe; gpukit stops quietly with 141
    # (128 + SIGPIPE), never exit 1 (a preflight error) with a BrokenPipeError traceback.
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    gpukit = subprocess.Popen(
        [sys.executable, "-m", "gpukit.cli", "plan", "--stack", "eks-train", "--json"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert gpukit.stdout is not None and gpukit.stderr is not None
    gpukit.stdout.readline()
    gpukit.stdout.close()
    with gpukit.stderr:
        stderr = gpukit.stderr.read().decode()
    assert gpukit.wait(timeout=120) == 141
    assert "Traceback" not in stderr

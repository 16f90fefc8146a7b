"""Stacks priced in their own region (eu-central-1, europe-west4), lower-bound totals, and the budget
guard refusing a stack from `gpukit plan` (exit 1) and from `pulumi up` (nothing created)."""

from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml

from gpukit.cli import main
from gpukit.program import main as program_main
from harness import ROOT, record

FIXTURES = ROOT / "tests" / "fixtures" / "regional"


def fixture(name: str) -> dict[str, Any]:
    config: dict[str, Any] = yaml.safe_load((FIXTURES / f"Pulumi.{name}.yaml").read_text())["config"]
    return config


def plan(tmp_path: Path, config: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    path = tmp_path / "Pulumi.stack.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    code = main(["plan", "--config", str(path)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_eu_central_1_stack_is_priced_in_eu_central_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = plan(tmp_path, fixture("eks-frankfurt"), capsys)
    assert code == 0
    assert "Cost (list prices in eu-central-1, undated catalog snapshot @00148f2a; USD per hour):" in out
    assert "  price source: skypilot-org/skypilot-catalog catalogs/v8/aws/vms.csv @00148f2a" in out
    # 4 x g6.xlarge at eu-central-1's $1.0064 (us-east-1 would be 4 x $0.8048 = $3.22).
    assert any(
        line.split()[:2] == ["l4", "g6.xlarge"] and line.endswith("$4.03") for line in out.splitlines()
    )
    # 0.10 EKS + 0.045 NAT + 2 x 0.12075 + 4 x 1.0064 + 13.12002 = 17.53
    assert "  total at max (max nodes):  $17.53" in out
    assert "  budget (gpukit:budget.maxHourlyCost): $25.00 at max nodes; within it" in out


def test_europe_west4_stack_is_priced_in_europe_west4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = plan(tmp_path, fixture("gke-netherlands"), capsys)
    assert code == 0
    assert "Cost (list prices in europe-west4, undated catalog snapshot @006059e0; USD per hour):" in out
    # 8 x g2-standard-8 at europe-west4's $0.89661 (us-central1: $0.85362).
    assert any(
        line.split()[:2] == ["l4", "g2-standard-8"] and line.endswith("$7.17") for line in out.splitlines()
    )
    assert "cluster charges below are us-central1 list prices (gpukit has none for europe-west4)" in out


def test_unpriced_pool_shows_no_price_and_lower_bound_totals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = fixture("eks-frankfurt")
    del config["gpukit:budget"]
    config["gpukit:nodePools"].append(
        {"name": "h100", "instanceType": "p5.48xlarge", "minNodes": 0, "maxNodes": 1, "zones": ["euc1-az1"]}
    )
    code, out, _ = plan(tmp_path, config, capsys)
    assert code == 0
    h100 = next(line for line in out.splitlines() if line.startswith("h100 "))
    # At 0 idle nodes it costs $0.00, price or not; at max nodes its price is missing.
    assert h100.endswith("$0.00     no price for eu-central-1")
    assert "  total at idle (min nodes): $0.266" in out  # h100 idles at 0 nodes: exact
    assert "  total at max (max nodes):  at least $17.53" in out
    assert "  ! NO PRICE for pool(s) h100 (p5.48xlarge): no price for eu-central-1." in out


def test_budget_over_the_limit_exits_1_naming_the_pools_largest_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = fixture("eks-frankfurt")
    config["gpukit:budget"] = {"maxHourlyCost": 10}
    code, out, _ = plan(tmp_path, config, capsys)
    assert code == 1
    line = next(line for line in out.splitlines() if "error: gpukit:budget.maxHourlyCost" in line)
    assert (
        "the stack costs $17.53/h at max nodes at list prices in eu-central-1, over the limit of $10.00/h"
        in line
    )
    drivers = line.split("largest first: ", 1)[1]
    assert (
        drivers.index("pool l40s $13.12/h") < drivers.index("pool l4 $4.03/h") < drivers.index("pool system")
    )


def test_unpriced_pool_under_the_limit_refuses_unless_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = fixture("eks-frankfurt")
    config["gpukit:nodePools"].append(
        {"name": "h100", "instanceType": "p5.48xlarge", "minNodes": 0, "maxNodes": 1, "zones": ["euc1-az1"]}
    )
    code, out, _ = plan(tmp_path, config, capsys)
    assert code == 1
    assert "error: gpukit:budget.maxHourlyCost: cannot prove the stack stays within $25.00/h" in out
    config["gpukit:budget"]["allowUnpriced"] = True
    code, out, _ = plan(tmp_path, config, capsys)
    assert code == 0
    assert "warning: gpukit:budget.maxHourlyCost: checked a lower bound only" in out


@pytest.mark.parametrize("limit", [0, -5, "ten", True])
def test_budget_limit_must_be_a_positive_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], limit: object
) -> None:
    config = fixture("eks-frankfurt")
    config["gpukit:budget"] = {"maxHourlyCost": limit}
    code, _, err = plan(tmp_path, config, capsys)
    assert code == 2
    assert "gpukit:budget.maxHourlyCost" in err
    assert "Traceback" not in err


def test_pulumi_up_over_budget_creates_nothing() -> None:
    config = fixture("eks-frankfurt")
    config["gpukit:budget"] = {"maxHourlyCost": 10}
    with pytest.raises(pulumi.RunError) as raised:
        record(program_main, config=config, region="eu-central-1")
    text = str(raised.value)
    assert text.startswith("gpukit preflight failed (nothing was created):")
    assert "gpukit:budget.maxHourlyCost: the stack costs $17.53/h at max nodes" in text


def test_pulumi_up_within_budget_builds_the_cluster() -> None:
    rec = record(program_main, config=fixture("eks-frankfurt"), region="eu-central-1")
    assert rec.of_type("aws:eks/cluster:Cluster")


def test_budget_counts_a_pools_dearest_alternative_instance_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # k3s-aws's spot L4 pool (4 nodes at most) may also launch g6.16xlarge: 4 x $3.40/h is over $4/h,
    # though 4 g6.xlarge ($0.80/h) would not be.
    config: dict[str, Any] = yaml.safe_load((ROOT / "stacks" / "Pulumi.k3s-aws.yaml").read_text())["config"]
    (gpu_pool,) = [p for p in config["gpukit:nodePools"] if p["name"] == "l4"]
    gpu_pool["alternativeInstanceTypes"] = ["g6.16xlarge"]
    config["gpukit:budget"] = {"maxHourlyCost": 4}
    code, out, _ = plan(tmp_path, config, capsys)
    assert code == 1
    line = next(line for line in out.splitlines() if "error: gpukit:budget.maxHourlyCost" in line)
    assert "pool l4 $13.59/h" in line


def test_an_unpriced_shared_volume_makes_totals_lower_bounds_and_the_budget_refuse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """eks-train's FSx for Lustre checkpoints volume has no sourced price: a budget cannot be proven."""
    config: dict[str, Any] = yaml.safe_load((ROOT / "stacks" / "Pulumi.eks-train.yaml").read_text())["config"]
    config["gpukit:budget"] = {"maxHourlyCost": 500}
    code, out, _ = plan(tmp_path, config, capsys)
    assert code == 1
    assert "  total at max (max nodes):  at least $117.56" in out
    line = next(line for line in out.splitlines() if "error: gpukit:budget.maxHourlyCost" in line)
    assert "cannot prove the stack stays within $500.00/h: shared volume(s) checkpoints have no price" in line
    config["gpukit:budget"]["allowUnpriced"] = True
    code, out, _ = plan(tmp_path, config, capsys)
    assert code == 0
    assert "but shared volume(s) checkpoints have no price and are not counted" in out

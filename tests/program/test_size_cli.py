"""`gpukit size` as a user runs it: exit status, what it prints, and refusals that name the key."""

import json
from pathlib import Path

import pytest
import yaml

from gpukit.cli import EXIT_INVALID, EXIT_OK, main
from harness import ROOT, eks_config, example_config

MIX = {"workloads": [{"name": "chat-7b", "gpuMemoryGb": 6, "computeShare": 0.1, "replicas": 10}]}


def _write(tmp_path: Path, name: str, doc: object) -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(doc))
    return path


def _stack_file(tmp_path: Path, config: dict) -> Path:
    return _write(tmp_path, "Pulumi.mine.yaml", {"config": config})


def test_json_on_a_stack_gives_options_baseline_bound_and_recommendation(tmp_path, capsys):
    workloads = _write(tmp_path, "w.yaml", MIX)
    assert main(["size", str(workloads), "--stack", "eks-dev", "--project", str(ROOT), "--json"]) == EXIT_OK
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) >= {"options", "wholeGpu", "lowerBound", "recommended"}
    assert doc["lowerBound"] == {"L4": 2.5}  # 60 GB / 24 GB
    assert doc["wholeGpu"]["L4"]["gpus"] == 10
    modes = {o["mode"]: o for o in doc["options"]}
    assert set(modes) == {"none", "time-slicing", "mps"}  # L4 has no MIG
    assert modes["time-slicing"]["gpus"] == 3 and modes["time-slicing"]["replicasPerGpu"] == 4
    assert all(o["pool"] == "l4" and o["machine"] == "g6.xlarge" for o in doc["options"])
    best = doc["recommended"]
    assert best["mode"] == "mps" and best["nodes"] == 3 and best["perHour"] == pytest.approx(3 * 0.8048)
    snippet = yaml.safe_load(best["stackSnippet"])
    assert snippet["gpukit:nodePools"][0]["sharing"] == {"mode": "mps", "replicas": 4}
    # The recommendation is what `gpukit plan` takes: merged into the stack's pool, the stack plans.
    config = example_config("eks-dev")
    (pool,) = [p for p in config["gpukit:nodePools"] if p["name"] == "l4"]
    pool.update(snippet["gpukit:nodePools"][0])
    merged = _stack_file(tmp_path, config)
    assert main(["plan", "--config", str(merged)]) == EXIT_OK, capsys.readouterr().err
    assert "mps" in capsys.readouterr().out


def test_text_without_a_stack_sizes_on_the_default_models(tmp_path, capsys):
    workloads = _write(tmp_path, "w.yaml", MIX)
    assert main(["size", str(workloads)]) == EXIT_OK
    out = capsys.readouterr().out
    assert "no stack given: every GPU model in the AWS catalog" in out
    assert "H100 on p5.4xlarge (1 GPU/node): lower bound 1 GPUs" in out
    assert "A100-80GB on p4de.24xlarge (8 GPU/node)" in out  # the cheapest machine per model
    assert "Recommended:" in out and "sharing:" in out


def test_a_price_unknown_pool_says_so(tmp_path, capsys):
    config = eks_config()
    config["gpukit:nodePools"][1]["instanceType"] = "p5e.48xlarge"
    stack = _stack_file(tmp_path, config)
    workloads = _write(tmp_path, "w.yaml", MIX)
    assert main(["size", str(workloads), "--config", str(stack), "--json"]) == EXIT_OK
    doc = json.loads(capsys.readouterr().out)
    assert all(o["perHour"] is None and "Capacity Blocks" in o["priceNote"] for o in doc["options"])


def test_bad_workloads_exit_2_naming_every_key(tmp_path, capsys):
    bad = {
        "workloads": [
            {"name": "a", "gpuMemoryGb": -1, "computeShare": 2},
            {"gpuMemoryGb": 4, "isolation": "strict"},
        ]
    }
    assert main(["size", str(_write(tmp_path, "w.yaml", bad))]) == EXIT_INVALID
    err = capsys.readouterr().err
    for key in (
        "workloads[0].gpuMemoryGb",
        "workloads[0].computeShare",
        "workloads[1].name",
        "workloads[1].isolation",
    ):
        assert f"  {key}: " in err
    assert "Traceback" not in err


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf"])
def test_memory_that_is_no_finite_number_exits_2_naming_its_key(tmp_path, capsys, value):
    """YAML reads `.nan` and `.inf` as floats: neither is a GPU memory need."""
    path = tmp_path / "w.yaml"
    path.write_text(f"workloads:\n  - {{name: a, gpuMemoryGb: {value}, replicas: 3}}\n")
    assert main(["size", str(path)]) == EXIT_INVALID
    err = capsys.readouterr().err
    assert "  workloads[0].gpuMemoryGb: required: a number of GB > 0" in err and "Traceback" not in err


def test_an_invalid_stack_exits_2_with_its_keys(tmp_path, capsys):
    config = eks_config()
    config["gpukit:nodePools"][1]["instanceType"] = "g6.xlargee"
    stack = _stack_file(tmp_path, config)
    assert main(["size", str(_write(tmp_path, "w.yaml", MIX)), "--config", str(stack)]) == EXIT_INVALID
    err = capsys.readouterr().err
    assert "gpukit:nodePools[1].instanceType" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "workloads file not found"), ("workloads: [a: 1", "is not valid YAML")],
)
def test_unreadable_workloads_files_exit_2(tmp_path, capsys, content, message):
    path = tmp_path / "w.yaml"
    if content is not None:
        path.write_text(content)
    assert main(["size", str(path)]) == EXIT_INVALID
    assert message in capsys.readouterr().err


def test_a_stack_without_gpu_pools_exits_2(tmp_path, capsys):
    config = eks_config()
    config["gpukit:nodePools"] = config["gpukit:nodePools"][:1]
    stack = _stack_file(tmp_path, config)
    assert main(["size", str(_write(tmp_path, "w.yaml", MIX)), "--config", str(stack)]) == EXIT_INVALID
    assert "has no GPU pools to size on" in capsys.readouterr().err


@pytest.mark.parametrize(
    "example", sorted((ROOT / "examples" / "sizing").glob("*.yaml")), ids=lambda p: p.name
)
def test_the_readme_examples_size(example, capsys):
    assert main(["size", str(example), "--json"]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)["recommended"]["gpus"] >= 1


@pytest.mark.parametrize(
    "command",
    [
        "examples/sizing/chat-7b.yaml",
        "examples/sizing/tenants.yaml --stack eks-train",
        "examples/sizing/chat-7b.yaml --stack gke-dev --json",
    ],
)
def test_the_sizing_docs_examples_show_what_the_command_prints(command: str, capsys) -> None:
    readme = (ROOT / "docs" / "sizing.md").read_text()
    start = readme.index(f"$ gpukit size {command}\n") + len(f"$ gpukit size {command}\n")
    shown = readme[start : readme.index("```", start)]
    args = command.split()
    args[0] = str(ROOT / args[0])
    assert main(["size", *args, "--project", str(ROOT)]) == EXIT_OK
    assert capsys.readouterr().out.strip() == shown.strip()


@pytest.mark.parametrize("stack", ["gke-dev", "eks-dev"])
def test_the_recommended_snippet_with_its_queue_plans_on_the_stack(
    stack: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """What `gpukit size` recommends (the pool and the batch queue over it) is what `gpukit plan` takes."""
    workloads = str(ROOT / "examples/sizing/chat-7b.yaml")
    assert main(["size", workloads, "--stack", stack, "--json", "--project", str(ROOT)]) == EXIT_OK
    snippet = yaml.safe_load(json.loads(capsys.readouterr().out)["recommended"]["stackSnippet"])
    config = example_config(stack)
    (pool,) = snippet["gpukit:nodePools"]
    target = next(p for p in config["gpukit:nodePools"] if p["name"] == pool["name"])
    target.update(pool)
    config["gpukit:batch"] = snippet["gpukit:batch"]
    path = tmp_path / "Pulumi.sized.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    code = main(["plan", "--config", str(path)])
    out, err = capsys.readouterr()
    assert code == EXIT_OK, err + out
    assert "queue gpus (namespaces: default):" in out

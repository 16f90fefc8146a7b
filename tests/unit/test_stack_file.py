"""Stack files read as the Pulumi CLI reads them: its YAML scalars, and Pulumi.yaml's defaults."""

import math
from pathlib import Path

import pytest
import yaml

from gpukit.cli import EXIT_INVALID, EXIT_OK, main
from gpukit.plan.stack_file import load_yaml
from harness import eks_config, example_config


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("yes", "yes"),  # YAML 1.1 (PyYAML's default) would read these four as booleans
        ("no", "no"),
        ("on", "on"),
        ("Off", "Off"),
        ("true", True),
        ("FALSE", False),
        ("2026-12-01", "2026-12-01"),  # timestamps stay strings for untyped values
        ("1:30", "1:30"),  # no sexagesimal numbers
        ("1.30", 1.3),
        ("1_000", 1000),
        ("0x1F", 31),
        ("0o17", 15),
        ("0755", 493),  # Go's yaml.v3 still reads a leading 0 as octal
        ("~", None),
        ("null", None),
        ("v26.7.0", "v26.7.0"),
    ],
)
def test_scalars_resolve_as_the_pulumi_cli_reads_them(text: str, value: object) -> None:
    assert load_yaml(f"key: {text}\n") == {"key": value}


def test_special_floats() -> None:
    assert math.isinf(load_yaml("k: .inf\n")["k"])
    assert math.isnan(load_yaml("k: .NaN\n")["k"])


def _write(path: Path, config: dict[str, object]) -> Path:
    path.write_text(yaml.safe_dump({"config": config}))
    return path


def _plan_config(path: Path, *extra: str) -> int:
    return main(["plan", "--config", str(path), *extra])


def test_yes_is_not_a_boolean_in_a_stack_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = example_config("k3s-ssh")
    path = tmp_path / "Pulumi.bad.yaml"
    text = yaml.safe_dump({"config": config}).replace(
        "apiAddress: 192.0.2.10", "apiAddress: 192.0.2.10\n    traefik: yes"
    )
    path.write_text(text)
    assert "traefik: yes" in text
    assert _plan_config(path) == EXIT_INVALID
    assert "gpukit:cluster.traefik: must be true or false, got 'yes'" in capsys.readouterr().err


def _project(root: Path, operator_default: dict[str, str]) -> Path:
    """A gpukit project folder whose Pulumi.yaml declares its own GPU Operator default."""
    (root / "stacks").mkdir(parents=True)
    (root / "Pulumi.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "gpukit",
                "runtime": "python",
                "stackConfigDir": "stacks",
                "config": {"gpukit:gpuOperator": {"description": "x", "default": operator_default}},
            }
        )
    )
    config = eks_config()
    del config["gpukit:gpuOperator"]
    _write(root / "stacks" / "Pulumi.dev.yaml", config)
    return root


def test_project_defaults_apply_with_stack_and_with_config_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The project declares driver: operator, which EKS refuses: both ways of naming the stack file
    see the default, as `pulumi up` would."""
    root = _project(tmp_path / "proj", {"chartVersion": "v26.7.0", "driver": "operator"})
    refused = "gpukit:gpuOperator.driver: 'operator' on eks"
    assert main(["plan", "--project", str(root), "--stack", "dev"]) == EXIT_INVALID
    assert refused in capsys.readouterr().err
    assert _plan_config(root / "stacks" / "Pulumi.dev.yaml", "--project", str(root)) == EXIT_INVALID
    assert refused in capsys.readouterr().err


def test_a_stack_file_outside_any_project_gets_gpukits_own_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = eks_config()
    del config["gpukit:gpuOperator"]
    path = _write(tmp_path / "Pulumi.loose.yaml", config)
    monkeypatch.chdir(tmp_path)  # no Pulumi.yaml here or above
    assert _plan_config(path) == EXIT_OK

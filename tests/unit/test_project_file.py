"""Pulumi.yaml must load in the Pulumi CLI: its config declarations follow the project schema."""

import yaml

from gpukit.components.config.schema import TOP_LEVEL_FIELDS
from harness import ROOT

PROJECT = yaml.safe_load((ROOT / "Pulumi.yaml").read_text())
# pulumi/pulumi sdk/go/common/workspace/project.json, $defs.simpleConfigType.
PULUMI_CONFIG_TYPES = {"string", "integer", "boolean", "array"}


def test_project_is_python_with_stacks_in_their_own_folder() -> None:
    assert PROJECT["name"] == "gpukit"
    assert PROJECT["runtime"]["name"] == "python"
    assert PROJECT["stackConfigDir"] == "stacks"


def test_every_config_declaration_is_one_the_cli_accepts() -> None:
    for key, declaration in PROJECT["config"].items():
        assert key.startswith("gpukit:"), f"{key}: schemas are only valid for project keys"
        assert set(declaration) <= {"type", "items", "description", "default", "secret"}, key
        if "type" in declaration:
            assert declaration["type"] in PULUMI_CONFIG_TYPES, (
                f"{key}: the CLI rejects type {declaration['type']}"
            )
        assert declaration.get("description"), f"{key} needs a description"


def test_every_live_top_level_key_is_declared_and_required_ones_have_no_default() -> None:
    declared = PROJECT["config"]
    # Substrate-specific keys (sshPrivateKey, budget) are left undeclared on purpose (see Pulumi.yaml):
    # Pulumi would demand sshPrivateKey in every stack, and a declared budget default would reach k3s
    # over SSH, which refuses the key.
    live = [f for f in TOP_LEVEL_FIELDS if f.planned is None and not f.specific]
    assert {f"gpukit:{f.key}" for f in live} == set(declared)
    for field in live:
        # Pulumi itself then reports a missing required key, before gpukit runs.
        assert ("default" in declared[f"gpukit:{field.key}"]) == (not field.required), field.key


def test_project_defaults_are_the_ones_gpukit_applies() -> None:
    operator = next(f for f in TOP_LEVEL_FIELDS if f.key == "gpuOperator")
    defaults = {f.key: f.default for f in operator.fields if f.default is not None}
    assert PROJECT["config"]["gpukit:gpuOperator"]["default"] == defaults

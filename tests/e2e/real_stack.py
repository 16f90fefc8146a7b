"""A throwaway copy of an example stack, brought up with the real Pulumi CLI and always destroyed.

For the opt-in end-to-end tests only: they skip unless GPUKIT_E2E=1, the Pulumi CLI is on PATH and
the cloud's credentials are in the environment.
"""

import json
import os
import shutil
import subprocess
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness import ROOT, example_config


def opt_in(*credential_variables: str) -> pytest.MarkDecorator:
    """Skip unless GPUKIT_E2E=1, the Pulumi CLI is installed and one credential variable is set."""
    return pytest.mark.skipif(
        os.environ.get("GPUKIT_E2E") != "1"
        or shutil.which("pulumi") is None
        or shutil.which("kubectl") is None
        or not any(os.environ.get(v) for v in credential_variables),
        reason="opt-in: set GPUKIT_E2E=1 with the Pulumi CLI, kubectl and "
        f"{' or '.join(credential_variables)} to create a real cluster",
    )


def pulumi(*args: str, env: dict[str, str]) -> str:
    result = subprocess.run(
        ["pulumi", *args, "--non-interactive"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    return result.stdout


def kubectl_json(kubeconfig: Path, *args: str) -> Any:
    out = subprocess.run(
        ["kubectl", "--kubeconfig", str(kubeconfig), *args, "-o", "json"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)


@contextmanager
def real_stack(
    example: str, workdir: Path, edit: Callable[[dict[str, Any]], None] = lambda c: None
) -> Iterator[Path]:
    """`pulumi up` a renamed copy of stacks/Pulumi.<example>.yaml; yields its kubeconfig file."""
    stack = f"e2e-{uuid.uuid4().hex[:6]}"
    config = example_config(example)
    config["gpukit:cluster"]["name"] = stack
    edit(config)
    stack_file = ROOT / "stacks" / f"Pulumi.{stack}.yaml"
    stack_file.write_text(yaml.safe_dump({"config": config}))
    env = {**os.environ, "PULUMI_BACKEND_URL": f"file://{workdir}", "PULUMI_CONFIG_PASSPHRASE": "e2e"}
    try:
        pulumi("stack", "init", stack, env=env)
        pulumi("up", "--yes", "--skip-preview", env=env)
        outputs = json.loads(pulumi("stack", "output", "--json", "--show-secrets", env=env))
        assert outputs["clusterName"] == stack
        kubeconfig = workdir / "kubeconfig"
        kubeconfig.write_text(outputs["kubeconfig"])
        yield kubeconfig
    finally:
        pulumi("destroy", "--yes", "--skip-preview", env=env)
        pulumi("stack", "rm", stack, "--yes", env=env)
        stack_file.unlink(missing_ok=True)

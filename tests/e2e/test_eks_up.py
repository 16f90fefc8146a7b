"""Opt-in: a real `pulumi up` of the eks-dev layout in a throwaway stack, then `pulumi destroy`.

Runs only with GPUKIT_E2E=1, the Pulumi CLI on PATH and AWS credentials in the environment; it
creates billable resources (an EKS control plane, a NAT gateway, one m7i.large) for about 20 minutes.
Never run where gpukit is developed (no CLI, no account), so it skips there; it is the first test to
run in an account before a release.
"""

import json
import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest
import yaml

from harness import ROOT

pytestmark = pytest.mark.skipif(
    os.environ.get("GPUKIT_E2E") != "1"
    or shutil.which("pulumi") is None
    or not (os.environ.get("AWS_PROFILE") or os.environ.get("AWS_ACCESS_KEY_ID")),
    reason="opt-in: set GPUKIT_E2E=1 with the Pulumi CLI and AWS credentials to create a real cluster",
)


def pulumi(*args: str, env: dict[str, str], cwd: Path) -> str:
    result = subprocess.run(
        ["pulumi", *args, "--non-interactive"],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    return result.stdout


def test_eks_dev_comes_up_and_goes_away(tmp_path: Path) -> None:
    stack = f"e2e-{uuid.uuid4().hex[:6]}"
    config = yaml.safe_load((ROOT / "stacks" / "Pulumi.eks-dev.yaml").read_text())["config"]
    config["gpukit:cluster"]["name"] = stack
    (ROOT / "stacks" / f"Pulumi.{stack}.yaml").write_text(yaml.safe_dump({"config": config}))
    env = {**os.environ, "PULUMI_BACKEND_URL": f"file://{tmp_path}", "PULUMI_CONFIG_PASSPHRASE": "e2e"}
    try:
        pulumi("stack", "init", stack, env=env, cwd=ROOT)
        pulumi("up", "--yes", "--skip-preview", env=env, cwd=ROOT)
        outputs = json.loads(pulumi("stack", "output", "--json", "--show-secrets", env=env, cwd=ROOT))
        assert outputs["clusterName"] == stack
        kubeconfig = tmp_path / "kubeconfig"
        kubeconfig.write_text(outputs["kubeconfig"])
        nodes = subprocess.run(
            ["kubectl", "--kubeconfig", str(kubeconfig), "get", "nodes", "-o", "json"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        pools = {n["metadata"]["labels"].get("gpukit.dev/pool") for n in json.loads(nodes)["items"]}
        assert pools == {"system"}  # the L4 pool stays at zero until a GPU pod asks for it
    finally:
        pulumi("destroy", "--yes", "--skip-preview", env=env, cwd=ROOT)
        pulumi("stack", "rm", stack, "--yes", env=env, cwd=ROOT)
        (ROOT / "stacks" / f"Pulumi.{stack}.yaml").unlink(missing_ok=True)

"""Opt-in: `gpukit ephemeral up` of eks-dev through the real Pulumi CLI and Automation API, the
expiry tag on a real resource, then `gpukit ephemeral down`; and `reap` leaving it alone meanwhile.

Runs only with GPUKIT_E2E=1, the Pulumi CLI and kubectl on PATH and AWS credentials in the
environment (see real_stack.opt_in); it creates billable resources (about 20 minutes of an EKS
control plane, a NAT gateway and one m7i.large). Skips everywhere else.
"""

import json
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
from e2e.real_stack import kubectl_json, opt_in

from gpukit.ephemeral import lifecycle
from gpukit.ephemeral.ttl import parse_ttl
from gpukit.ephemeral.workspace import EphemeralHome

pytestmark = [
    opt_in("AWS_PROFILE", "AWS_ACCESS_KEY_ID"),
    pytest.mark.skipif(shutil.which("aws") is None, reason="opt-in: needs the aws CLI to read the tags"),
]


def test_an_ephemeral_eks_dev_comes_up_tagged_and_goes_away(tmp_path: Path) -> None:
    home = EphemeralHome(tmp_path / "ephemeral")
    now = datetime.now(UTC)
    request = lifecycle.UpRequest(source="eks-dev", ttl=parse_ttl("2h"), max_hourly_cost=20.0)
    result = lifecycle.up(home, request, now, print)
    try:
        nodes = kubectl_json(result.kubeconfig, "get", "nodes")["items"]
        assert {n["metadata"]["labels"].get("gpukit.dev/pool") for n in nodes} == {"system"}
        described = subprocess.run(
            ["aws", "eks", "describe-cluster", "--name", result.name, "--region", "us-west-2"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        tags = json.loads(described)["cluster"]["tags"]
        assert tags["gpukit-expires-at"] == result.expires_at.strftime("%Y%m%dt%H%Mz")
        assert lifecycle.reap(home, now, dry_run=False, log=print).kept == [result.name]
    finally:
        lifecycle.down(home, result.name, print)
    assert result.name not in [s.name for s in lifecycle.ephemeral_stacks(home)]

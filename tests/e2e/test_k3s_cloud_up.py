"""Opt-in: real `pulumi up` of the k3s-aws and k3s-gcp layouts in throwaway stacks, then destroy.

Each creates billable resources for about 20 minutes (a server, one L4 machine, NAT; on AWS a
load balancer) and checks what only a real run can: the machines bootstrap from their user data or
startup script, read their join secrets, join, and the L4 node advertises its GPU. `apiAccessCidrs`
is replaced by GPUKIT_E2E_CLIENT_CIDR (the range of the machine running the test), which must reach
the API. Skipped unless GPUKIT_E2E=1 with the Pulumi CLI, kubectl and the cloud's credentials.
"""

import os
import time
from pathlib import Path
from typing import Any

import pytest
from e2e.real_stack import kubectl_json, opt_in, real_stack


def _client_range(config: dict[str, Any]) -> None:
    config["gpukit:cluster"]["apiAccessCidrs"] = [os.environ.get("GPUKIT_E2E_CLIENT_CIDR", "")]


def _gpu_nodes_join(kubeconfig: Path, timeout_s: int = 1200) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        nodes = kubectl_json(kubeconfig, "get", "nodes")["items"]
        gpus = [n for n in nodes if n["status"].get("allocatable", {}).get("nvidia.com/gpu", "0") != "0"]
        pools = {n["metadata"]["labels"].get("gpukit.dev/pool") for n in nodes}
        if pools == {"control", "l4"} and gpus:
            return
        assert time.monotonic() < deadline, f"pools {pools}, GPU nodes {len(gpus)} after {timeout_s}s"
        time.sleep(30)


@opt_in("AWS_PROFILE", "AWS_ACCESS_KEY_ID")
@pytest.mark.skipif(not os.environ.get("GPUKIT_E2E_CLIENT_CIDR"), reason="needs GPUKIT_E2E_CLIENT_CIDR")
def test_k3s_on_ec2_joins_a_gpu_node(tmp_path: Path) -> None:
    with real_stack("k3s-aws", tmp_path, _client_range) as kubeconfig:
        _gpu_nodes_join(kubeconfig)


@opt_in("GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CREDENTIALS")
@pytest.mark.skipif(not os.environ.get("GPUKIT_E2E_CLIENT_CIDR"), reason="needs GPUKIT_E2E_CLIENT_CIDR")
@pytest.mark.skipif(not os.environ.get("GPUKIT_E2E_GCP_PROJECT"), reason="needs GPUKIT_E2E_GCP_PROJECT")
def test_k3s_on_gce_joins_a_gpu_node(tmp_path: Path) -> None:
    def edit(config: dict[str, Any]) -> None:
        _client_range(config)
        config["gcp:project"] = os.environ["GPUKIT_E2E_GCP_PROJECT"]

    with real_stack("k3s-gcp", tmp_path, edit) as kubeconfig:
        _gpu_nodes_join(kubeconfig)

"""Opt-in: a real `pulumi up` of the eks-dev layout in a throwaway stack, then `pulumi destroy`.

Runs only with GPUKIT_E2E=1, the Pulumi CLI and kubectl on PATH and AWS credentials in the
environment; it creates billable resources (an EKS control plane, a NAT gateway, one m7i.large) for
about 20 minutes. Never run where gpukit is developed (no CLI, no account), so it skips there; it is
the first test to run in an account before a release.
"""

from pathlib import Path

from e2e.real_stack import kubectl_json, opt_in, real_stack

pytestmark = opt_in("AWS_PROFILE", "AWS_ACCESS_KEY_ID")


def test_eks_dev_comes_up_and_goes_away(tmp_path: Path) -> None:
    with real_stack("eks-dev", tmp_path) as kubeconfig:
        nodes = kubectl_json(kubeconfig, "get", "nodes")["items"]
        pools = {n["metadata"]["labels"].get("gpukit.dev/pool") for n in nodes}
        assert pools == {"system"}  # the L4 pool stays at zero until a GPU pod asks for it

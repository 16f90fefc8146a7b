"""`gpukit verify`'s flags (kept apart from the command so that `gpukit --help` imports nothing heavy)."""

import argparse
from pathlib import Path


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    verify = sub.add_parser(
        "verify",
        help="run the GPU verification Jobs of a stack's GPU pools against a running cluster",
        description="Apply one verification Job per GPU pool of the stack (the ones `pulumi up` runs with "
        "gpukit:verification.enabled), wait for them, print pass or fail per pool with the reason, and "
        "delete them. Exit status: 0 every pool passed, 1 a pool failed, 2 invalid flags or stack.",
    )
    verify.add_argument("--kubeconfig", type=Path, help="the cluster's kubeconfig (required)")
    which = verify.add_mutually_exclusive_group()
    which.add_argument("--stack", help="stack name: <stackConfigDir>/Pulumi.<NAME>.yaml")
    which.add_argument("--config", type=Path, help="path to a stack file anywhere")
    verify.add_argument(
        "--timeout-minutes",
        type=int,
        help="how long each pool's Job may take (default: the stack's gpukit:verification.timeoutMinutes)",
    )
    verify.add_argument("--kubectl", default="kubectl", help="the kubectl to run (default: kubectl on PATH)")
    verify.add_argument(
        "--project", type=Path, default=None, help="gpukit's project folder (default: found from cwd)"
    )

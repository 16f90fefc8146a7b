"""kubectl, as `gpukit verify` drives it: every call names the kubeconfig, nothing reads ambient config.

kubectl rather than the `kubernetes` Python client: gpukit does not depend on the client, and anyone
who holds a kubeconfig for the cluster has kubectl. A call that kubectl fails raises KubectlError with
its stderr.
"""

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CALL_TIMEOUT_SECONDS = 120


class KubectlError(Exception):
    pass


@dataclass(frozen=True)
class Kubectl:
    binary: str
    kubeconfig: Path

    def run(
        self, *args: str, stdin: str | None = None, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        command = [self.binary, "--kubeconfig", str(self.kubeconfig), *args]
        try:
            done = subprocess.run(
                command,
                input=stdin,
                capture_output=True,
                text=True,
                timeout=CALL_TIMEOUT_SECONDS,
                check=False,
            )
        except subprocess.TimeoutExpired as err:
            raise KubectlError(
                f"`kubectl {' '.join(args)}` did not answer in {CALL_TIMEOUT_SECONDS} s"
            ) from err
        if check and done.returncode != 0:
            message = done.stderr.strip() or done.stdout.strip() or f"exit status {done.returncode}"
            raise KubectlError(f"`kubectl {' '.join(args)}` failed: {message}")
        return done

    def apply(self, objects: list[dict[str, Any]]) -> None:
        self.run("apply", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))

    def create(self, objects: list[dict[str, Any]]) -> None:
        """Create without recording the objects in an annotation (Secrets: see gpukit/verify/command.py)."""
        self.run(
            "create", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": objects})
        )

    def exists(self, *args: str) -> bool:
        return self.run("get", *args, "-o", "name", check=False).returncode == 0

    def get_json(self, *args: str) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(self.run("get", *args, "-o", "json").stdout)
        return found

"""The NCCL check as `gpukit verify` runs it against a running cluster: the very objects `pulumi up`
creates (nccl_check.py), each named and labelled for the run, with ssh keys made for the run alone on
this machine (`ssh-keygen`, as OpenSSH ships it) and forgotten when it ends."""

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpukit.components.addons.base import CheckSetupError
from gpukit.components.addons.interconnect.nccl_check import (
    NcclPoolCheck,
    job_manifest,
    keys_manifest,
    known_hosts_line,
    namespace_manifest,
    network_policy_manifest,
    service_manifest,
    tools_manifest,
)


def _ed25519(folder: Path, name: str) -> tuple[str, str]:
    """A new ed25519 key pair (private, public) in OpenSSH format, made by ssh-keygen in `folder`."""
    path = folder / name
    done = subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", f"gpukit-nccl-{name}", "-f", str(path)],
        check=False,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise CheckSetupError(f"ssh-keygen failed making the NCCL check's keys: {done.stderr.strip()}")
    return path.read_text(), path.with_suffix(".pub").read_text()


def run_keys(run: str) -> dict[str, Any]:
    """The run's Secret: a client key and a host key, made now, kept nowhere else (the temporary folder
    is removed at once)."""
    if shutil.which("ssh-keygen") is None:
        raise CheckSetupError("the NCCL check needs ssh-keygen (OpenSSH) on this machine to make its keys")
    with tempfile.TemporaryDirectory(prefix="gpukit-nccl-") as folder:
        client_private, client_public = _ed25519(Path(folder), "client")
        host_private, host_public = _ed25519(Path(folder), "host")
    return keys_manifest(client_private, client_public, host_private, known_hosts_line(host_public), run)


@dataclass(frozen=True)
class NcclChecks:
    """One Indexed Job per fabric pool (components/addons/base.py CheckSuite)."""

    checks: tuple[NcclPoolCheck, ...]
    timeout_minutes: int
    subject: str = "fabric pool"

    def namespaces(self) -> list[dict[str, Any]]:
        return [namespace_manifest()]

    def objects(self, run: str) -> list[dict[str, Any]]:
        return [
            run_keys(run),
            tools_manifest(run),
            network_policy_manifest(run),
            *(service_manifest(check, run) for check in self.checks),
        ]

    def jobs(self, run: str, ttl_seconds: int) -> dict[str, dict[str, Any]]:
        return {
            f"NCCL {c.pool}": job_manifest(c, self.timeout_minutes, run=run, ttl_seconds=ttl_seconds)
            for c in self.checks
        }

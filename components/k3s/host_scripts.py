"""Every script a k3s host runs, and the files it writes, rendered from plain values.

The script bodies live in components/k3s/scripts/*.sh as plain bash (shellcheck reads them whole);
rendering only prepends a header and the inputs as shell-quoted variable assignments, so no value
is ever pasted into the middle of shell code. All file paths go through $ROOT, which is empty on a
real host and a temporary folder in the script-execution tests.
"""

import base64
import hashlib
import re
import shlex
from pathlib import Path
from typing import Any

import yaml

from gpukit.components.spec import DriverMode, NodeRole

SCRIPTS = Path(__file__).parent / "scripts"
# The rendered text names the renderer by its path before the layout change (it is
# components/k3s/host_scripts.py now): it is in every plan's boot text, which that change kept
# byte-identical (tests/golden/plans). It moves with the next change to the rendered scripts.
HEADER = """#!/usr/bin/env bash
# Rendered by gpukit (components/k3s_scripts.py); edit the source, not this copy.
set -euo pipefail
"""

CONFIG_DIR = "/etc/rancher/k3s"
# k3s (1.32+) reads kubelet config drop-ins from here, after its own 00-k3s-defaults.conf.
KUBELET_DROP_IN = "/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/50-gpukit-shutdown.conf"
TOKEN_FILE = f"{CONFIG_DIR}/gpukit-token"
TLS_DIR = "/var/lib/rancher/k3s/server/tls"
API_PORT = 6443
# Kubelet graceful node shutdown: k3s ships it off (0s). A power-off then gives pods this long to
# stop, the last part of it reserved for critical pods (kubelet KubeletConfiguration v1beta1).
SHUTDOWN_GRACE_PERIOD = "60s"
SHUTDOWN_GRACE_PERIOD_CRITICAL_PODS = "20s"


def render_script(template: str | Path, **inputs: str | int) -> str:
    """A script: the header, `inputs` as quoted assignments, then the body. `template` names a file in
    components/k3s/scripts/, or is the path of a script a provider keeps with its own code."""
    assignments = "".join(f"{name}={shlex.quote(str(value))}\n" for name, value in inputs.items())
    path = template if isinstance(template, Path) else SCRIPTS / template
    return HEADER + assignments + path.read_text()


def gpu_pattern(model: str) -> str:
    """An extended regex matching nvidia-smi's name for a catalog model ("A100-80GB" matches
    "NVIDIA A100-SXM4-80GB", "RTX-PRO-6000" matches "NVIDIA RTX PRO 6000 Blackwell ...")."""
    return ".*".join(re.escape(part) for part in model.split("-")) if model else ".*"


def preflight_script(
    expect_gpus: int, gpu_model: str, driver: DriverMode, min_driver_branch: int = 0, cuda_version: str = ""
) -> str:
    return render_script(
        "preflight.sh",
        EXPECT_GPUS=expect_gpus,
        GPU_MODEL=gpu_model,
        GPU_PATTERN=gpu_pattern(gpu_model),
        DRIVER_MODE=driver.value,
        MIN_DRIVER_BRANCH=min_driver_branch,
        CUDA_VERSION=cuda_version,
    )


def install_script(role: NodeRole, k3s_version: str, k3s_config: str, kubelet_config: str) -> str:
    return render_script(
        "install.sh",
        ROLE=role.value,
        K3S_VERSION=k3s_version,
        K3S_CONFIG=k3s_config,
        KUBELET_CONFIG=kubelet_config,
    )


def uninstall_script(role: NodeRole) -> str:
    return render_script("uninstall.sh", ROLE=role.value)


def drain_script(node_name: str) -> str:
    return render_script("drain.sh", NODE_NAME=node_name)


def remote_command(script: str) -> str:
    """The command line that runs `script` as root over SSH (directly as root, else passwordless sudo)."""
    quoted = shlex.quote(script)
    return f'if [ "$(id -u)" -eq 0 ]; then bash -c {quoted}; else sudo -n bash -c {quoted}; fi'


def k3s_config(
    role: NodeRole,
    node_name: str | None,
    labels: dict[str, str],
    taints: list[str],
    *,
    server_url: str | None = None,
    cluster_init: bool = False,
    tls_sans: list[str] | None = None,
    traefik: bool = False,
) -> str:
    """/etc/rancher/k3s/config.yaml: every k3s flag as a key; the token comes from a file, not here.

    `node_name` None keeps k3s's default, the machine's hostname: cloud instances in a group are
    anonymous, and their hostnames (EC2 ip-10-..., GCE instance names) are unique in the network.
    """
    config: dict[str, Any] = {"token-file": TOKEN_FILE}
    if node_name is not None:
        config = {"node-name": node_name, **config}
    if server_url is not None:
        config["server"] = server_url
    if role == NodeRole.SERVER:
        if cluster_init:
            config["cluster-init"] = True  # embedded etcd on the first of several servers
        config["tls-san"] = list(tls_sans or [])
        if not traefik:
            config["disable"] = ["traefik"]  # no ingress controller unless the stack asks for it
        config["write-kubeconfig-mode"] = "0600"
        config["secrets-encryption"] = True
    config["node-label"] = [f"{k}={v}" for k, v in sorted(labels.items())]
    config["node-taint"] = list(taints)
    return yaml.safe_dump(config, sort_keys=False)


def kubelet_shutdown_config() -> str:
    """A kubelet config drop-in that turns graceful node shutdown on."""
    return yaml.safe_dump(
        {
            "apiVersion": "kubelet.config.k8s.io/v1beta1",
            "kind": "KubeletConfiguration",
            "shutdownGracePeriod": SHUTDOWN_GRACE_PERIOD,
            "shutdownGracePeriodCriticalPods": SHUTDOWN_GRACE_PERIOD_CRITICAL_PODS,
        },
        sort_keys=False,
    )


def secrets_bundle(files: dict[str, str]) -> str:
    """What install.sh reads on stdin: "path<TAB>base64" per file. Secret: only ever sent as stdin."""
    return "".join(
        f"{path}\t{base64.b64encode(content.encode()).decode()}\n" for path, content in sorted(files.items())
    )


def fingerprint(*parts: str) -> str:
    """A short hash of what a host runs: a changed script or config re-runs it, an unchanged one does not."""
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]

"""User data for k3s on cloud VMs: the shared host scripts, delivered by cloud-init, run at first boot.

A cloud machine cannot be reached by Pulumi (no SSH), so it bootstraps itself: cloud-init writes
gpukit's scripts to /opt/gpukit and runs bootstrap.sh once, which runs the same preflight and install
as k3s over SSH (components/k3s/scripts/). The join token and the cluster CAs are not in the user data,
which any process on the machine can read from the metadata service: fetch-secrets.sh reads them
from the cloud's secret store with the machine's own identity (EC2 instance role, GCE service
account) and pipes them into install.sh.

Pure: every input is a plain value, so the output is golden-tested and checked with
`cloud-init schema`. Providers call `node_user_data` inside `.apply` once secret ids are known.
"""

from dataclasses import dataclass, field

import yaml

from gpukit.components.k3s.host_scripts import (
    install_script,
    k3s_config,
    kubelet_shutdown_config,
    preflight_script,
    render_script,
)
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import DriverMode, NodeRole

BOOTSTRAP_DIR = "/opt/gpukit"
# EC2 takes at most 16 KiB of user data (before base64); GCE 256 KiB per metadata value.
EC2_USER_DATA_LIMIT = 16 * 1024
# How long `pulumi up` waits for new servers to boot, install k3s and answer.
API_WAIT_SECONDS = 900


@dataclass(frozen=True)
class CloudNode:
    """What one kind of cloud machine (a server, or any machine of an agent pool) runs at first boot."""

    role: NodeRole
    k3s_version: str
    driver: DriverMode
    labels: dict[str, str] = field(default_factory=dict)
    taints: tuple[str, ...] = ()
    """`key=value:Effect`, set at registration."""
    expect_gpus: int = 0
    gpu_model: str = ""
    min_driver_branch: int = 0
    cuda_version: str = ""
    cluster_init: bool = False
    """The first of several servers: starts embedded etcd."""
    tls_sans: tuple[str, ...] = ()
    traefik: bool = False


@dataclass(frozen=True)
class NodeSettings:
    """What every machine of a k3s cluster on cloud VMs shares, whatever its pool."""

    k3s_version: str
    driver: DriverMode
    min_driver_branch: int
    """The oldest driver branch that runs `cuda_version` (0: not checked)."""
    cuda_version: str
    """The newest CUDA the workloads use ("" when the stack does not say)."""
    traefik: bool


def pool_node(
    pool: PoolFacts, settings: NodeSettings, *, cluster_init: bool = False, tls_sans: tuple[str, ...] = ()
) -> CloudNode:
    """What a machine of `pool` runs at first boot."""
    return CloudNode(
        role=pool.role,
        k3s_version=settings.k3s_version,
        driver=settings.driver,
        labels=dict(pool.labels),
        taints=tuple(f"{t.key}={t.value}:{t.effect}" for t in pool.taints),
        expect_gpus=pool.gpus_per_node,
        gpu_model=pool.instance.gpu_model or "",
        min_driver_branch=settings.min_driver_branch,
        cuda_version=settings.cuda_version,
        cluster_init=cluster_init and pool.role == NodeRole.SERVER,
        tls_sans=tls_sans,
        traefik=settings.traefik,
    )


class _Literal(str):
    """A string dumped as a YAML literal block (`|`), so scripts stay readable in the user data."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(
    _Literal, lambda dumper, data: dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
)


def api_wait_script(api_url: str, timeout_seconds: int = API_WAIT_SECONDS) -> str:
    return render_script("wait-for-api.sh", API_URL=api_url, TIMEOUT_SECONDS=timeout_seconds)


def node_scripts(node: CloudNode, server_url: str | None, fetch_secrets: str) -> dict[str, str]:
    """File name -> script, for one machine; `server_url` None for the first server."""
    config = k3s_config(
        node.role,
        None,
        node.labels,
        list(node.taints),
        server_url=server_url,
        cluster_init=node.cluster_init,
        tls_sans=list(node.tls_sans),
        traefik=node.traefik,
    )
    return {
        "preflight.sh": preflight_script(
            node.expect_gpus, node.gpu_model, node.driver, node.min_driver_branch, node.cuda_version
        ),
        "fetch-secrets.sh": fetch_secrets,
        "install.sh": install_script(node.role, node.k3s_version, config, kubelet_shutdown_config()),
        "bootstrap.sh": render_script("bootstrap.sh", BOOTSTRAP_DIR=BOOTSTRAP_DIR),
    }


def node_user_data(node: CloudNode, server_url: str | None, fetch_secrets: str) -> str:
    """`#cloud-config` user data that writes the scripts and runs bootstrap.sh once, at first boot.

    runcmd runs once per instance, so a reboot does not reinstall; k3s itself starts on boot as a
    systemd service. A failing bootstrap fails cloud-init's final stage, which `cloud-init status`
    and the serial console report.
    """
    scripts = node_scripts(node, server_url, fetch_secrets)
    document = {
        "write_files": [
            {
                "path": f"{BOOTSTRAP_DIR}/{name}",
                "owner": "root:root",
                "permissions": "0700",
                "content": _Literal(text),
            }
            for name, text in scripts.items()
        ],
        "runcmd": [[f"{BOOTSTRAP_DIR}/bootstrap.sh"]],
    }
    body = yaml.dump(document, Dumper=_Dumper, sort_keys=False, width=1000)
    return "#cloud-config\n# Rendered by gpukit (components/k3s_cloud_init.py).\n" + body


GCE_MARKER = "/var/lib/gpukit/bootstrapped"


def gce_startup_script(node: CloudNode, server_url: str | None, fetch_secrets: str) -> str:
    """A `startup-script` (GCE metadata) that writes the scripts and runs bootstrap.sh once.

    Compute Engine's guest agent runs startup scripts on every image gpukit uses (Ubuntu and the
    Deep Learning VM images), on every boot: a marker written after a successful bootstrap makes
    later boots no-ops, and a failed bootstrap is retried at the next boot. Each script is written
    with a quoted here-document, so nothing in it is expanded.
    """
    scripts = node_scripts(node, server_url, fetch_secrets)
    lines = [
        "#!/usr/bin/env bash",
        "# Rendered by gpukit (components/k3s_cloud_init.py): Compute Engine runs it at every boot.",
        "set -euo pipefail",
        f"if [ -e {GCE_MARKER} ]; then",
        '  echo "gpukit: bootstrapped at first boot; nothing to do"',
        "  exit 0",
        "fi",
        "umask 077",
        f"mkdir -p {BOOTSTRAP_DIR} {GCE_MARKER.rsplit('/', 1)[0]}",
    ]
    for name, text in scripts.items():
        delimiter = f"GPUKIT_{name.split('.')[0].upper().replace('-', '_')}_EOF"
        if delimiter in text.splitlines():
            raise ValueError(f"{name} contains its own here-document delimiter {delimiter}")
        lines += [f"cat > {BOOTSTRAP_DIR}/{name} <<'{delimiter}'", text.rstrip("\n"), delimiter]
        lines.append(f"chmod 700 {BOOTSTRAP_DIR}/{name}")
    lines += [f"{BOOTSTRAP_DIR}/bootstrap.sh", f"touch {GCE_MARKER}", ""]
    return "\n".join(lines)

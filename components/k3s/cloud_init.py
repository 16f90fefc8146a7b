"""What a k3s machine on a cloud runs at first boot, whatever the cloud: the shared host scripts.

A cloud machine cannot be reached by Pulumi (no SSH), so it bootstraps itself: its boot text (EC2 user
data, providers/aws/k3s/user_data.py; a GCE startup script, providers/gcp/k3s/startup_script.py) writes
gpukit's scripts to /opt/gpukit and starts gpukit-bootstrap.service, which runs bootstrap.sh (the same
preflight and install as k3s over SSH, components/k3s/scripts/) until it succeeds once: a failure
(the secret store or a download unreachable for a while) is retried a minute later, so a machine never
stays up without joining; one that does not match its pool stops for good.

The join token and the cluster CAs are not in the boot text, which any process on the machine can
read from the metadata service: fetch-secrets.sh reads them from the cloud's secret store with the
machine's own identity (EC2 instance role, GCE service account) and pipes them into install.sh.

Pure: every input is a plain value, so the output is golden-tested.
"""

from dataclasses import dataclass, field
from pathlib import Path

from gpukit.components.k3s.host_scripts import (
    CLOUD_REAP_AFTER_SECONDS,
    Join,
    K3sDownload,
    MachineCheck,
    encoded_lines,
    install_script,
    k3s_config,
    preflight_script,
    render_script,
)
from gpukit.components.k3s.shutdown import DEFAULT_SHUTDOWN, ShutdownWindow
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import DriverMode, NodeRole, PodSecurityLevel

BOOTSTRAP_DIR = "/opt/gpukit"
DONE_MARKER = "/var/lib/gpukit/bootstrapped"
BOOTSTRAP_UNIT_PATH = "/etc/systemd/system/gpukit-bootstrap.service"
# bootstrap.sh's exit status for a machine that does not match its pool: retrying cannot help.
MISMATCH_EXIT = 3
BOOTSTRAP_UNIT = f"""[Unit]
Description=gpukit: join this machine to its k3s cluster (until it has, once)
Wants=network-online.target
After=network-online.target
ConditionPathExists=!{DONE_MARKER}
StartLimitIntervalSec=0

[Service]
Type=oneshot
ExecStart={BOOTSTRAP_DIR}/bootstrap.sh
Restart=on-failure
RestartSec=60
RestartPreventExitStatus={MISMATCH_EXIT}

[Install]
WantedBy=multi-user.target"""
"""Type=oneshot with Restart=on-failure needs systemd 244 or later (Ubuntu 24.04 has 255)."""
# Read by k3s with its other config.yaml.d drop-ins (k3s-io/docs docs/installation/configuration.md:
# files there are read in order after config.yaml; a key ending in `+` appends to the list).
PROVIDER_ID_FILE = "/etc/rancher/k3s/config.yaml.d/40-gpukit-provider-id.yaml"
START_BOOTSTRAP = ("systemctl daemon-reload", "systemctl enable --now --no-block gpukit-bootstrap.service")
# How long `pulumi up` waits for new servers to boot, install k3s and answer.
API_WAIT_SECONDS = 900


@dataclass(frozen=True)
class CloudNode:
    """What one kind of cloud machine (a server, or any machine of an agent pool) runs at first boot."""

    role: NodeRole
    download: K3sDownload
    driver: DriverMode
    labels: dict[str, str] = field(default_factory=dict)
    taints: tuple[str, ...] = ()
    """`key=value:Effect`, set at registration."""
    expect_gpus: int = 0
    gpu_model: str = ""
    min_driver_branch: int = 0
    cuda_version: str = ""
    join: Join = field(default_factory=lambda: Join(()))
    """The servers this machine joins through (set per machine by the cloud's adapter)."""
    tls_sans: tuple[str, ...] = ()
    traefik: bool = False
    pod_security: PodSecurityLevel = PodSecurityLevel.BASELINE
    system_namespaces: tuple[str, ...] = ()
    machine_check: MachineCheck | None = None
    """Servers: how their node sync asks the cloud whether a node's machine is gone."""
    shutdown: ShutdownWindow = DEFAULT_SHUTDOWN
    """The kubelet's graceful node shutdown: shorter where the cloud takes a spot machine sooner."""


@dataclass(frozen=True)
class NodeSettings:
    """What every machine of a k3s cluster on cloud VMs shares, whatever its pool."""

    download: K3sDownload
    driver: DriverMode
    min_driver_branch: int
    """The oldest driver branch that runs `cuda_version` (0: not checked)."""
    cuda_version: str
    """The newest CUDA the workloads use ("" when the stack does not say)."""
    traefik: bool
    pod_security: PodSecurityLevel
    system_namespaces: tuple[str, ...] = ()
    """The add-ons' namespaces the servers' admission policy admits (ResolvedCluster.system_namespaces)."""


def pool_node(pool: PoolFacts, settings: NodeSettings) -> CloudNode:
    """What a machine of `pool` runs at first boot (its join and TLS SANs are set per machine)."""
    return CloudNode(
        role=pool.role,
        download=settings.download,
        driver=settings.driver,
        labels=dict(pool.labels),
        taints=tuple(t.spec() for t in pool.taints),
        expect_gpus=pool.gpus_per_node,
        gpu_model=pool.instance.gpu_model or "",
        min_driver_branch=settings.min_driver_branch,
        cuda_version=settings.cuda_version,
        traefik=settings.traefik,
        pod_security=settings.pod_security,
        system_namespaces=settings.system_namespaces,
    )


def api_wait_script(api_url: str, timeout_seconds: int = API_WAIT_SECONDS) -> str:
    return render_script("wait-for-api.sh", API_URL=api_url, TIMEOUT_SECONDS=timeout_seconds)


def credentials_bundle(ca_pem: str, cert_pem: str, key_pem: str) -> str:
    """What wait-for-api.sh reads on stdin. Secret: only ever sent as stdin."""
    return encoded_lines((("ca.crt", ca_pem), ("admin.crt", cert_pem), ("admin.key", key_pem)))


def provider_id_script(cloud_part: str | Path, *before: str | Path) -> str:
    """What a machine runs before k3s starts: write the k3s config drop-in that registers its node under
    its cloud provider ID (scripts/provider-id.sh, then the cloud's part, which computes the ID from
    the metadata service; `before`: scripts whose functions that part uses)."""
    return render_script(*before, "provider-id.sh", cloud_part, PROVIDER_ID_FILE=PROVIDER_ID_FILE)


def node_scripts(
    node: CloudNode,
    fetch_secrets: str,
    release_identity: str | None = None,
    provider_id: str | None = None,
) -> dict[str, str]:
    """File name -> script, for one machine. Cloud machines are anonymous and replaceable: their node
    names carry a random id (`with-node-id`), so a replacement that reuses a hostname joins.
    `release_identity`: what the machine runs once joined to give up the identity that reads its join
    secret, where the cloud allows that (EC2: detach the instance profile). `provider_id`: what it runs
    before the install to register under its cloud provider ID (provider_id_script)."""
    config = k3s_config(
        node.role,
        None,
        node.labels,
        list(node.taints),
        tls_sans=list(node.tls_sans),
        traefik=node.traefik,
        with_node_id=True,
    )
    return {
        "preflight.sh": preflight_script(
            node.expect_gpus, node.gpu_model, node.driver, node.min_driver_branch, node.cuda_version
        ),
        "fetch-secrets.sh": fetch_secrets,
        "install.sh": install_script(
            node.role,
            node.download,
            config,
            node.shutdown.kubelet_config(),
            node.join,
            node.pod_security,
            reap_after_seconds=CLOUD_REAP_AFTER_SECONDS,
            machine_check=node.machine_check,
            system_namespaces=node.system_namespaces,
        ),
        "bootstrap.sh": render_script("bootstrap.sh", BOOTSTRAP_DIR=BOOTSTRAP_DIR, DONE_MARKER=DONE_MARKER),
        **({"release-identity.sh": release_identity} if release_identity is not None else {}),
        **({"provider-id.sh": provider_id} if provider_id is not None else {}),
    }

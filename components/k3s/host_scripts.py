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
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from gpukit.components.admission import not_in_namespaces, pod_policy
from gpukit.components.catalog.gpu_names import NAME_INDEX, normalise, spellings_of
from gpukit.components.catalog.gpus import GPU_MODELS
from gpukit.components.catalog.k3s import (
    ARCHES,
    INSTALLER_SHA256,
    binary_sha256,
    binary_url,
    installer_url,
)
from gpukit.components.pools import POOL_LABEL, SERVER_TAINT
from gpukit.components.spec import DriverMode, NodeRole, PodSecurityLevel

SCRIPTS = Path(__file__).parent / "scripts"
HEADER = """#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
"""

CONFIG_DIR = "/etc/rancher/k3s"
# k3s (1.32+) reads kubelet config drop-ins from here, after its own 00-k3s-defaults.conf.
KUBELET_DROP_IN = "/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/50-gpukit-shutdown.conf"
TOKEN_FILE = f"{CONFIG_DIR}/gpukit-token"
"""Every node's join token: the server token on servers, the agent token on agents (secure format)."""
AGENT_TOKEN_FILE = f"{CONFIG_DIR}/gpukit-agent-token"
"""Servers only: the agent token they accept (`agent-token-file`)."""
JOIN_FILE = f"{CONFIG_DIR}/config.yaml.d/50-gpukit-join.yaml"
"""Written once per machine by install.sh: `server: <url>` or `cluster-init: ...` (k3s reads
config.yaml.d/*.yaml after config.yaml, k3s-io/docs docs/installation/configuration.md)."""
TLS_DIR = "/var/lib/rancher/k3s/server/tls"
POD_SECURITY_FILE = "/var/lib/rancher/k3s/server/gpukit-pod-security.yaml"
API_PORT = 6443
POD_CIDR = "10.42.0.0/16"  # k3s's default `--cluster-cidr`, which gpukit keeps
# Kubelet graceful node shutdown: k3s ships it off (0s). A power-off then gives pods this long to
# stop, the last part of it reserved for critical pods (kubelet KubeletConfiguration v1beta1).
SHUTDOWN_GRACE_PERIOD_S = 60
SHUTDOWN_GRACE_PERIOD_CRITICAL_PODS_S = 20
# The metadata server of EC2 (IMDS) and Compute Engine: the same link-local address on both.
METADATA_ADDRESSES = ("169.254.169.254",)
# How long a joining machine waits for some server to answer; the server that may start the cluster
# asks this many times (10 s apart) before deciding that it is the first.
JOIN_WAIT_SECONDS = 1800
JOIN_PROBES = 6
# Namespaces Pod Security Admission does not check: k3s's own system pods (svclb, local-path helpers)
# need host access. The GPU Operator's namespace is labelled privileged where it is created.
POD_SECURITY_EXEMPT_NAMESPACES = ("kube-system",)
ADMIN_USER = "gpukit-admin"


def render_script(*templates: str | Path, **inputs: str | int) -> str:
    """A script: the header, `inputs` as quoted assignments, then the bodies in order. A template names
    a file in components/k3s/scripts/, or is the path of a script a provider keeps with its own code;
    several give one script (functions two scripts share, then the script)."""
    assignments = "".join(
        # A value holding `$` is the text of a file to write (a script), never expanded here.
        ("# shellcheck disable=SC2016\n" if "$" in str(value) else "") + f"{name}={shlex.quote(str(value))}\n"
        for name, value in inputs.items()
    )
    paths = (t if isinstance(t, Path) else SCRIPTS / t for t in templates)
    return HEADER + assignments + "".join(path.read_text() for path in paths)


def gpu_pattern(model: str) -> str:
    """An extended regex over the normalised nvidia-smi name (components/catalog/gpu_names.py) for a
    model, part by part ("A100-80GB" matches `a100sxm480gb`, "RTX-4080-SUPER" `rtx4080super`): how a
    host's GPU is checked against a name no catalog spelling lists."""
    parts = [normalise(p) for p in re.split(r"[-\s_]+", model)]
    return ".*".join(re.escape(p) for p in parts if p) if model else ".*"


def gpu_spellings(model: str) -> tuple[str, str]:
    """(this model's normalised spellings, every other catalog model's), space-separated: the host's
    normalised nvidia-smi name must be one of the first, or unlike all of the second and match
    `gpu_pattern` (a variant no catalog spelling lists)."""
    if model not in GPU_MODELS:
        return "", " ".join(sorted(NAME_INDEX))
    own = spellings_of(model)
    return " ".join(own), " ".join(sorted(k for k in NAME_INDEX if k not in own))


def preflight_script(
    expect_gpus: int,
    gpu_model: str,
    driver: DriverMode,
    min_driver_branch: int = 0,
    cuda_version: str = "",
    *,
    rdma: bool = False,
) -> str:
    """The host preflight; `rdma`: also report the host's RDMA NICs (`gpukit doctor`; a cloud machine's
    user data leaves it out, EC2 capping user data at 16 KiB, and so does the preflight gpukit runs on
    SSH hosts, whose script must not change under hosts that have joined: components/k3s/cluster.py)."""
    templates = ("preflight-rdma.sh", "preflight.sh") if rdma else ("preflight.sh",)
    return render_script(
        *templates,
        EXPECT_GPUS=expect_gpus,
        GPU_MODEL=gpu_model,
        GPU_PATTERN=gpu_pattern(gpu_model),
        GPU_NAMES=gpu_spellings(gpu_model)[0] if gpu_model else "",
        OTHER_GPU_NAMES=gpu_spellings(gpu_model)[1] if gpu_model else "",
        DRIVER_MODE=driver.value,
        MIN_DRIVER_BRANCH=min_driver_branch,
        CUDA_VERSION=cuda_version,
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
    tls_sans: list[str] | None = None,
    traefik: bool = False,
    with_node_id: bool = False,
) -> str:
    """/etc/rancher/k3s/config.yaml: every k3s flag as a key; tokens come from files, not here, and
    whether to start the cluster or join it from JOIN_FILE, which install.sh writes once.

    `node_name` None keeps k3s's default, the machine's hostname: cloud instances in a group are
    anonymous. `with_node_id` appends a random id k3s keeps on the machine's disk, so a replacement
    that reuses a hostname (a recycled private address) registers as a new node instead of being
    refused by the node-password check (k3s-io/docs docs/cli/agent.md, `--with-node-id`).
    """
    config: dict[str, Any] = {"token-file": TOKEN_FILE}
    if node_name is not None:
        config = {"node-name": node_name, **config}
    if with_node_id:
        config["with-node-id"] = True
    if role == NodeRole.SERVER:
        config["agent-token-file"] = AGENT_TOKEN_FILE
        config["tls-san"] = list(tls_sans or [])
        # No ingress controller unless the stack asks for it. No ServiceLB ever: it serves a
        # LoadBalancer Service with hostPort pods in kube-system (exempt from Pod Security) on every
        # node, servers included, so anyone who may create a Service could take a server's port.
        config["disable"] = ["servicelb"] if traefik else ["traefik", "servicelb"]
        config["write-kubeconfig-mode"] = "0600"
        config["secrets-encryption"] = True
        config["kube-apiserver-arg"] = [f"admission-control-config-file={POD_SECURITY_FILE}"]
    config["node-label"] = [f"{k}={v}" for k, v in sorted(labels.items())]
    config["node-taint"] = list(taints)
    return yaml.safe_dump(config, sort_keys=False)


def pod_security_config(level: PodSecurityLevel) -> str:
    """The API server's admission config: Pod Security Admission enforces `level` in every namespace
    without its own label (baseline by default) and warns and audits against restricted, so what
    would fail the stricter level shows up before anyone enforces it. The k3s CIS hardening guide
    passes this file the same way (`admission-control-config-file`)."""
    return yaml.safe_dump(
        {
            "apiVersion": "apiserver.config.k8s.io/v1",
            "kind": "AdmissionConfiguration",
            "plugins": [
                {
                    "name": "PodSecurity",
                    "configuration": {
                        "apiVersion": "pod-security.admission.config.k8s.io/v1",
                        "kind": "PodSecurityConfiguration",
                        "defaults": {
                            "enforce": level.value,
                            "enforce-version": "latest",
                            "audit": PodSecurityLevel.RESTRICTED.value,
                            "audit-version": "latest",
                            "warn": PodSecurityLevel.RESTRICTED.value,
                            "warn-version": "latest",
                        },
                        "exemptions": {
                            "usernames": [],
                            "runtimeClasses": [],
                            "namespaces": list(POD_SECURITY_EXEMPT_NAMESPACES),
                        },
                    },
                }
            ],
        },
        sort_keys=False,
    )


def admin_binding() -> str:
    """A manifest k3s applies from its manifests folder: gpukit's admin certificate names a plain user
    (not the system:masters group, which RBAC cannot take away), bound to cluster-admin here. Deleting
    the binding (and this file on every server) revokes the certificate's access."""
    return yaml.safe_dump(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": ADMIN_USER, "labels": {"app.kubernetes.io/managed-by": "gpukit"}},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": "cluster-admin",
            },
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": ADMIN_USER}],
        },
        sort_keys=False,
    )


SERVER_POLICY_NAME = "gpukit-servers-run-system-pods-only"
# Namespaces whose pods may run on tainted servers: k3s's add-ons and the GPU Operator's controllers.
SYSTEM_NAMESPACES = ("kube-system", "gpu-operator")
_NO_SERVER_TOLERATION = (
    "!has(object.spec.tolerations) || object.spec.tolerations.all(t, "
    "!(has(t.key) && t.key == 'CriticalAddonsOnly') && "
    "!((!has(t.key) || t.key == '') && has(t.operator) && t.operator == 'Exists'))"
)


def server_policy(addon_namespaces: tuple[str, ...] = ()) -> str:
    """Manifests k3s applies from its manifests folder: a ValidatingAdmissionPolicy (GA since
    Kubernetes 1.30) that refuses pods outside the system namespaces tolerating the servers' taint, or
    every taint (an empty key with `Exists`). The taint alone only steers the scheduler; any pod may
    tolerate it, and a workload on a server sits next to etcd and the CA keys. `addon_namespaces`: where
    gpukit's add-ons run their own system pods (ResolvedCluster.system_namespaces), which land on the
    servers where no other pool without GPUs has room; none, and the policy is as it always was."""
    allowed = tuple(dict.fromkeys((*SYSTEM_NAMESPACES, *addon_namespaces)))
    # Worded as it always was for the two: a changed message is changed user data, which replaces every
    # k3s server on a cloud.
    where = " and ".join(allowed) if len(allowed) == 2 else ", ".join(allowed)
    policy, binding = pod_policy(
        SERVER_POLICY_NAME,
        [not_in_namespaces(allowed)],
        _NO_SERVER_TOLERATION,
        f"k3s servers run the control plane only (gpukit): a pod outside {where} may "
        "not tolerate CriticalAddonsOnly or every taint",
    )
    return yaml.safe_dump_all([policy, binding], sort_keys=False)


def metadata_guard_script() -> str:
    return render_script(
        "metadata-guard.sh", POD_CIDR=POD_CIDR, METADATA_ADDRESSES=" ".join(METADATA_ADDRESSES)
    )


METADATA_GUARD_UNIT = """[Unit]
Description=gpukit: drop pod traffic to the cloud metadata server
DefaultDependencies=no
After=network-pre.target
Before=network.target k3s.service k3s-agent.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/lib/gpukit/metadata-guard.sh

[Install]
WantedBy=multi-user.target"""
"""systemd runs the guard at every boot, before the network is up and before k3s."""

METADATA_GUARD_DROP_IN = """[Unit]
Requires=gpukit-metadata-guard.service
After=gpukit-metadata-guard.service"""
"""A drop-in for k3s's own unit: k3s does not start when the guard failed."""


NODE_SYNC_PERIOD = "2min"
# Agent nodes of cloud groups not Ready for this long are gone for good (node-sync.sh).
CLOUD_REAP_AFTER_SECONDS = 1800
# An agent node not Ready for this long is looked up in the cloud (MachineCheck): if its machine is
# gone, its Node goes at once. Longer than the kubelet's grace before a node counts as not Ready.
MACHINE_CHECK_AFTER_SECONDS = 120
# The label and taint keys (or prefixes, ending in "/") the node sync may take off a node once a pool
# no longer has them: every key a k3s pool's labels or taints can hold (gpukit's own, the GPU
# Operator's sharing labels, nvidia.com/gpu, the servers' taint, the clouds' accelerator labels the
# Cluster Autoscaler reads), never others' (node-restriction.kubernetes.io/, a quarantine taint).
# tests/scripts/test_host_scripts.py checks every pool key of the k3s example stacks is here.
NODE_SYNC_MANAGED_KEYS = (
    "gpukit.dev/",
    "nvidia.com/",
    SERVER_TAINT.key,
    "k8s.amazonaws.com/accelerator",
    "cloud.google.com/gke-accelerator",
)


@dataclass(frozen=True)
class MachineCheck:
    """The cloud's part of the node sync on servers: scripts that define `machine_gone PROVIDER_ID`
    (true when the machine behind a node no longer exists, asked with the server's own identity),
    and their inputs. A node whose machine is gone (scale-in, spot reclaim) is deleted within one sync
    instead of after CLOUD_REAP_AFTER_SECONDS; the Cluster Autoscaler stops scaling while too many
    nodes are unready (its --max-total-unready-percentage and --ok-total-unready-count)."""

    templates: tuple[str | Path, ...]
    inputs: tuple[tuple[str, str], ...] = ()


def node_sync_script(reap_after_seconds: int, machine_check: MachineCheck | None = None) -> str:
    check = machine_check or MachineCheck(())
    return render_script(
        *check.templates,
        "node-sync.sh",
        REAP_AFTER_SECONDS=reap_after_seconds,
        MACHINE_CHECK_AFTER_SECONDS=MACHINE_CHECK_AFTER_SECONDS,
        POOL_LABEL=POOL_LABEL,
        MANAGED_KEYS=",".join(NODE_SYNC_MANAGED_KEYS),
        **dict(check.inputs),
    )


NODE_SYNC_SERVICE = """[Unit]
Description=gpukit: pools' labels and taints onto their nodes; nodes of gone machines removed
After=k3s.service

[Service]
Type=oneshot
# A oneshot has no start timeout by default: one hung cloud or API call would stop every later run.
TimeoutStartSec=5min
ExecStart=/usr/local/lib/gpukit/node-sync.sh"""

NODE_SYNC_TIMER = f"""[Unit]
Description=gpukit node sync, every {NODE_SYNC_PERIOD}

[Timer]
OnBootSec={NODE_SYNC_PERIOD}
OnUnitActiveSec={NODE_SYNC_PERIOD}

[Install]
WantedBy=timers.target"""


@dataclass(frozen=True)
class K3sDownload:
    """Where install.sh gets k3s, and the sums it checks before anything runs."""

    version: str
    sha256: dict[str, str]
    """Architecture (amd64, arm64) -> the binary's SHA-256; an architecture missing has no sum."""
    installer_sha256: str = INSTALLER_SHA256

    def inputs(self) -> dict[str, str]:
        return {
            "INSTALLER_URL": installer_url(),
            "INSTALLER_SHA256": self.installer_sha256,
            **{
                name: value
                for arch in ARCHES
                for name, value in (
                    (f"BINARY_URL_{arch.upper()}", binary_url(self.version, arch)),
                    (f"BINARY_SHA256_{arch.upper()}", self.sha256.get(arch, "")),
                )
            },
        }


def k3s_download(version: str, given: dict[str, str] | None = None) -> K3sDownload:
    """The download of `version`, with the stack's sums (k3sSha256) or gpukit's pins."""
    sums = {arch: found for arch in ARCHES if (found := binary_sha256(version, arch, given)) is not None}
    return K3sDownload(version, sums)


@dataclass(frozen=True)
class Join:
    """How one machine finds its cluster (install.sh decides once, on the machine)."""

    urls: tuple[str, ...]
    """The servers to join through, tried in order (never the machine's own address)."""
    may_init: bool = False
    """The one server that starts the cluster when none of `urls` answers."""
    cluster_init: bool = False
    """Start it with embedded etcd (3 servers); SQLite with one."""


def server_join(index: int, urls: list[str]) -> Join:
    """Server `index` of `urls` (every server's URL, in order): it joins through the others. Only the
    first may start the cluster, and only when none of the others answers: a new cluster, or one
    whose servers are all gone. A replaced first server finds the others and joins them."""
    return Join(
        urls=tuple(u for i, u in enumerate(urls) if i != index),
        may_init=index == 0,
        cluster_init=len(urls) > 1,
    )


def agent_join(urls: list[str]) -> Join:
    return Join(urls=tuple(urls))


ETCD_DIR = "/var/lib/rancher/k3s/server/db/etcd"
"""k3s's embedded etcd data (its snapshots are beside it, in db/snapshots, and stay)."""
REJOIN_MARKER = "/var/lib/gpukit/rejoined-at"
START_MARKER = "/var/lib/gpukit/k3s-started-at"
"""When server-rejoin.sh last ran, before a start of k3s: the next run reads k3s's log from there."""
# etcd's ErrMemberRemoved (go.etcd.io/etcd server/etcdserver/errors.go), which k3s logs when its
# member was removed (k3s-io/k3s#13498).
MEMBER_REMOVED_MESSAGE = "the member has been permanently removed from the cluster"
REJOIN_DROP_IN = """[Service]
ExecStartPre=-/usr/local/lib/gpukit/server-rejoin.sh"""
"""A drop-in for k3s.service on servers: the rejoin check before every start ("-": k3s starts even
when the check itself fails)."""


def server_rejoin_script(join: Join) -> str:
    """server-rejoin.sh for a server that joins through `join.urls` when its etcd member was removed."""
    return render_script(
        "server-ping.sh",
        "server-rejoin.sh",
        JOIN_URLS=" ".join(join.urls),
        TLS_DIR=TLS_DIR,
        JOIN_FILE=JOIN_FILE,
        ETCD_DIR=ETCD_DIR,
        REJOIN_MARKER=REJOIN_MARKER,
        START_MARKER=START_MARKER,
        REMOVED_MESSAGE=MEMBER_REMOVED_MESSAGE,
    )


def install_script(  # noqa: PLR0917 - each is one input of install.sh; call sites name them in order
    role: NodeRole,
    download: K3sDownload,
    k3s_config: str,
    kubelet_config: str,
    join: Join,
    pod_security: PodSecurityLevel = PodSecurityLevel.BASELINE,
    *,
    reap_after_seconds: int = 0,
    machine_check: MachineCheck | None = None,
    system_namespaces: tuple[str, ...] = (),
) -> str:
    """install.sh with its inputs. `reap_after_seconds` > 0: servers delete agent nodes not Ready for
    that long (machines in cloud groups, which never come back); `machine_check`: sooner, once the
    cloud says their machine is gone; `system_namespaces`: the add-ons' own, which the servers' policy
    admits too (server_policy)."""
    server = role == NodeRole.SERVER
    return render_script(
        "server-ping.sh",
        "install.sh",
        ROLE=role.value,
        K3S_VERSION=download.version,
        K3S_CONFIG=k3s_config,
        KUBELET_CONFIG=kubelet_config,
        TOKEN_FILE=TOKEN_FILE,
        AGENT_TOKEN_FILE=AGENT_TOKEN_FILE,
        TLS_DIR=TLS_DIR,
        JOIN_URLS=" ".join(join.urls),
        MAY_INIT=str(join.may_init).lower(),
        CLUSTER_INIT=str(join.cluster_init).lower(),
        JOIN_PROBES=JOIN_PROBES,
        JOIN_WAIT_SECONDS=JOIN_WAIT_SECONDS,
        **download.inputs(),
        GUARD_SCRIPT=metadata_guard_script(),
        GUARD_UNIT=METADATA_GUARD_UNIT,
        GUARD_DROP_IN=METADATA_GUARD_DROP_IN,
        POD_SECURITY_CONFIG=pod_security_config(pod_security) if server else "",
        ADMIN_BINDING=admin_binding() if server else "",
        # Only where servers are tainted (the cluster has agents and they are not `schedulable`).
        SERVER_POLICY=(
            server_policy(system_namespaces) if server and SERVER_TAINT.spec() in _taints(k3s_config) else ""
        ),
        NODE_SYNC_SCRIPT=node_sync_script(reap_after_seconds, machine_check) if server else "",
        NODE_SYNC_SERVICE=NODE_SYNC_SERVICE if server else "",
        NODE_SYNC_TIMER=NODE_SYNC_TIMER if server else "",
        REJOIN_SCRIPT=server_rejoin_script(join) if server else "",
        REJOIN_DROP_IN=REJOIN_DROP_IN if server else "",
    )


def _taints(k3s_config: str) -> list[str]:
    taints: list[str] = yaml.safe_load(k3s_config).get("node-taint", [])
    return taints


def kubelet_shutdown_config(
    grace_period_s: int = SHUTDOWN_GRACE_PERIOD_S,
    critical_pods_s: int = SHUTDOWN_GRACE_PERIOD_CRITICAL_PODS_S,
) -> str:
    """A kubelet config drop-in that turns graceful node shutdown on (a spot pool's machines may get a
    shorter window: components/k3s/spot.py)."""
    return yaml.safe_dump(
        {
            "apiVersion": "kubelet.config.k8s.io/v1beta1",
            "kind": "KubeletConfiguration",
            "shutdownGracePeriod": f"{grace_period_s}s",
            "shutdownGracePeriodCriticalPods": f"{critical_pods_s}s",
        },
        sort_keys=False,
    )


def encoded_lines(files: Iterable[tuple[str, str]]) -> str:
    """ "name<TAB>base64" per file, in the order given: how secrets reach a script on its stdin."""
    return "".join(f"{name}\t{base64.b64encode(content.encode()).decode()}\n" for name, content in files)


def secrets_bundle(files: dict[str, str]) -> str:
    """What install.sh reads on stdin, one line per file, by path. Secret: only ever sent as stdin."""
    return encoded_lines(sorted(files.items()))


def fingerprint(*parts: str) -> str:
    """A short hash of what a host runs: a changed script or config re-runs it, an unchanged one does not."""
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]

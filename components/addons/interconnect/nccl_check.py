"""The NCCL check of a fabric pool (`gpukit:verification.nccl`): two nodes of the pool run nccl-tests'
all_reduce_perf over the fabric, and nccl_judge.py fails the run when NCCL fell back to sockets or the
large-message bus bandwidth is below what the machine reaches. Pure: the manifests, the script's inputs
and the judge's expectations; NcclCheck (nccl_component.py) applies them under `pulumi up`.

How it runs. One Indexed batch/v1 Job per pool with two pods, every GPU, EFA device and huge page of a
node each (so each takes a node of its own; an anti-affinity says so too). Pod 0 is the launcher, pod 1
the worker, found by name through a headless Service (`<job>-1.<service>`). Both start sshd on a private
port; the launcher waits until the worker's answers, runs `mpirun` over ssh (Open MPI starts its ranks
on the worker that way: what AWS's and Google's reference runs do, through the MPI Operator or JobSet),
judges the log, and tells the worker to stop. One Job, so a failed launcher fails it and stops the
worker, and the next `pulumi up` replaces both together. Pulumi waits for it (batch/v1's await:
Complete, or Failed at once), so a failed judgement fails `pulumi up` naming the pool. No MPI Operator,
JobSet or Trainer is needed, so the check runs whether or not `gpukit:batch` is on.

Open MPI over ssh, in containers (the ranks the worker's sshd starts get none of the image's ENV): its
daemon is found with `--prefix`, every NCCL_*, FI_*, OFI_NCCL_* and PMIX_MCA_* variable the launcher has
is passed to every rank (`-x`), and the MCA settings AWS's EKS MPIJob gives on the command line are given
there too; `orte_keep_fqdn_hostnames` keeps the worker's full name (Open MPI 4 cuts a host name at its
first dot, open-mpi/ompi#12089, and `<job>-1` alone does not resolve).

Trust. The ssh keys (a client key and a host key, ed25519) are made by Pulumi (pulumi-tls) per cluster,
kept as secrets in the state, and reach the pods as one Secret in the check's own namespace: the client
key opens only the check's pods, whose sshd knows only its public half, and the launcher trusts only
the host key (`StrictHostKeyChecking=yes` against a known_hosts file holding it, never the image's
`StrictHostKeyChecking no`). Nothing else runs in that namespace, and its pods exist only while the
check runs.

The image: AWS's nccl-tests image (public.ecr.aws/hpc-cloud/nccl-tests) by digest, the one AWS's
GPU-cluster lab pins, tag cuda13.0.2-efa1.48.0-ofiv1.19.0-ncclv2.30.4-1-testsv2.18.3 (CUDA 13.0.2,
NCCL 2.30.4, nccl-tests 2.18.3, EFA installer 1.48.0, aws-ofi-nccl 1.19.0; awslabs/awsome-distributed-ai
examples/use-cases/gpu-cluster-failure-patterns/pins.env @1072473d21ed). CUDA 13.0 needs driver branch
580 or later, which the EKS NVIDIA images ship (providers/aws/eks/images.py). It runs as root: sshd
and Open MPI's ranks as the image builds them (aws-samples/awsome-distributed-training
micro-benchmarks/nccl-tests/nccl-tests.Dockerfile: openssh-server, Open MPI under /opt/amazon/openmpi,
nccl-tests under /opt/nccl-tests/build, python3), so its namespace enforces Pod Security "baseline".
"""

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpukit.components.addons.base import RUN_LABEL
from gpukit.components.catalog.fabrics import FabricKind
from gpukit.components.k3s.host_scripts import render_script
from gpukit.components.pools import PoolFacts

NAMESPACE = "gpukit-verify-nccl"
APP_LABEL = "app.kubernetes.io/name"
APP = "gpukit-verify-nccl"
CHECK_LABEL = "gpukit.dev/nccl-check"
JUDGE_ANNOTATION = "gpukit.dev/nccl-judge-sha256"
SSH_PORT = 2222
KEYS_SECRET = "nccl-ssh"
TOOLS_CONFIG_MAP = "nccl-check-tools"
KEYS_DIR = "/etc/gpukit-nccl/keys"
TOOLS_DIR = "/etc/gpukit-nccl/tools"
JUDGE = Path(__file__).parent / "nccl_judge.py"
SCRIPT = Path(__file__).parent / "scripts" / "nccl-check.sh"

NCCL_TESTS_IMAGE = (
    "public.ecr.aws/hpc-cloud/nccl-tests"
    "@sha256:a5390d3f0eb50f3e5854085e2ae0fef90b9eb4f3b7486ed4cab0d47864809d4c"
)
MPI_PREFIX = "/opt/amazon/openmpi"
ALL_REDUCE = "/opt/nccl-tests/build/all_reduce_perf"
MAX_BYTES = "16G"
"""The sweep's largest message, as NVIDIA AICR's EKS H100 check and AWS's p5 runs take it (8 B to
16 GiB, factor 2; nccl-tests reads `G` as 2^30)."""
MAX_BYTES_LABEL = "16 GiB"
MAX_BYTES_COUNT = 16 << 30
RUN_SECONDS = 15 * 60
"""How long all_reduce_perf may run once both pods are up before the launcher stops it and judges what
it printed: a healthy 2-node sweep to 16 GiB takes a few minutes; an EFA or NCCL hang (the usual
failure) would otherwise run to the Job's deadline with no verdict."""
MIN_JUDGED_BYTES = 1 << 30
"""The bandwidth is judged at 1 GiB or more: smaller messages are latency-bound, and a socket fallback
can look fast there (shared/reference interconnect.md 4.4)."""
SHM_SIZE = "16Gi"
"""/dev/shm for NCCL's intra-node buffers, in memory (the container's default 64 MiB is too small)."""
CPU_REQUEST = "8"
MEMORY_REQUEST = "32Gi"
MEMORY_LIMIT = "64Gi"
"""Room for the in-memory /dev/shm (it counts against the limit) beside the ranks' host buffers."""

NET_PLUGIN_NAMES: dict[FabricKind, tuple[str, ...]] = {FabricKind.EFA: ("Libfabric", "OFI")}
"""Substrings of the name NCCL's `Using network` / `via NET/` lines give the fabric's plugin, any of
which will do: aws-ofi-nccl has called itself `AWS Libfabric` and, from after 1.11, `Libfabric`, and
`OFI` where `NCCL_NET=OFI` asks for it (AWS's EKS tests match `NET/.*Libfabric/`,
aws/aws-k8s-tester test/cases/nvidia/mpi_test.go)."""


@dataclass(frozen=True)
class BusBandwidthGate:
    gbs: float
    """GB/s of out-of-place bus bandwidth at the sweep's largest message."""
    source: str


BUSBW_GATES: dict[str, BusBandwidthGate] = {
    # NVIDIA AICR recipe h100-eks-ubuntu-training: all_reduce 1K to 16G, the last row's out-of-place
    # busbw at least 300 GB/s (validators/performance/nccl_all_reduce_bw_constraint.go @bc05c6be7859);
    # AWS publishes 437.8 to 487.3 GB/s for two p5.48xlarge (awsome-distributed-training nccl-tests).
    "p5.48xlarge": BusBandwidthGate(300.0, "NVIDIA AICR's EKS H100 gate"),
}
"""Per machine, the bandwidth a healthy pair reaches, where a validator publishes a gate; elsewhere the
check judges the transport and reports the bandwidth."""


@dataclass(frozen=True)
class NcclExpectation:
    networks: tuple[str, ...]
    """Substrings of the plugin name NCCL must say it uses, any of them (empty: any but sockets)."""
    gpudirect: bool
    gate: BusBandwidthGate | None


@dataclass(frozen=True)
class NcclPoolCheck:
    """What the check of one fabric pool needs: where its pods go, what each requests and sets."""

    pool: str
    node_selector: tuple[tuple[str, str], ...]
    tolerations: tuple[tuple[str, str, str], ...]
    gpus_per_node: int
    requests: tuple[tuple[str, str], ...]
    """What a pod per node requests to use the fabric (the interconnect variant's FabricUse)."""
    env: tuple[tuple[str, str], ...]
    """The fabric's NCCL environment, passed to every rank."""
    expectation: NcclExpectation


def nccl_expectation(pool: PoolFacts, gpudirect: bool) -> NcclExpectation:
    """What a fabric pool's run must show: its plugin's name, GPUDirect RDMA where the substrate says the
    machine uses it, and its bandwidth gate where one is published."""
    assert pool.fabric is not None
    return NcclExpectation(
        NET_PLUGIN_NAMES.get(pool.fabric.kind, ()), gpudirect, BUSBW_GATES.get(pool.instance.name)
    )


def run_name(name: str, run: str | None) -> str:
    """An object's name, for one `gpukit verify` run (`<name>-<run id>`) or for `pulumi up` (as is):
    a run never touches the objects Pulumi owns."""
    return f"{name}-{run}" if run else name


def _labels(run: str | None) -> dict[str, str]:
    return {APP_LABEL: APP, **({RUN_LABEL: run} if run else {})}


def service_name(check: NcclPoolCheck, run: str | None = None) -> str:
    return run_name(f"nccl-{check.pool}", run)


@dataclass(frozen=True)
class ScriptPaths:
    """Where the script finds and puts things: the pod's paths (tests run it in a temporary tree)."""

    sshd: str = "/usr/sbin/sshd"  # by absolute path: sshd re-executes itself and refuses otherwise
    privsep_dir: str = "/run/sshd"
    ssh_dir: str = "/root/.ssh"
    host_key: str = "/etc/ssh/gpukit_nccl_host_ed25519_key"
    done: str = "/tmp/gpukit-nccl-done"
    log: str = "/tmp/nccl-tests.log"
    all_reduce: str = ALL_REDUCE
    keys_dir: str = KEYS_DIR
    tools_dir: str = TOOLS_DIR


def check_script(check: NcclPoolCheck, paths: ScriptPaths = ScriptPaths(), run: str | None = None) -> str:
    """The bash script both pods run, index 0 as the launcher (exit 0: the check passed)."""
    expect = check.expectation
    return render_script(
        SCRIPT,
        POOL=check.pool,
        SERVICE=service_name(check, run),
        SSH_PORT=SSH_PORT,
        KEYS_DIR=paths.keys_dir,
        TOOLS_DIR=paths.tools_dir,
        SSHD=paths.sshd,
        PRIVSEP_DIR=paths.privsep_dir,
        SSH_DIR=paths.ssh_dir,
        HOST_KEY=paths.host_key,
        DONE=paths.done,
        LOG=paths.log,
        PER_NODE=check.gpus_per_node,
        RANKS=2 * check.gpus_per_node,
        MPI_PREFIX=MPI_PREFIX,
        ALL_REDUCE=paths.all_reduce,
        MAX_BYTES=MAX_BYTES,
        MAX_BYTES_COUNT=MAX_BYTES_COUNT,
        RUN_SECONDS=RUN_SECONDS,
        NET_PLUGINS=" ".join(expect.networks),
        GPUDIRECT=int(expect.gpudirect),
        MIN_BYTES=MIN_JUDGED_BYTES,
        MIN_BUSBW=f"{expect.gate.gbs:g}" if expect.gate is not None else "",
        GATE_SOURCE=expect.gate.source if expect.gate is not None else "",
    )


def namespace_manifest() -> dict[str, Any]:
    """Pod Security `baseline`: the pods run as root (sshd, the image's Open MPI), with no host access.
    Audited against `restricted`; warned only against `baseline`, so an apply prints nothing."""
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": NAMESPACE,
            "labels": {
                APP_LABEL: APP,
                "pod-security.kubernetes.io/enforce": "baseline",
                "pod-security.kubernetes.io/audit": "restricted",
                "pod-security.kubernetes.io/warn": "baseline",
            },
        },
    }


def network_policy_manifest(run: str | None = None) -> dict[str, Any]:
    """Into the check's pods only from the check's pods (sshd, Open MPI's daemons and NCCL's bootstrap
    use any port), where the cluster enforces NetworkPolicy. EKS does only with the VPC CNI's network
    policy turned on, which gpukit does not do yet: there the guard is sshd's key-only root login (the
    client key exists only in the check's Secret)."""
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {
            "name": run_name("nccl-check-peers-only", run),
            "namespace": NAMESPACE,
            "labels": _labels(run),
        },
        "spec": {
            "podSelector": {},
            "policyTypes": ["Ingress"],
            "ingress": [
                {
                    "from": [
                        {"podSelector": {"matchExpressions": [{"key": CHECK_LABEL, "operator": "Exists"}]}}
                    ]
                }
            ],
        },
    }


def tools_manifest(run: str | None = None) -> dict[str, Any]:
    """The judge, as the launcher runs it."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": run_name(TOOLS_CONFIG_MAP, run), "namespace": NAMESPACE, "labels": _labels(run)},
        "data": {JUDGE.name: JUDGE.read_text()},
    }


def service_manifest(check: NcclPoolCheck, run: str | None = None) -> dict[str, Any]:
    """Headless, listing pods before they are ready: the launcher finds the worker by name as it starts."""
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": service_name(check, run), "namespace": NAMESPACE, "labels": _labels(run)},
        "spec": {
            "clusterIP": "None",
            "publishNotReadyAddresses": True,
            "selector": {CHECK_LABEL: check.pool, **({RUN_LABEL: run} if run else {})},
            "ports": [{"name": "ssh", "port": SSH_PORT, "targetPort": SSH_PORT}],
        },
    }


def keys_manifest(
    client_private: Any, client_public: Any, host_private: Any, known_hosts: Any, run: str | None = None
) -> dict[str, Any]:
    """The check's ssh keys (plain text, or Pulumi Outputs under `pulumi up`); `known_hosts`:
    known_hosts_line(the host key's public half)."""
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "Opaque",
        "metadata": {"name": run_name(KEYS_SECRET, run), "namespace": NAMESPACE, "labels": _labels(run)},
        "stringData": {
            "id_ed25519": client_private,
            "authorized_keys": client_public,
            "ssh_host_ed25519_key": host_private,
            "known_hosts": known_hosts,
        },
    }


KNOWN_HOSTS_PATTERN = "* "
"""The check's one host key, for every name the launcher may reach the worker by."""


def known_hosts_line(host_public: str) -> str:
    return KNOWN_HOSTS_PATTERN + host_public


def _pod_spec(check: NcclPoolCheck, run: str | None) -> dict[str, Any]:
    fabric = dict(check.requests)
    container: dict[str, Any] = {
        "name": "nccl",
        "image": NCCL_TESTS_IMAGE,
        "imagePullPolicy": "IfNotPresent",
        "command": ["bash", "-c", check_script(check, run=run)],
        "env": [
            # The worker's name is <job name>-1.<service> (an Indexed Job's pods are <job name>-<index>).
            {
                "name": "JOB_NAME",
                "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['batch.kubernetes.io/job-name']"}},
            },
            *({"name": name, "value": value} for name, value in check.env),
        ],
        "ports": [{"name": "ssh", "containerPort": SSH_PORT}],
        "resources": {
            "requests": {"cpu": CPU_REQUEST, "memory": MEMORY_REQUEST, **fabric},
            "limits": {"nvidia.com/gpu": str(check.gpus_per_node), "memory": MEMORY_LIMIT, **fabric},
        },
        "securityContext": {"allowPrivilegeEscalation": False},
        "volumeMounts": [
            {"name": "keys", "mountPath": KEYS_DIR, "readOnly": True},
            {"name": "tools", "mountPath": TOOLS_DIR, "readOnly": True},
            {"name": "shm", "mountPath": "/dev/shm"},
        ],
        "terminationMessagePolicy": "FallbackToLogsOnError",
    }
    return {
        "restartPolicy": "Never",
        "automountServiceAccountToken": False,
        "enableServiceLinks": False,
        "subdomain": service_name(check, run),
        "nodeSelector": dict(check.node_selector),
        "tolerations": [{"key": k, "operator": o, "effect": e} for k, o, e in check.tolerations],
        # Two nodes: the check is of the fabric between them (each pod takes every GPU of a node anyway).
        "affinity": {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "labelSelector": {"matchLabels": {CHECK_LABEL: check.pool}},
                        "topologyKey": "kubernetes.io/hostname",
                    }
                ]
            }
        },
        "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
        "containers": [container],
        "volumes": [
            {"name": "keys", "secret": {"secretName": run_name(KEYS_SECRET, run), "defaultMode": 0o400}},
            {"name": "tools", "configMap": {"name": run_name(TOOLS_CONFIG_MAP, run)}},
            {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": SHM_SIZE}},
        ],
    }


def job_manifest(
    check: NcclPoolCheck, timeout_minutes: int, *, run: str | None = None, ttl_seconds: int | None = None
) -> dict[str, Any]:
    """The pool's check: one Indexed Job of two pods, index 0 the launcher, so the two are created,
    failed and replaced together (a failed launcher fails the Job, which stops the worker; the next
    `pulumi up` replaces the whole Job). Named `nccl-<pool>-<hash of its spec>`, the judge's source
    included, so a changed pool, image, script or judge gives a new Job and an unchanged one keeps it (at
    most 5 + 24 + 9 characters, 7 more with a `gpukit verify` run id, and its pods' hostnames 2 more,
    within 63). `run`, `ttl_seconds`: as the GPU verification's Jobs have them under `gpukit verify`."""
    judge = hashlib.sha256(JUDGE.read_bytes()).hexdigest()
    labels = {APP_LABEL: APP, CHECK_LABEL: check.pool, **({RUN_LABEL: run} if run else {})}
    spec: dict[str, Any] = {
        "completionMode": "Indexed",
        "completions": 2,
        "parallelism": 2,
        # The launcher's success is the check's: the Job completes then and stops the worker, even when
        # the launcher could not tell it to stop (GA in Kubernetes 1.33; EKS here runs 1.34 or later).
        "successPolicy": {"rules": [{"succeededIndexes": "0"}]},
        # No retry: a side run again alone cannot meet the other, and a failed judgement is the result.
        "backoffLimit": 0,
        "activeDeadlineSeconds": timeout_minutes * 60,
        "template": {
            "metadata": {"labels": labels, "annotations": {JUDGE_ANNOTATION: judge}},
            "spec": _pod_spec(check, run),
        },
    }
    digest = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:8]
    if ttl_seconds is not None:
        spec = {"ttlSecondsAfterFinished": ttl_seconds, **spec}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": run_name(f"nccl-{check.pool}-{digest}", run),
            "namespace": NAMESPACE,
            "labels": labels,
        },
        "spec": spec,
    }

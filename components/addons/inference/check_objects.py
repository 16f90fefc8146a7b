"""The inference check `pulumi up` runs where the stack verifies (`gpukit:verification.enabled`), as
pure manifests: it proves the serving pipeline end to end without a model.

- Two vLLM simulators (llm-d-inference-sim, CPU only): `sim-stable` publishes a fixed queue depth
  (`--fake-metrics`: vllm:num_requests_waiting = FAKE_WAITING) and `sim-canary` answers under another
  model name. Both carry the workload label convention (names.py), so the store scrapes them as it
  would a model server.
- KEDA scales `sim-stable` from 1 to 2 replicas with the very ScaledObject docs/inference.md shows a
  model server (scalers.queue_scaled_object): one replica's queue alone asks ceil(FAKE_WAITING /
  QUEUE_THRESHOLD) = 2.
- An HTTPRoute on gpukit's Gateway, for ROUTE_HOST only: GET ROUTE_PATH goes to `sim-stable`, the
  same with header ROUTE_HEADER: ROUTE_HEADER_VALUE to `sim-canary` (nothing else of the simulators
  is routed: their admin endpoints stay off the Gateway). On GKE a HealthCheckPolicy per backend:
  GKE's load balancer health-checks `/` by default, which the simulator answers 404.
- Where the GPU Operator's DCGM exporter runs, the check's own pod runs on a GPU pool and holds one
  unit there while it checks; a witness Deployment is scaled by KEDA on a query that is 2 once the
  store holds a DCGM series naming that pod, 1 before. KEDA reads the store as every ScaledObject does
  (on GKE through its workload identity), so the check pod needs no credentials of its own. Being the
  check's pod, the holder runs again whenever the check does: a `pulumi up` after a failed check
  replaces the Job (pulumi.com/replaceUnready) and with it the GPU series it waits for.
- The check Job waits for each of these: the routes through the Gateway, two ready `sim-stable` pods,
  two ready witness pods (scripts/inference-check.sh). Elsewhere it runs on the pools without GPUs.

Every object but the namespace and the route is named by a hash of everything the check runs, so a
changed check runs again from scratch: new Deployments at one replica, a new Job whose pods the
witness's query names. The simulators, the route and the ScaledObjects stay (a few CPU millicores): a
later `pulumi up` whose check is unchanged neither re-runs nor re-creates them. A retry after a failed
check re-runs the Job only, so its scaling step counts the replicas KEDA gave the simulator before (only
KEDA sets them). The CPU pods run on the pools without GPUs that are not k3s servers
(check_plan.check_pools), and never on a node labelled a control plane.

Hardened as the GPU verification is: no service-account token, non-root, no privilege escalation, every
capability dropped, seccomp RuntimeDefault; the namespace enforces Pod Security "restricted".
"""

import hashlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gpukit.components.addons.inference.gateway_names import (
    GATEWAY_NAME,
    GATEWAY_NAMESPACE,
    ROUTES_LABEL,
    ROUTES_LABEL_VALUE,
    GatewayTarget,
)
from gpukit.components.addons.inference.names import (
    GPU_OPERATOR_NAMESPACE,
    METRICS_LABEL,
    METRICS_LABEL_VALUE,
    METRICS_PORT_NAME,
)
from gpukit.components.addons.inference.scalers import (
    QUEUE_THRESHOLD,
    Target,
    queue_scaled_object,
    scaled_object,
)
from gpukit.components.admission import MANAGED_LABELS
from gpukit.components.k3s.host_scripts import render_script
from gpukit.components.pod_security_labels import pod_security_labels
from gpukit.components.spec import PodSecurityLevel, SharingMode

CHECK_NAMESPACE = "gpukit-verify-inference"
HOLDER_IMAGE = "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0-ubuntu22.04"
"""The check's image where its pod holds a GPU unit: the GPU verification's (components/addons/
verification/checks.py SAMPLE_IMAGE; a test holds them equal), already pulled on the pool's nodes, and
Ubuntu 22.04 underneath (bash, getent, awk, coreutils)."""
VERIFICATION_ADDON = "verification"
"""The GPU verification add-on's name (its Addon.name; a test holds them equal): the check comes after
what it built, its Jobs, so the check's GPU pod finds a node of the pool already up."""
SIM_IMAGE = "ghcr.io/llm-d/llm-d-inference-sim:v0.10.2"
"""llm-d/llm-d-inference-sim v0.10.2 (2026-07-15, commit f36f6526): linux/amd64 and arm64, distroless
`static:nonroot` running as 65532 (its Dockerfile); `--fake-metrics` and the routes used here are in
its docs/configuration.md and pkg/communication/http.go at that tag. No digest is published beside the
tag in any source gpukit could read offline, so the tag is the pin (as for the CUDA sample image)."""
SIM_USER = 65532
CHECK_IMAGE = "ubuntu:noble-20250619"
"""Ubuntu 24.04 at a dated tag: bash, getent, awk and coreutils, all the check script needs."""
NOBODY = 65534
SIM_PORT = 8000
"""The simulator's default port: its OpenAI API and /metrics (named `metrics`, the label convention's
port)."""
STABLE = "sim-stable"
CANARY = "sim-canary"
WITNESS = "dcgm-witness"
STABLE_MODEL = "gpukit-verify-stable"
CANARY_MODEL = "gpukit-verify-canary"
WITNESS_MODEL = "gpukit-verify-witness"
ROUTE_PATH = "/v1/models"
"""The simulator lists its model here: which backend answered is in the body."""
ROUTE_HOST = "gpukit-verify.invalid"
"""The route's only hostname (`.invalid` is reserved, RFC 6761: no real client sends it): the Gateway is
shared, and a route without hostnames would take `GET /v1/models` of every model server behind it (an
Exact path outranks their prefixes)."""
ROUTE_HEADER = "x-gpukit-verify"
ROUTE_HEADER_VALUE = "canary"
ROUTE = "sim"
FAKE_WAITING = QUEUE_THRESHOLD + 3
SCALED_REPLICAS = 2
CHECK = "inference-check"
GPU_VERIFICATION_NAMESPACE = "gpukit-verify"
"""Where the GPU verification's Jobs run (components/addons/verification/jobs.py NAMESPACE; a test holds
them equal)."""
DCGM_METRIC = "DCGM_FI_DEV_FB_USED"
"""Framebuffer in use: reported for whole GPUs and for MIG instances alike (GPU utilisation is not
reported for a MIG instance), in the exporter's default metrics (dcp-metrics-included.csv)."""
DCGM_WINDOW = "30m"
"""How far back the witness's query looks for the check pod's series (the pod is running as it asks)."""
SHARED_BY_TIME = (SharingMode.TIME_SLICING, SharingMode.MPS)
POLL_SECONDS = 5
REQUEST_SECONDS = 10
DEADLINE_MARGIN_SECONDS = 60
"""The script gives up this long before the Job's deadline, so its FAIL line (which step, what it saw)
is the Job's failure rather than Kubernetes' DeadlineExceeded."""
CHECK_SCRIPT = Path(__file__).parent / "scripts" / "inference-check.sh"
GATEWAY_HOST_ENV = "GATEWAY_HOST"
"""The check pod's variable for the Gateway's host (the script reads it; on GKE check_component.py sets
it from the Gateway's status)."""


@dataclass(frozen=True)
class HolderUnit:
    """The one GPU unit the check's pod holds, and where (the DCGM step)."""

    pool: str
    node_selector: tuple[tuple[str, str], ...]
    tolerations: tuple[tuple[str, str, str], ...]
    """(key, operator, effect) of each toleration."""
    resource: str
    """nvidia.com/gpu, or nvidia.com/mig-<profile> where the pool advertises MIG devices by profile."""
    sharing: SharingMode


@dataclass(frozen=True)
class CheckPlan:
    """What the check covers for a cluster: the parts it has what it needs for."""

    timeout_minutes: int
    store: Target | None = None
    """KEDA's view of the store (the queue's ScaledObject names it); None: no scaling step (metrics or
    autoscaling off)."""
    gateway: GatewayTarget | None = None
    """None: no gateway step."""
    health_check_policies: bool = False
    """GKE: a HealthCheckPolicy per backend Service."""
    holder: HolderUnit | None = None
    """The GPU pool unit the check's pod holds (the store holds the GPU Operator's DCGM series); None:
    no DCGM step, the pod runs on the pools without GPUs."""
    tolerations: tuple[dict[str, str], ...] = field(default_factory=tuple)
    """The taints of the pools the simulators and the check pod run on (no k3s server's)."""
    dcgm_namespace_label: str = "namespace"
    """The label the store keeps a GPU holder's namespace under (witness_query)."""

    @property
    def dcgm(self) -> bool:
        return self.holder is not None and self.store is not None


@dataclass(frozen=True)
class InferenceCheck:
    """The manifests, in apply order."""

    namespace: dict[str, Any]
    fixtures: list[dict[str, Any]]
    """Services, Deployments, HealthCheckPolicies, the HTTPRoute, the ScaledObjects."""
    check_job: dict[str, Any]

    @property
    def jobs(self) -> list[dict[str, Any]]:
        return [self.check_job]


def _meta(name: str) -> dict[str, Any]:
    return {"name": name, "namespace": CHECK_NAMESPACE, "labels": dict(MANAGED_LABELS)}


def _container_security() -> dict[str, Any]:
    return {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}


def _pod_security(user: int) -> dict[str, Any]:
    return {
        "runAsNonRoot": True,
        "runAsUser": user,
        "runAsGroup": user,
        "seccompProfile": {"type": "RuntimeDefault"},
    }


CONTROL_PLANE_LABEL = "node-role.kubernetes.io/control-plane"
"""k3s labels its servers so; EKS's and GKE's nodes carry no such label."""


def _off_control_plane() -> dict[str, Any]:
    """Never on a k3s server, whatever its taints (a server of a cluster without agents has none)."""
    term = {"matchExpressions": [{"key": CONTROL_PLANE_LABEL, "operator": "DoesNotExist"}]}
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}


def check_namespace(gateway: bool) -> dict[str, Any]:
    labels = {**MANAGED_LABELS, **pod_security_labels(PodSecurityLevel.RESTRICTED)}
    if gateway:
        labels[ROUTES_LABEL] = ROUTES_LABEL_VALUE  # its route may attach to gpukit's Gateway
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": CHECK_NAMESPACE, "labels": labels}}


def _simulator(
    name: str,
    model: str,
    plan: CheckPlan,
    fake_metrics: dict[str, int] | None = None,
    *,
    scaled: bool = False,
    scraped: bool = True,
) -> dict[str, Any]:
    """A simulator Deployment; `scaled`: KEDA owns its replicas (none set here: the API server's default
    1 at creation, and a later apply leaves KEDA's count alone); `scraped`: it carries the workload
    label convention (the witness does not: only its replica count matters)."""
    # The dummy tokenizer: otherwise the simulator asks huggingface.co whether the model exists before it
    # serves (pkg/tokenizer/tokenizer.go, modelExists), which an egress-filtered cluster never answers.
    args = ["--model", model, "--port", str(SIM_PORT), "--force-dummy-tokenizer"]
    if fake_metrics:
        args += ["--fake-metrics", json.dumps(fake_metrics, separators=(",", ":"))]
    labels = {"app.kubernetes.io/name": name, **({METRICS_LABEL: METRICS_LABEL_VALUE} if scraped else {})}
    spec: dict[str, Any] = {
        "selector": {"matchLabels": {"app.kubernetes.io/name": name}},
        "template": {
            "metadata": {"labels": labels},
            "spec": {
                "automountServiceAccountToken": False,
                "enableServiceLinks": False,
                "affinity": _off_control_plane(),
                "tolerations": [dict(t) for t in plan.tolerations],
                "securityContext": _pod_security(SIM_USER),
                "containers": [
                    {
                        "name": "simulator",
                        "image": SIM_IMAGE,
                        "args": args,
                        "ports": [{"name": METRICS_PORT_NAME, "containerPort": SIM_PORT}],
                        "readinessProbe": {
                            "httpGet": {"path": "/health", "port": METRICS_PORT_NAME},
                            "periodSeconds": 5,
                        },
                        "resources": {
                            "requests": {"cpu": "10m", "memory": "64Mi"},
                            "limits": {"cpu": "100m", "memory": "256Mi"},
                        },
                        "securityContext": _container_security(),
                    }
                ],
            },
        },
    }
    if not scaled:
        spec["replicas"] = 1
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": _meta(name), "spec": spec}


def _service(name: str, headless: bool = False) -> dict[str, Any]:
    """`<name>`: the route's backend; `<name>-pods` (headless): one address per ready pod, which the
    check counts."""
    spec: dict[str, Any] = {
        "selector": {"app.kubernetes.io/name": name},
        "ports": [{"name": "http", "port": SIM_PORT, "targetPort": METRICS_PORT_NAME}],
    }
    if headless:
        spec["clusterIP"] = "None"
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": _meta(f"{name}-pods" if headless else name),
        "spec": spec,
    }


def _health_check_policy(service: str) -> dict[str, Any]:
    """GKE's load balancer checks the simulator's /health on the port it serves on (USE_SERVING_PORT,
    the default: the NEG endpoint's)."""
    return {
        "apiVersion": "networking.gke.io/v1",
        "kind": "HealthCheckPolicy",
        "metadata": _meta(service),
        "spec": {
            "default": {"config": {"type": "HTTP", "httpHealthCheck": {"requestPath": "/health"}}},
            "targetRef": {"group": "", "kind": "Service", "name": service},
        },
    }


def _route(name: str, host: str, stable: str, canary: str) -> dict[str, Any]:
    path = {"type": "Exact", "value": ROUTE_PATH}
    header = {"type": "Exact", "name": ROUTE_HEADER, "value": ROUTE_HEADER_VALUE}
    return {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": _meta(name),
        "spec": {
            "hostnames": [host],
            "parentRefs": [
                {
                    "group": "gateway.networking.k8s.io",
                    "kind": "Gateway",
                    "name": GATEWAY_NAME,
                    "namespace": GATEWAY_NAMESPACE,
                }
            ],
            "rules": [
                {
                    "matches": [{"path": path, "headers": [header]}],
                    "backendRefs": [{"name": canary, "port": SIM_PORT}],
                },
                {
                    "matches": [{"path": path}],
                    "backendRefs": [{"name": stable, "port": SIM_PORT}],
                },
            ],
        },
    }


def witness_query(
    check_job: str, cluster: str = "", shared: bool = False, namespace_label: str = "namespace"
) -> str:
    """2 once the store holds a DCGM series naming a pod of `check_job` in the check's namespace, else
    1 (an empty count is no sample: `or vector(0)` makes it 0).

    - `namespace_label`: where the store keeps the namespace of the GPU's holder: `namespace` in the
      in-cluster store (the DCGM monitor honours the exporter's labels), `exported_namespace` in GKE's
      (its PodMonitoring sets `namespace` to the exporter's own: monitors.py).
    - `cluster`: the store's label for this cluster, where the store holds other clusters' series too
      (GKE's).
    - `shared`: the holder's pool shares each GPU by time (time-slicing, MPS), whose series name one of
      the pods sharing it, whichever the device plugin lists first (NVIDIA/dcgm-exporter#307): a
      workload beside the check's pod may be the one named, so a series naming a pod of any other
      namespace counts (the exporter's attribution reached the store), never an unattributed one (the
      in-cluster store labels those with the exporter's own namespace, GKE's leaves the holder's label
      out) nor one of the GPU verification's pods, which ran on the pool just before."""
    if shared:
        # The in-cluster store's unattributed series have the exporter's namespace, GKE's none (`""`).
        unattributed = GPU_OPERATOR_NAMESPACE if namespace_label == "namespace" else ""
        matchers = f'{namespace_label}!~"{unattributed}|{GPU_VERIFICATION_NAMESPACE}"'
    else:
        matchers = f'{namespace_label}="{CHECK_NAMESPACE}",pod=~"{check_job}-[a-z0-9]+"'
    if cluster:
        matchers = f'cluster="{cluster}",{matchers}'
    return f"1 + (count(last_over_time({DCGM_METRIC}{{{matchers}}}[{DCGM_WINDOW}])) > bool 0 or vector(0))"


def check_script(
    plan: CheckPlan,
    check_job: str,
    *,
    stable: str = STABLE,
    witness: str = WITNESS,
    host: str = ROUTE_HOST,
    wait_seconds: int | None = None,
    poll_seconds: int = POLL_SECONDS,
) -> str:
    """The check pod's script; `wait_seconds` (default: the Job's deadline less the margin) and
    `poll_seconds` are the tests' to shorten."""
    wait = plan.timeout_minutes * 60 - DEADLINE_MARGIN_SECONDS if wait_seconds is None else wait_seconds
    return render_script(
        CHECK_SCRIPT,
        ROUTE="1" if plan.gateway else "",
        SCALING="1" if plan.store else "",
        DCGM="1" if plan.dcgm else "",
        WAIT_SECONDS=wait,
        POLL_SECONDS=poll_seconds,
        REQUEST_SECONDS=REQUEST_SECONDS,
        GATEWAY_PORT=plan.gateway.port if plan.gateway else 0,
        ROUTE_PATH=ROUTE_PATH,
        ROUTE_HOST=host,
        ROUTE_HEADER=ROUTE_HEADER,
        ROUTE_HEADER_VALUE=ROUTE_HEADER_VALUE,
        STABLE_MODEL=STABLE_MODEL,
        CANARY_MODEL=CANARY_MODEL,
        STABLE_PODS=f"{stable}-pods.{CHECK_NAMESPACE}.svc.cluster.local",
        WITNESS_PODS=f"{witness}-pods.{CHECK_NAMESPACE}.svc.cluster.local",
        CHECK_JOB=check_job,
    )


def _check_job(plan: CheckPlan, check_job: str, stable: str, witness: str, host: str) -> dict[str, Any]:
    """The check Job: on a GPU pool holding one unit where the DCGM step runs (its pod is the one whose
    series the witness waits for), else on the pools without GPUs."""
    env = [{"name": GATEWAY_HOST_ENV, "value": plan.gateway.host if plan.gateway else ""}]
    container: dict[str, Any] = {
        "name": "check",
        "image": CHECK_IMAGE,
        "command": ["bash", "-c", check_script(plan, check_job, stable=stable, witness=witness, host=host)],
        "env": env,
        "resources": {"requests": {"cpu": "10m", "memory": "32Mi"}, "limits": {"memory": "128Mi"}},
        "securityContext": _container_security(),
        "terminationMessagePolicy": "FallbackToLogsOnError",
    }
    pod: dict[str, Any] = {
        "restartPolicy": "Never",
        "automountServiceAccountToken": False,
        "enableServiceLinks": False,
        "securityContext": _pod_security(NOBODY),
    }
    if plan.dcgm and plan.holder is not None:
        unit = plan.holder
        container["image"] = HOLDER_IMAGE
        container["imagePullPolicy"] = "IfNotPresent"
        container["resources"]["limits"][unit.resource] = "1"
        pod["nodeSelector"] = dict(unit.node_selector)
        pod["tolerations"] = [{"key": k, "operator": o, "effect": e} for k, o, e in unit.tolerations]
    else:
        pod["affinity"] = _off_control_plane()
        pod["tolerations"] = [dict(t) for t in plan.tolerations]
    pod["containers"] = [container]
    spec = {
        "backoffLimit": 0,  # the script retries within its own deadline; a second pod would start over
        "activeDeadlineSeconds": plan.timeout_minutes * 60,
        "template": {"metadata": {"labels": {"app.kubernetes.io/name": CHECK}}, "spec": pod},
    }
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": _meta(CHECK), "spec": spec}


def _scaling(store: Target, deployment: str) -> Target:
    """KEDA's target for one of the check's Deployments: 1 to SCALED_REPLICAS, querying `store`."""
    return replace(store, deployment=deployment, namespace=CHECK_NAMESPACE, max_replicas=SCALED_REPLICAS)


def _named(obj: dict[str, Any], name: str) -> dict[str, Any]:
    return {**obj, "metadata": {**obj["metadata"], "name": name}}


def _render(plan: CheckPlan, digest: str, run: bool = False) -> InferenceCheck:
    """Every object, each name but the namespace's and the route's ending in `-<digest>`: a changed
    check gets new Deployments, which start again at one replica, and a new Job, whose pods the witness's
    query names (a check that can only pass again is no check). `run`: `digest` is a `gpukit verify`
    run's id, whose route is its own too, for a hostname of its own (two routes with the same matches
    would go to the older one's backends)."""

    def named(base: str) -> str:
        return f"{base}-{digest}"

    stable, canary, witness, check_job = named(STABLE), named(CANARY), named(WITNESS), named(CHECK)
    fixtures: list[dict[str, Any]] = []
    deployments: list[dict[str, Any]] = []
    scaled: list[dict[str, Any]] = []
    if plan.gateway or plan.store:
        fixtures.append(_service(stable))
        queue = {"waiting-requests": FAKE_WAITING}
        deployments.append(_simulator(stable, STABLE_MODEL, plan, queue, scaled=bool(plan.store)))
    if plan.store:
        fixtures.append(_service(stable, headless=True))
        scaled.append(queue_scaled_object(_scaling(plan.store, stable)))
    if plan.gateway:
        fixtures.append(_service(canary))
        deployments.append(_simulator(canary, CANARY_MODEL, plan))
    if plan.dcgm and plan.holder is not None and plan.store is not None:
        fixtures.append(_service(witness, headless=True))
        deployments.append(_simulator(witness, WITNESS_MODEL, plan, scaled=True, scraped=False))
        shared = plan.holder.sharing in SHARED_BY_TIME
        query = witness_query(check_job, plan.store.cluster, shared, plan.dcgm_namespace_label)
        scaled.append(scaled_object(_scaling(plan.store, witness), query, 1, "AverageValue"))
    fixtures += deployments
    if plan.gateway and plan.health_check_policies:
        fixtures += [_health_check_policy(stable), _health_check_policy(canary)]
    host = f"{digest}.{ROUTE_HOST}" if run else ROUTE_HOST
    if plan.gateway:
        fixtures.append(_route(named(ROUTE) if run else ROUTE, host, stable, canary))
    check = _named(_check_job(plan, check_job, stable, witness, host), check_job)
    return InferenceCheck(check_namespace(bool(plan.gateway)), fixtures + scaled, check)


def inference_check(plan: CheckPlan, run: str | None = None) -> InferenceCheck:
    """The check's manifests for `plan`, named by a hash of what they would be unnamed; `run`: named
    for a `gpukit verify` run instead (check_suite.py), beside `pulumi up`'s own."""
    if run is not None:
        return _render(plan, run, run=True)
    unnamed = _render(plan, "")
    parts = [unnamed.namespace, unnamed.fixtures, unnamed.jobs]
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:8]
    return _render(plan, digest)

"""The Pulumi program: read the stack config once, build GpuCluster, export what users need next.

`__main__.py` calls `main()` under `pulumi up`; `gpukit plan` calls `build()` in-process under the mock
engine, so both run the very same code.
"""

import json
from collections.abc import Collection, Mapping
from typing import Any

import pulumi

from gpukit.components.cluster import GpuCluster, GpuClusterArgs
from gpukit.components.config.stack import cluster_args_from_config
from gpukit.components.errors import ConfigError
from gpukit.components.preflight import Finding, Severity, preflight
from gpukit.components.spec import ClusterSpec, Platform, Provider

NAMESPACES = ("gpukit", "aws", "gcp")


class PreflightError(Exception):
    def __init__(self, findings: list[Finding]) -> None:
        self.findings = findings
        super().__init__("\n".join(str(f) for f in findings))


def read_stack_config() -> tuple[dict[str, Any], list[str]]:
    """Every `gpukit:*` and `aws:*` value of the running stack (objects decoded from JSON), and which
    of those keys hold encrypted values.

    All keys are read (not only the known ones) so that a misspelt key is reported, not ignored.
    """
    from pulumi.runtime import config as runtime_config

    keys = set(runtime_config.CONFIG.get()) | set(runtime_config.get_config_env())
    out: dict[str, Any] = {}
    for key in sorted(keys):
        if key.split(":", 1)[0] not in NAMESPACES:
            continue
        raw = runtime_config.get_config(key)
        try:
            out[key] = json.loads(raw) if isinstance(raw, str) and raw[:1] in "{[" else raw
        except json.JSONDecodeError:
            out[key] = raw
    return out, [k for k in out if runtime_config.is_config_secret(k)]


def next_steps(spec: ClusterSpec) -> list[str]:
    """What to run after `pulumi up`, for this platform."""
    name = spec["name"]
    steps = [
        "pulumi stack output kubeconfig --show-secrets > kubeconfig.yaml",
        "export KUBECONFIG=$PWD/kubeconfig.yaml",
    ]
    if spec["platform"] == Platform.EKS:
        steps.append(f"# or: aws eks update-kubeconfig --name {name} --region {spec['region']}")
    elif spec["platform"] == Platform.GKE:
        location = spec.get("zone") or spec["region"]
        steps.append(
            f"# or: gcloud container clusters get-credentials {name} --location {location} "
            f"--project {spec.get('project', '')}"
        )
    elif spec.get("provider") in (Provider.AWS, Provider.GCP):
        steps.append(
            "# the kubeconfig is built from the CA Pulumi made: no SSH to the machines is needed; agents "
            "join a few minutes after their machines boot"
        )
    steps += [
        "kubectl get nodes -L gpukit.dev/pool,gpukit.dev/gpu-model",
        "kubectl get pods -A | grep -i nvidia",
        "# a GPU pod must tolerate nvidia.com/gpu:NoSchedule and request nvidia.com/gpu",
    ]
    return steps


def build(
    config: Mapping[str, Any], secret_keys: Collection[str] = (), *, enforce_preflight: bool = True
) -> tuple[GpuClusterArgs, GpuCluster]:
    """Validate, preflight, then declare the cluster and the stack outputs."""
    args = cluster_args_from_config(config, secret_keys)
    if "ssh_private_key" in args:
        # Secret from here on: in state, in every command that uses it, in plans.
        args["ssh_private_key"] = pulumi.Output.secret(args["ssh_private_key"])
    errors = [f for f in preflight(args) if f.severity == Severity.ERROR]
    if errors and enforce_preflight:
        raise PreflightError(errors)
    spec = args["cluster"]
    cluster = GpuCluster(spec["name"], args)
    pulumi.export("clusterName", cluster.cluster_name)
    pulumi.export("kubeconfig", cluster.kubeconfig)
    pulumi.export("pools", cluster.pools)
    pulumi.export("nextSteps", next_steps(spec))
    return args, cluster


def main() -> None:
    try:
        build(*read_stack_config())
    except ConfigError as err:
        # RunError ends the program with this text and no Python traceback.
        raise pulumi.RunError(f"invalid gpukit configuration:\n{err}") from None
    except PreflightError as err:
        raise pulumi.RunError(
            f"gpukit preflight failed (nothing was created):\n{err}\nRun `gpukit plan` to see every finding."
        ) from None

"""The Pulumi program: read the stack config once, build GpuCluster, export what users need next.

`__main__.py` calls `main()` under `pulumi up`; `gpukit plan` calls `build()` in-process under the mock
engine, so both run the very same code. Each run parses and validates the config, derives the pools'
facts and runs the preflight exactly once (components/substrate.py).
"""

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

import pulumi

from gpukit.components.cluster import GpuCluster
from gpukit.components.errors import ConfigError, MissingExtraError
from gpukit.components.findings import Finding, Severity
from gpukit.components.preflight import preflight
from gpukit.components.resolve.config import config_namespaces, resolve_config
from gpukit.components.substrate import ResolvedCluster


class PreflightError(Exception):
    def __init__(self, findings: list[Finding]) -> None:
        self.findings = findings
        super().__init__("\n".join(str(f) for f in findings))


@dataclass
class Built:
    """What one run of the program declared, for `gpukit plan` and tests."""

    cluster: ResolvedCluster
    findings: list[Finding]
    component: GpuCluster


def read_stack_config() -> tuple[dict[str, Any], list[str]]:
    """Every value of the running stack in the namespaces gpukit reads (objects decoded from JSON), and
    which of those keys hold encrypted values.

    All keys are read (not only the known ones) so that a misspelt key is reported, not ignored.
    """
    from pulumi.runtime import config as runtime_config

    namespaces = config_namespaces()
    keys = set(runtime_config.CONFIG.get()) | set(runtime_config.get_config_env())
    out: dict[str, Any] = {}
    for key in sorted(keys):
        if key.split(":", 1)[0] not in namespaces:
            continue
        raw = runtime_config.get_config(key)
        try:
            out[key] = json.loads(raw) if isinstance(raw, str) and raw[:1] in "{[" else raw
        except json.JSONDecodeError:
            out[key] = raw
    return out, [k for k in out if runtime_config.is_config_secret(k)]


def next_steps(cluster: ResolvedCluster) -> list[str]:
    """What to run after `pulumi up`."""
    return [
        "pulumi stack output kubeconfig --show-secrets > kubeconfig.yaml",
        "export KUBECONFIG=$PWD/kubeconfig.yaml",
        *cluster.substrate.next_steps(cluster),
        "kubectl get nodes -L gpukit.dev/pool,gpukit.dev/gpu-model",
        "kubectl get pods -A | grep -i nvidia",
        "# a GPU pod must tolerate nvidia.com/gpu:NoSchedule and request nvidia.com/gpu",
    ]


def build(
    config: Mapping[str, Any], secret_keys: Collection[str] = (), *, enforce_preflight: bool = True
) -> Built:
    """Resolve (parse, validate, pool facts), preflight, then declare the cluster and the stack outputs."""
    cluster = resolve_config(config, secret_keys)
    findings = preflight(cluster)
    errors = [f for f in findings if f.severity == Severity.ERROR]
    if errors and enforce_preflight:
        raise PreflightError(errors)
    component = GpuCluster.from_resolved(cluster.name, cluster)
    pulumi.export("clusterName", component.cluster_name)
    pulumi.export("kubeconfig", component.kubeconfig)
    pulumi.export("pools", component.pools)
    pulumi.export("nextSteps", next_steps(cluster))
    return Built(cluster, findings, component)


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
    except MissingExtraError as err:
        raise pulumi.RunError(f"gpukit: {err}") from None

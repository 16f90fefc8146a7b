"""Run Pulumi code under gpukit's strict mocks and return what the engine recorded.

Tests assert after the program has finished (never inside `.apply`), with preview=False, and any
invoke without a fake fails loudly (gpukit.plan.fakes.UnmockedInvokeError).
"""

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml

from gpukit.components.pools import PoolFacts
from gpukit.components.spec import Provider
from gpukit.components.substrate import Substrate, registry
from gpukit.plan.engine import SECRET_SIG, run_mocked
from gpukit.plan.fakes import PlanMocks, Recorded

ROOT = Path(__file__).resolve().parent.parent
# Vendored chart data (tests/reference/gpu-operator-v26.7.0/README.md names source and licence).
GPU_OPERATOR_REFERENCE = ROOT / "tests" / "reference" / "gpu-operator-v26.7.0"
CHART_VALUES = yaml.safe_load((GPU_OPERATOR_REFERENCE / "values.yaml").read_text())
# The NFD subchart's own values are not in the gpu-operator values.yaml: the keys gpukit sets there.
NFD_VALUES = yaml.safe_load(
    (ROOT / "tests" / "reference" / "node-feature-discovery-values-excerpt.yaml").read_text()
)


# Values the chart takes as free-form maps (`data: {}` in values.yaml): their keys are ours (ConfigMap
# entries), so the walk stops there and checks the map's own path.
FREE_FORM_VALUES = frozenset({"devicePlugin.config.data", "migManager.config.data"})


def key_paths(values: dict[str, Any], prefix: str = "") -> list[str]:
    """Dotted paths of every leaf or list a values dict sets (lists are values, not nested keys)."""
    paths = []
    for key, value in values.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value and path not in FREE_FORM_VALUES:
            paths += key_paths(value, f"{path}.")
        else:
            paths.append(path)
    return paths


def unknown_values(values: dict[str, Any], chart: dict[str, Any], prefix: str = "") -> list[str]:
    """gpukit's keys a chart's values.yaml lacks; inside a map the chart leaves empty (`{}`, such as
    nodeSelector) any key goes."""
    found = []
    for key, value in values.items():
        if key not in chart:
            found.append(f"{prefix}{key}")
        elif isinstance(value, dict) and isinstance(chart[key], dict) and chart[key]:
            found += unknown_values(value, chart[key], f"{prefix}{key}.")
    return found


def chart_has(path: str, chart_values: dict[str, Any] = CHART_VALUES) -> bool:
    """Whether a dotted key path exists in the gpu-operator v26.7.0 chart's values.yaml (or, under
    `node-feature-discovery.`, in its NFD subchart's values)."""
    subchart = "node-feature-discovery."
    if chart_values is CHART_VALUES and path.startswith(subchart):
        return _in(path, CHART_VALUES) or _in(path[len(subchart) :], NFD_VALUES)
    return _in(path, chart_values)


def _in(path: str, chart_values: dict[str, Any]) -> bool:
    node: Any = chart_values
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def unsecret(value: Any) -> Any:
    """The plain value inside a secret wire wrapper (other values unchanged)."""
    if isinstance(value, dict) and SECRET_SIG in value:
        return value["value"]
    return value


def is_secret(value: Any) -> bool:
    return isinstance(value, dict) and SECRET_SIG in value


@dataclass
class Recording:
    resources: list[Recorded]

    def of_type(self, token: str) -> list[Recorded]:
        return [r for r in self.resources if r.type == token]

    def one(self, token: str, name: str | None = None) -> Recorded:
        found = [r for r in self.of_type(token) if name is None or r.name == name]
        assert len(found) == 1, f"expected one {token} {name or ''}, got {[r.name for r in found]}"
        return found[0]

    def named(self, name: str) -> Recorded:
        found = [r for r in self.resources if r.name == name]
        assert len(found) == 1, f"expected one resource named {name}, got {len(found)}"
        return found[0]

    def parent_of(self, resource: Recorded) -> Recorded | None:
        return next((r for r in self.resources if r.urn == resource.parent), None)


def record(
    program: Callable[[], Any],
    *,
    region: str = "us-west-2",
    config: dict[str, Any] | None = None,
    secret_keys: list[str] | None = None,
    project: str = "gpukit-test",
) -> Recording:
    """Run `program` under the mocks; returns every registration once all outputs have settled.

    The fakes answer for `region` and `project` whatever `config` says (tests pin the ids they read)."""
    fakes = {"aws:region": region, "gcp:region": region, "gcp:project": project}
    return Recording(
        run_mocked(
            program, config or {}, secret_keys or [], project="gpukit", stack="test", fakes_config=fakes
        )
    )


CLOUD_SDKS = ("pulumi_aws", "pulumi_azure_native", "pulumi_gcp")


def start_sdk_probes(stacks: list[str], cwd: Path) -> dict[str, "subprocess.Popen[str]"]:
    """For each stack, a fresh interpreter that plans it and prints the cloud provider SDKs it imported
    (each must start fresh, so each is a process; they run beside whatever the caller does next)."""
    probes = {}
    for stack in stacks:
        probe = (
            "import sys\n"
            "from gpukit.cli import main\n"
            f"assert main(['plan', '--project', {str(ROOT)!r}, '--stack', {stack!r}]) == 0\n"
            f"print(sorted(m for m in sys.modules if m in {CLOUD_SDKS!r}))\n"
        )
        probes[stack] = subprocess.Popen(
            [sys.executable, "-c", probe], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd
        )
    return probes


def sdk_probe_results(probes: dict[str, "subprocess.Popen[str]"]) -> dict[str, list[str]]:
    loaded: dict[str, list[str]] = {}
    for stack, process in probes.items():
        stdout, stderr = process.communicate()
        assert process.returncode == 0, f"{stack}: {stderr}"
        loaded[stack] = json.loads(stdout.strip().splitlines()[-1].replace("'", '"'))
    return loaded


STACKS = sorted(
    p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in (ROOT / "stacks").glob("Pulumi.*.yaml")
)


def example_config(stack: str) -> dict[str, Any]:
    """The `config` mapping of stacks/Pulumi.<stack>.yaml, freshly loaded (a new copy every call)."""
    config: dict[str, Any] = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
    return config


VALID_EKS_CONFIG: dict[str, Any] = {
    "aws:region": "us-west-2",
    "gpukit:cluster": {
        "name": "unit",
        "platform": "eks",
        "kubernetesVersion": "1.35",
        "network": {"cidr": "10.40.0.0/16"},
        "apiAccessCidrs": ["203.0.113.0/24"],
        # The managed-node-group path most EKS tests are about; karpenter_eks_config() is the default's.
        "autoscaler": "cluster-autoscaler",
    },
    "gpukit:nodePools": [
        {"name": "system", "instanceType": "m7i.large", "minNodes": 1, "maxNodes": 3},
        {
            "name": "l4",
            "instanceType": "g6.xlarge",
            "minNodes": 0,
            "maxNodes": 8,
            "capacity": "spot",
            "zones": ["usw2-az1", "usw2-az2"],
        },
    ],
    "gpukit:gpuOperator": {"chartVersion": "v26.7.0", "driver": "preinstalled"},
    "gpukit:workloads": {"cudaVersion": "12.8"},
}


def doc_stack(doc: str, stack: str, folder: Path) -> Path:
    """The stack file a doc shows after `<!-- stack: <stack> -->`, written to `folder`."""
    text = (ROOT / doc).read_text()
    config = yaml.safe_load(text.split(f"<!-- stack: {stack} -->\n```yaml\n", 1)[1].split("```", 1)[0])
    path = folder / f"Pulumi.{stack}.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def eks_config(**overrides: Any) -> dict[str, Any]:
    """A deep copy of a valid EKS stack config, with top-level keys replaced by `overrides`."""
    config = copy.deepcopy(VALID_EKS_CONFIG)
    config.update(copy.deepcopy(overrides))
    return config


def karpenter_eks_config(**overrides: Any) -> dict[str, Any]:
    """A valid EKS stack config on the default autoscaler (Karpenter): no `autoscaler` key, a system
    pool of fixed size."""
    config = eks_config(**overrides)
    if "gpukit:cluster" not in overrides:
        del config["gpukit:cluster"]["autoscaler"]
    if "gpukit:nodePools" not in overrides:
        config["gpukit:nodePools"][0]["maxNodes"] = 1
    return config


# Maps whose keys are the user's, not the provider schema's.
FREE_FORM = {"tags", "labels", "annotations", "values", "parameters", "defaultTags", "data"}


def unknown_argument_names(value: object, path: str = "") -> list[str]:
    """Dict keys still in snake_case: the SDK camelCases every argument name it knows, so a key
    that stays snake_case is one the provider schema does not have (a typo mocks would accept)."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if "_" in key and not key.startswith("__"):
                found.append(f"{path}{key}")
            if key not in FREE_FORM:
                found += unknown_argument_names(item, f"{path}{key}.")
    elif isinstance(value, list):
        for item in value:
            found += unknown_argument_names(item, path)
    return found


def substrate(name: str) -> "Substrate":
    """A registered substrate by its name (`eks`, `gke`, `k3s-aws`, `k3s-gcp`, `k3s-ssh`)."""
    return registry().named(name)


_BY_PROVIDER = {Provider.AWS: "eks", Provider.GCP: "gke", Provider.SSH: "k3s-ssh"}


def pool_facts(pool: Any, provider: Provider = Provider.AWS) -> PoolFacts:
    """The facts of one pool spec as the cloud's first substrate computes them (eks, gke, k3s-ssh)."""
    return substrate(_BY_PROVIDER[provider]).pool_facts(pool)


QUOTA_INFO = "gcp:cloudquota/getSQuotaInfo:getSQuotaInfo"


def quota_info(args: dict[str, Any], value: str | None) -> dict[str, Any]:
    """Cloud Quotas' answer for a project granted nothing beyond `value` in any region."""
    details = [] if value is None else [{"value": value}]
    where = ["global"] if args["quotaId"].endswith("-per-project") else ["us-central1", "europe-west4"]
    return {
        "id": args["quotaId"],
        "quotaId": args["quotaId"],
        "dimensionsInfos": [{"dimensions": {}, "details": details, "applicableLocations": where}],
    }


def answer_gcp_quotas(
    monkeypatch: pytest.MonkeyPatch, values: dict[str, str | None] | str
) -> tuple[list[str], list[str], list[str]]:
    """The project's GPU quotas by id (one left out: the plan fakes' own), or, as a string, the reason
    every read fails with, as the engine reports a failed invoke (a failure, not an RPC error); returns
    the ids asked, the types registered and the warnings `pulumi up` logs, as they happen."""
    asked: list[str] = []
    registered: list[str] = []
    warned: list[str] = []
    call, new_resource = PlanMocks.call, PlanMocks.new_resource

    def answering(self: PlanMocks, args: Any) -> Any:
        quota_id = args.args.get("quotaId")
        if args.token == QUOTA_INFO and (isinstance(values, str) or quota_id in values):
            asked.append(quota_id)
            if isinstance(values, str):
                return {}, [("quotaId", values)]
            return quota_info(args.args, values[quota_id]), []
        return call(self, args)

    def recording(self: PlanMocks, args: Any) -> Any:
        registered.append(args.typ)
        return new_resource(self, args)

    monkeypatch.setattr(PlanMocks, "call", answering)
    monkeypatch.setattr(PlanMocks, "new_resource", recording)
    monkeypatch.setattr(pulumi.log, "warn", lambda message, *_, **__: warned.append(message))
    return asked, registered, warned


def asg_tags(rec: Recording, name_prefix: str) -> dict[str, str]:
    """The autoscaling-group tags (key -> value) of the node groups whose resource names start with
    `name_prefix` (`unit-h100-`), as the engine recorded them."""
    return {
        t.inputs["tag"]["key"]: t.inputs["tag"]["value"]
        for t in rec.of_type("aws:autoscaling/tag:Tag")
        if t.name.startswith(name_prefix)
    }

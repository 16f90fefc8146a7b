"""Vendored CRDs (tests/reference/<project>/, each README names source and licence) as strict JSON
schemas: what the API server would prune as unknown is an error here, as kubernetes-validate's strict
mode makes it for built-in kinds. CEL rules (`x-kubernetes-validations`) are not evaluated."""

import copy
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

REFERENCE = Path(__file__).resolve().parent / "reference"
KUEUE = REFERENCE / "kueue-v0.19.2"
TRAINER = REFERENCE / "kubeflow-trainer-v2.2.1"
JOBSET = REFERENCE / "jobset-v0.11.0"
GKE_NETWORKING = REFERENCE / "gke-networking-api-34c617f"
KUBE_PROMETHEUS_STACK = REFERENCE / "kube-prometheus-stack-88.5.3"
KEDA = REFERENCE / "keda-2.20.2"
MANAGED_PROMETHEUS = REFERENCE / "prometheus-engine-2ffde4e"
GATEWAY_API = REFERENCE / "gateway-api-v1.6.1"
ENVOY_GATEWAY = REFERENCE / "envoy-gateway-v1.9.0"
GKE_GATEWAY_POLICIES = REFERENCE / "gke-gateway-api-fc40d60"


def strict(schema: Any) -> Any:
    """Every object schema with `properties` and no other say on extra keys refuses unknown ones."""
    if isinstance(schema, dict):
        out = {k: strict(v) for k, v in schema.items()}
        pattern = out.get("pattern")
        if isinstance(pattern, str) and pattern.startswith("^(?i)"):
            # Go's RE2 takes a flag after `^`; Python's re only at the start: the same pattern.
            out["pattern"] = "(?i)^" + pattern[len("^(?i)") :]
        if (
            "properties" in out
            and "additionalProperties" not in out
            and not out.get("x-kubernetes-preserve-unknown-fields")
        ):
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [strict(v) for v in schema]
    return schema


@cache
def _crds() -> dict[tuple[str, str], dict[str, Any]]:
    """(apiVersion, kind) -> the served version's schema, for every CRD file vendored."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for folder in (
        KUEUE,
        TRAINER,
        JOBSET,
        GKE_NETWORKING,
        KUBE_PROMETHEUS_STACK,
        KEDA,
        MANAGED_PROMETHEUS,
        GATEWAY_API,
        ENVOY_GATEWAY,
        GKE_GATEWAY_POLICIES,
    ):
        for path in sorted(folder.glob("*_*.yaml")):
            crd = yaml.safe_load(path.read_text())
            if not isinstance(crd, dict) or crd.get("kind") != "CustomResourceDefinition":
                continue
            group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
            for version in crd["spec"]["versions"]:
                if version.get("served"):
                    schema: dict[str, Any] = strict(copy.deepcopy(version["schema"]["openAPIV3Schema"]))
                    schema["properties"]["metadata"] = {"type": "object"}  # the API server's ObjectMeta
                    found[(f"{group}/{version['name']}", kind)] = schema
    return found


def validate(obj: dict[str, Any]) -> None:
    """Raises jsonschema.ValidationError where `obj` breaks its CRD's schema; KeyError where no CRD of
    its apiVersion and kind is vendored."""
    jsonschema.validate(obj, _crds()[(obj["apiVersion"], obj["kind"])])


def chart_values(folder: Path) -> dict[str, Any]:
    values: dict[str, Any] = yaml.safe_load((folder / "values.yaml").read_text())
    return values


def has_crd(obj: dict[str, Any]) -> bool:
    """Whether a CRD of `obj`'s apiVersion and kind is vendored here."""
    return (obj.get("apiVersion"), obj.get("kind")) in _crds()

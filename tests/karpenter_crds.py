"""The Karpenter v1.14.1 CRD schemas (tests/reference/karpenter-v1.14.1/README.md names source and
licence), as strict JSON schemas: what the API server would prune as unknown is an error here, as
kubernetes-validate's strict mode makes it for built-in kinds."""

import copy
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from crd_schemas import strict

KARPENTER_REFERENCE = Path(__file__).resolve().parent / "reference" / "karpenter-v1.14.1"
CRD_FILES = {
    ("karpenter.sh/v1", "NodePool"): "karpenter.sh_nodepools.yaml",
    ("karpenter.k8s.aws/v1", "EC2NodeClass"): "karpenter.k8s.aws_ec2nodeclasses.yaml",
}
KARPENTER_KINDS = {kind for _, kind in CRD_FILES}
CHART_VALUES = yaml.safe_load((KARPENTER_REFERENCE / "values.yaml").read_text())


def crd_schema(api_version: str, kind: str) -> dict[str, Any]:
    crd = yaml.safe_load((KARPENTER_REFERENCE / CRD_FILES[(api_version, kind)]).read_text())
    version = api_version.split("/", 1)[1]
    (served,) = [v for v in crd["spec"]["versions"] if v["name"] == version]
    schema: dict[str, Any] = strict(copy.deepcopy(served["schema"]["openAPIV3Schema"]))
    # metadata is the API server's ObjectMeta, which the CRD schema leaves open.
    schema["properties"]["metadata"] = {"type": "object"}
    return schema


def validate(obj: dict[str, Any]) -> None:
    """Raises jsonschema.ValidationError where `obj` breaks its CRD's schema."""
    jsonschema.validate(obj, crd_schema(obj["apiVersion"], obj["kind"]))

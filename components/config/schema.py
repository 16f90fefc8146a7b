"""The stack config schema, and a parser that turns raw `gpukit:*` values into typed Args.

Structure is checked here (unknown keys, missing keys, types, closed sets, keys of capabilities not
built yet); meaning is checked in components/validate/. Both report `Problem`s naming the exact config
key, and nothing is raised until every problem is known.

Keys marked `specific` mean something on some substrates only: each substrate declares the ones it
takes, and those it requires, in its `accepts` and `requires` (providers/<cloud>/config.py), as the
paths `schema_paths()` gives (`cluster.network.vpcId`, `nodePools.nodeImage`).
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal

from gpukit.components.catalog.lookup import suggest
from gpukit.components.errors import Problem
from gpukit.components.spec import (
    Capacity,
    DriverMode,
    GkeDriverVersion,
    NatGateways,
    NodeImage,
    NodeRole,
    Platform,
    Provider,
    ReleaseChannel,
)

Kind = Literal["str", "secret", "int", "bool", "list[str]", "map[str]", "object", "list[object]"]

_KIND_NAMES: dict[str, str] = {
    "str": "a string",
    "secret": "a string (from Python: a string or a secret Output)",
    "int": "an integer",
    "bool": "true or false",
    "list[str]": "a list of strings",
    "map[str]": "a mapping of strings to strings",
    "object": "a mapping",
    "list[object]": "a list of mappings",
}


@dataclass(frozen=True)
class Field:
    key: str
    kind: Kind
    description: str
    required: bool = False
    default: Any = None
    choices: type[Enum] | None = None
    fields: tuple["Field", ...] = ()
    planned: str | None = None
    """Set for keys of capabilities gpukit does not build yet: such a key is rejected, never ignored."""
    specific: bool = False
    """Taken by the substrates that declare it only (Substrate.accepts), refused elsewhere."""

    @property
    def attr(self) -> str:
        return re.sub(r"(?<!^)(?=[A-Z])", "_", self.key).lower()


NETWORK_FIELDS = (
    Field("cidr", "str", "CIDR of a new VPC, /16 to /20 (exclusive with vpcId)"),
    # No parser defaults for zoneCount/natGateways: validation must see whether the user set them,
    # since they mean nothing for a reused VPC. Defaults live in components.spec.
    Field("zoneCount", "int", "availability zones for a new VPC, 2 to 6", specific=True),
    Field("natGateways", "str", "NAT gateway layout of a new VPC", choices=NatGateways, specific=True),
    Field("vpcId", "str", "existing VPC to reuse (needs subnetIds)", specific=True),
    Field("subnetIds", "list[str]", "existing private subnets in two zones or more", specific=True),
    Field(
        "publicSubnetIds",
        "list[str]",
        "k3s on aws, reused VPC: public subnets for an internet-facing API",
        specific=True,
    ),
    Field("podsCidr", "str", "GKE: secondary range for pods of a new subnet", specific=True),
    Field("servicesCidr", "str", "GKE: secondary range for services of a new subnet", specific=True),
    Field("networkId", "str", "GKE: existing VPC network to reuse (needs subnetworkId)", specific=True),
    Field("subnetworkId", "str", "GKE: existing subnetwork in the cluster's region", specific=True),
    Field("podsRangeName", "str", "GKE: the reused subnetwork's secondary range for pods", specific=True),
    Field(
        "servicesRangeName", "str", "GKE: the reused subnetwork's secondary range for services", specific=True
    ),
)

BASTION_FIELDS = (
    Field("address", "str", "jump host address", required=True),
    Field("user", "str", "jump host SSH user", required=True),
    Field("port", "int", "jump host SSH port"),
)

HOST_FIELDS = (
    Field("address", "str", "host address reachable over SSH", required=True),
    Field("user", "str", "SSH user with passwordless sudo", required=True),
    Field("port", "int", "SSH port (default 22)"),
    Field("bastion", "object", "jump host {address, user, port?}", fields=BASTION_FIELDS),
)

# Keys marked cloud=True are required on the cloud platforms (eks, gke) and refused for existing
# hosts (k3s over SSH), so the parser cannot require them: validation.py does, per platform, with
# the same message the parser would give (missing_problem below).
CLUSTER_FIELDS = (
    Field("name", "str", "cluster name", required=True),
    Field("platform", "str", "where the cluster runs", required=True, choices=Platform),
    Field("provider", "str", "host provider, only for platform k3s", choices=Provider),
    Field("kubernetesVersion", "str", 'Kubernetes minor version, quoted ("1.35")', required=True),
    Field(
        "network",
        "object",
        "new VPC {cidr} or reuse {vpcId, subnetIds}",
        fields=NETWORK_FIELDS,
        specific=True,
    ),
    Field(
        "apiAccessCidrs",
        "list[str]",
        "CIDRs allowed to reach the public API ([] = private only)",
        specific=True,
    ),
    Field("adminPrincipalArns", "list[str]", "IAM principals given cluster-admin", specific=True),
    Field("zone", "str", "GKE: a zonal cluster in this zone (default regional)", specific=True),
    Field("releaseChannel", "str", "GKE release channel", choices=ReleaseChannel, specific=True),
    Field("deletionProtection", "bool", "GKE: refuse to destroy the cluster", specific=True),
    Field("k3sVersion", "str", "k3s: exact k3s release, e.g. v1.35.7+k3s1", specific=True),
    Field("apiAddress", "str", "k3s: address clients use for the API (default: first server)", specific=True),
    Field("traefik", "bool", "k3s: keep k3s's packaged traefik ingress (default off)", specific=True),
    Field("tags", "map[str]", "extra tags on every cloud resource", specific=True),
)

POOL_FIELDS = (
    Field("name", "str", "pool name", required=True),
    Field("instanceType", "str", "cloud instance type", specific=True),
    Field("minNodes", "int", "fewest nodes (0 lets a GPU pool scale to zero)", specific=True),
    Field("maxNodes", "int", "most nodes the autoscaler may start", specific=True),
    Field("capacity", "str", "purchase option (default on-demand)", choices=Capacity, specific=True),
    Field(
        "alternativeInstanceTypes",
        "list[str]",
        "k3s on aws: more instance types for the pool's group (same GPUs per node)",
        specific=True,
    ),
    Field("diskSizeGb", "int", "root volume size in GiB", specific=True),
    # No parser default: the key is EKS-only, so validation must see whether it was set.
    Field("nodeImage", "str", "EKS node image family (default al2023)", choices=NodeImage, specific=True),
    Field("role", "str", "k3s node role (default agent)", choices=NodeRole, specific=True),
    Field("hosts", "list[object]", "existing SSH hosts", fields=HOST_FIELDS, specific=True),
    Field("sharing", "object", "", planned="GPU sharing (time-slicing, MPS, MIG)"),
    Field(
        "gpu",
        "object",
        "GPUs per node {model, count}",
        fields=(
            Field("model", "str", "GPU model from the catalog", required=True),
            Field("count", "int", "GPUs per node", required=True),
        ),
    ),
    Field("zones", "list[str]", "GKE: zones for this pool", specific=True),
)

GPU_OPERATOR_FIELDS = (
    Field("chartVersion", "str", "gpu-operator chart version", default="v26.7.0"),
    Field("driver", "str", "who provides the NVIDIA driver", default="preinstalled", choices=DriverMode),
    Field(
        "gkeDriverVersion",
        "str",
        "GKE-installed driver (preinstalled)",
        choices=GkeDriverVersion,
        specific=True,
    ),
)

WORKLOADS_FIELDS = (Field("cudaVersion", "str", 'newest CUDA version your images use, quoted ("12.8")'),)

TOP_LEVEL_FIELDS = (
    Field("cluster", "object", "the cluster", required=True, fields=CLUSTER_FIELDS),
    Field("nodePools", "list[object]", "the node pools", required=True, fields=POOL_FIELDS),
    Field("gpuOperator", "object", "the NVIDIA GPU Operator", default={}, fields=GPU_OPERATOR_FIELDS),
    Field("workloads", "object", "what the cluster's workloads need", default={}, fields=WORKLOADS_FIELDS),
    Field(
        "sshPrivateKey",
        "secret",
        "SSH private key for provider ssh (pulumi config set --secret)",
        specific=True,
    ),
    Field("storage", "object", "", planned="shared (RWX) storage for datasets and checkpoints"),
)

NAMESPACE = "gpukit"
SSH_KEY = f"{NAMESPACE}:sshPrivateKey"


def missing_problem(key: str, field: Field) -> Problem:
    """The parser's message for a missing required key, for keys only some platforms require."""
    return Problem(key, f"required key is missing ({field.description})")


def _type_problem(field: Field, key: str, value: Any) -> Problem:
    hint = ""
    if field.kind == "str" and isinstance(value, int | float) and not isinstance(value, bool):
        # YAML has already turned 1.30 into 1.3 here, so say what happened rather than guess digits.
        hint = "; YAML read an unquoted number: quote the value as written in the file"
    return Problem(key, f"must be {_KIND_NAMES[field.kind]}{hint}, got {value!r}")


def _did_you_mean(key: str, known: list[str]) -> str:
    close = suggest(key, known, n=1)
    if close:
        return f"did you mean '{close[0]}'?"
    return "allowed keys: " + ", ".join(known)


def _parse_value(field: Field, key: str, value: Any, problems: list[Problem]) -> Any:
    kind = field.kind
    if kind == "str":
        if not isinstance(value, str):
            problems.append(_type_problem(field, key, value))
            return None
        if field.choices is not None:
            allowed = [c.value for c in field.choices]
            if value not in allowed:
                problems.append(Problem(key, f"must be one of {', '.join(allowed)}; got {value!r}"))
                return None
            return field.choices(value)
        return value
    if kind == "secret":
        # A stack file's value is a string (or a placeholder for an encrypted one); from Python it may
        # be a pulumi.Output, which stays unread: only the hosts' SSH connections ever see it.
        if not (isinstance(value, str) or hasattr(value, "apply")):
            problems.append(_type_problem(field, key, value))
            return None
        return value
    if kind == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            problems.append(_type_problem(field, key, value))
            return None
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            problems.append(_type_problem(field, key, value))
            return None
        return value
    if kind == "list[str]":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            problems.append(_type_problem(field, key, value))
            return None
        return list(value)
    if kind == "map[str]":
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            problems.append(_type_problem(field, key, value))
            return None
        return dict(value)
    if kind == "object":
        if not isinstance(value, dict):
            problems.append(_type_problem(field, key, value))
            return None
        return parse_object(value, field.fields, key, problems)
    # list[object]
    if not isinstance(value, list):
        problems.append(_type_problem(field, key, value))
        return None
    items = []
    for index, item in enumerate(value):
        item_key = f"{key}[{index}]"
        if not isinstance(item, dict):
            problems.append(Problem(item_key, f"must be a mapping, got {item!r}"))
            continue
        items.append(parse_object(item, field.fields, item_key, problems))
    return items


def parse_object(
    raw: Mapping[str, Any], fields: tuple[Field, ...], prefix: str, problems: list[Problem]
) -> dict[str, Any]:
    """Parse one mapping against its fields; returns snake_case attrs, appends to `problems`."""
    known = [f.key for f in fields if f.planned is None]
    join = prefix if prefix.endswith(":") else f"{prefix}."
    by_key = {f.key: f for f in fields}
    out: dict[str, Any] = {}
    for key in raw:
        if key not in by_key:
            problems.append(Problem(f"{join}{key}", f"unknown key; {_did_you_mean(str(key), known)}"))
    for field in fields:
        key = f"{join}{field.key}"
        if field.key not in raw:
            if field.planned is not None:
                continue
            if field.required:
                problems.append(missing_problem(key, field))
            elif field.default is not None:
                out[field.attr] = _parse_value(field, key, field.default, problems)
            continue
        if field.planned is not None:
            problems.append(
                Problem(
                    key,
                    f"{field.planned} is not built yet in this version of gpukit; remove the key "
                    "(it is rejected rather than silently ignored)",
                )
            )
            continue
        value = _parse_value(field, key, raw[field.key], problems)
        if value is not None:
            out[field.attr] = value
    return out


def parse_namespace(config: Mapping[str, Any], problems: list[Problem]) -> dict[str, Any]:
    """Parse every `gpukit:*` key of a flat stack config into snake_case attrs."""
    own = {k.split(":", 1)[1]: v for k, v in config.items() if k.startswith(f"{NAMESPACE}:")}
    return parse_object(own, TOP_LEVEL_FIELDS, f"{NAMESPACE}:", problems)


# Key groups substrates build their `accepts` and `requires` from (schema paths, see schema_paths).
CLOUD_MACHINE_REQUIRED = frozenset(
    {
        "cluster.network",
        "cluster.apiAccessCidrs",
        "nodePools.instanceType",
        "nodePools.minNodes",
        "nodePools.maxNodes",
    }
)
"""What every substrate that creates machines from a cloud catalog needs."""
CLOUD_MACHINE_KEYS = CLOUD_MACHINE_REQUIRED | {"nodePools.capacity", "nodePools.diskSizeGb"}
"""What every substrate that creates machines from a cloud catalog takes."""
K3S_KEYS = frozenset({"cluster.k3sVersion", "cluster.traefik", "nodePools.role"})
"""What every k3s substrate takes."""


def schema_paths(fields: tuple[Field, ...] = TOP_LEVEL_FIELDS, prefix: str = "") -> list[tuple[str, Field]]:
    """Every field with its path: `cluster.network.vpcId`, `nodePools.hosts.bastion.port`."""
    found: list[tuple[str, Field]] = []
    for field in fields:
        path = f"{prefix}{field.key}"
        found.append((path, field))
        found += schema_paths(field.fields, f"{path}.")
    return found


def project_defaults() -> dict[str, Any]:
    """The defaults of the top-level keys, as Pulumi.yaml declares them (full keys)."""
    return {f"{NAMESPACE}:{f.key}": f.default for f in TOP_LEVEL_FIELDS if f.default is not None}

"""`--out DIR`: plan.json (every resource, secrets masked), manifests/ (Kubernetes objects), helm/,
and boot/ (what cloud machines run at first boot: user data and startup scripts, decoded)."""

import json
import re
from pathlib import Path
from typing import Any

import yaml

from gpukit.components.addons import registry as addons
from gpukit.plan.boot_files import boot_files
from gpukit.plan.engine import PlanResult, ProgramPlan, mask_secrets
from gpukit.plan.fakes import Recorded

HELM_RELEASE = "kubernetes:helm.sh/v3:Release"
HELM_CHART = "kubernetes:helm.sh/v4:Chart"
"""A chart Pulumi renders and applies itself (server-side apply, no release Secret): a component."""


def _provider_urn(provider: str) -> str:
    """`<urn>::<id>` -> `<urn>`."""
    return provider.rsplit("::", 1)[0] if provider else ""


def resource_documents(resources: list[Recorded]) -> list[dict[str, Any]]:
    """Every resource with its type, name, parent, provider and inputs (secret values masked)."""
    return [
        {
            "urn": r.urn,
            "type": r.type,
            "name": r.name,
            "parent": r.parent,
            "provider": _provider_urn(r.provider),
            "custom": r.custom,
            "inputs": mask_secrets(r.inputs),
        }
        for r in sorted(resources, key=lambda r: r.urn)
    ]


def cluster_document(plan: PlanResult) -> dict[str, Any]:
    """One cluster's platform, pools, costs, GPU software, storage and findings."""
    spec = plan.cluster.spec
    basis = plan.costs.basis
    return {
        "platform": spec["platform"].value,
        "region": spec["region"],
        "kubernetesVersion": spec["kubernetes_version"],
        "pools": [
            {
                "name": pc.pool.name,
                "instanceType": pc.pool.instance.name,
                "gpuModel": pc.pool.gpu.name if pc.pool.gpu else None,
                "gpusPerNode": pc.pool.gpus_per_node,
                "gpuMemoryGbPerNode": pc.pool.gpu_memory_gb_per_node,
                "minNodes": pc.pool.min_nodes,
                "maxNodes": pc.pool.max_nodes,
                "capacity": pc.pool.capacity.value,
                "zones": plan.zones.get(pc.pool.name, []),
                "gpusAtMax": pc.pool.gpus_at_max,
                "sharing": pc.pool.sharing.description(),
                "unitsPerNode": pc.pool.units_per_node,
                "resources": pc.pool.advertised_resources,
                "memoryGbPerUnit": pc.pool.memory_gb_per_unit,
                "pricePerNodeHour": pc.per_node,
                "priceNote": pc.note or None,
                "costPerHourIdle": pc.idle,
                "costPerHourMax": pc.at_max,
            }
            for pc in plan.costs.pools
        ],
        "costs": {
            "currency": "USD",
            "priceRegion": basis.region,
            "priceDate": basis.as_of,
            "priceSource": basis.source,
            "clusterCharges": [
                {"item": c.what, "perHourIdle": c.idle, "perHourMax": c.at_max} for c in plan.costs.charges
            ],
            "clusterChargesRegion": plan.costs.charges_region,
            "perHourIdle": plan.costs.idle_total,
            "perHourMax": plan.costs.max_total,
            "perHourIdleIsLowerBound": plan.costs.idle_is_lower_bound,
            "perHourMaxIsLowerBound": plan.costs.max_is_lower_bound,
            "unpricedPools": [pc.pool.name for pc in plan.costs.unpriced],
            "spotPricedAtOnDemand": True,
        },
        **addon_documents(plan),
        "findings": [
            {"severity": f.severity.value, "key": f.key, "message": f.message, "fix": f.fix or None}
            for f in plan.findings
        ],
    }


def addon_documents(plan: PlanResult) -> dict[str, Any]:
    """Each add-on's keys of the cluster document; a key two add-ons (or an add-on and the core) both
    write is an error, never a silent overwrite."""
    taken = {"platform", "region", "kubernetesVersion", "pools", "costs", "findings"}
    found: dict[str, Any] = {}
    for addon in addons.ADDONS:
        for key, value in addon.document(plan.cluster, plan.handle).items():
            if key in taken:
                raise ValueError(f"add-on {addon.name!r} writes plan.json key {key!r}, which is taken")
            taken.add(key)
            found[key] = value
    return found


def plan_document(plan: PlanResult | ProgramPlan) -> dict[str, Any]:
    """plan.json: a stack's plan (its one cluster's facts at the top level), or a program's (each
    GpuCluster it declares under `clusters`)."""
    if isinstance(plan, ProgramPlan):
        return {
            "stack": plan.stack,
            "resources": resource_documents(plan.resources),
            "clusters": [{"name": c.cluster.name, **cluster_document(c)} for c in plan.clusters],
        }
    return {"stack": plan.stack, "resources": resource_documents(plan.resources), **cluster_document(plan)}


def _api_version_and_kind(token: str) -> tuple[str, str]:
    """`kubernetes:storage.k8s.io/v1:StorageClass` -> (`storage.k8s.io/v1`, `StorageClass`)."""
    _, group_version, kind = token.split(":", 2)
    group, version = group_version.split("/", 1)
    return (version if group == "core" else f"{group}/{version}"), kind


def _sorted(value: Any) -> Any:
    """Dicts with sorted keys, recursively: files diff cleanly between plans. Whole numbers as integers:
    the engine carries every number as a double (protobuf Struct), and an int32 field such as a port or
    `activeDeadlineSeconds` written `80.0` is refused by the API server when the file is applied."""
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def kubernetes_object(resource: Recorded) -> dict[str, Any]:
    api_version, kind = _api_version_and_kind(resource.type)
    body = {k: v for k, v in mask_secrets(resource.inputs).items() if k not in ("apiVersion", "kind")}
    return {"apiVersion": api_version, "kind": kind, **_sorted(body)}


def helm_release(resource: Recorded) -> dict[str, Any]:
    inputs = mask_secrets(resource.inputs)
    return {
        "name": inputs.get("name"),
        "chart": inputs.get("chart"),
        "repository": (inputs.get("repositoryOpts") or {}).get("repo"),
        "version": inputs.get("version"),
        "namespace": inputs.get("namespace"),
        "values": _sorted(inputs.get("values") or {}),
    }


def _file_name(*parts: str) -> str:
    return re.sub(r"[^a-z0-9.-]+", "-", "-".join(p for p in parts if p).lower()) + ".yaml"


def write_artifacts(plan: PlanResult | ProgramPlan, out: Path) -> list[Path]:
    """Write plan.json, manifests/*.yaml, manifests/helm/*.yaml and boot/*; returns the files written."""
    manifests = out / "manifests"
    helm = manifests / "helm"
    helm.mkdir(parents=True, exist_ok=True)
    written = [out / "plan.json"]
    written[0].write_text(json.dumps(plan_document(plan), indent=2, sort_keys=True, default=str) + "\n")
    for r in plan.resources:
        if r.type == HELM_CHART:
            chart = helm_release(r)
            path = helm / _file_name(str(chart["name"]))
            path.write_text(yaml.safe_dump(chart, sort_keys=False))
            written.append(path)
            continue
        if not r.custom or not r.type.startswith("kubernetes:") or r.type.startswith("pulumi:providers"):
            continue
        if r.type == HELM_RELEASE:
            release = helm_release(r)
            path = helm / _file_name(str(release["name"]))
            path.write_text(yaml.safe_dump(release, sort_keys=False))
        else:
            obj = kubernetes_object(r)
            meta = obj.get("metadata") or {}
            path = manifests / _file_name(obj["kind"], meta.get("namespace", ""), meta.get("name", r.name))
            path.write_text(yaml.safe_dump(obj, sort_keys=False))
        written.append(path)
    boot = boot_files(plan.resources)
    if boot:
        (out / "boot").mkdir(exist_ok=True)
    for name, text in sorted(boot.items()):
        path = out / "boot" / name
        path.write_text(text)
        written.append(path)
    return written

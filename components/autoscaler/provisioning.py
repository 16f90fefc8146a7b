"""The Cluster Autoscaler's ProvisioningRequest support, for clusters with a `provisioning: queued` pool
(Kueue's admission check asks the autoscaler for a gang's nodes through it: batch/variant.py).

kubernetes/autoscaler cluster-autoscaler/FAQ.md @ cluster-autoscaler-1.35.0, "Enabling
ProvisioningRequest Support": autoscaler 1.30.1 or later (gpukit pins 1.34 to 1.36, chart.py); the flag
`--enable-provisioning-requests=true`; `--kube-api-content-type application/json` (the CRD's objects
have no protobuf encoding); RBAC on provisioningrequests and podtemplates: chart 9.59.0's ClusterRole
grants get/list/watch/update/patch on provisioningrequests (templates/clusterrole.yaml), not the
`delete` the autoscaler needs to remove finished requests (processors/provreq/processor.go
DeleteOldProvReqs), so that rule is added through `rbac.additionalRules`; and the CRD, which no chart
installs: gpukit applies the vendored copy (crds/README.md) before the autoscaler starts, and the batch
add-on's Kueue waits for both (Kueue looks for the API only when it starts: ClusterHandle.api_extensions).
The CRD is retained when the last queued pool goes: deleting it would delete every ProvisioningRequest
in the cluster, and pull the API from under a Kueue that found it at start.
"""

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from gpukit.components.pools import PoolFacts

CRD_FILE = Path(__file__).parent / "crds" / "autoscaling.x-k8s.io_provisioningrequests.yaml"
PROVISIONING_REQUEST_ARGS: dict[str, Any] = {
    "enable-provisioning-requests": True,
    "kube-api-content-type": "application/json",
}


def takes_provisioning_requests(pools: Sequence[PoolFacts]) -> bool:
    """Whether the cluster's autoscaler must serve ProvisioningRequests: some GPU pool is queued."""
    return any(p.queued for p in pools)


PROVISIONING_REQUEST_RULE: dict[str, Any] = {
    "apiGroups": ["autoscaling.x-k8s.io"],
    "resources": ["provisioningrequests"],
    "verbs": ["delete"],
}


def with_provisioning_requests(values: dict[str, Any]) -> dict[str, Any]:
    """Chart values with the flags added to `extraArgs` (the chart writes each as `--key=value`) and the
    `delete` rule the chart's ClusterRole lacks."""
    rbac = values.get("rbac", {})
    return {
        **values,
        "extraArgs": {**values.get("extraArgs", {}), **PROVISIONING_REQUEST_ARGS},
        "rbac": {**rbac, "additionalRules": [*rbac.get("additionalRules", []), PROVISIONING_REQUEST_RULE]},
    }


def provisioning_request_crd() -> dict[str, Any]:
    """The vendored CRD, as the manifest gpukit applies."""
    manifest: dict[str, Any] = yaml.safe_load(CRD_FILE.read_text())
    return manifest

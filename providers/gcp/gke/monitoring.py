"""The GKE cluster's monitoring_config: what GKE collects itself."""

from typing import Any


def monitoring_config(managed_dcgm: bool, managed_prometheus: bool) -> Any:
    """`managed_dcgm`: GKE's own GPU software runs the GPU nodes, and exports DCGM metrics only when the
    cluster asks for them. `managed_prometheus`: the inference add-on's store is GKE's managed
    collection, stated on the cluster (the default for new clusters; stated, it stays on). None where
    neither is asked, as before: the provider keeps GKE's defaults."""
    if not managed_dcgm and not managed_prometheus:
        return None
    components = ["SYSTEM_COMPONENTS", "DCGM"] if managed_dcgm else ["SYSTEM_COMPONENTS"]
    return {"enable_components": components, "managed_prometheus": {"enabled": True}}

"""GkeNodePool: one GKE node pool, its accelerators, driver installation, taint and labels."""

from typing import Any, NotRequired, Optional, TypedDict

import pulumi
import pulumi_gcp as gcp

from gpukit.components.pools import PoolFacts
from gpukit.components.sharing import PoolSharing
from gpukit.components.spec import Capacity, DriverMode, GkeDriverVersion, SharingMode
from gpukit.providers.gcp.catalog import requires_gvnic
from gpukit.providers.gcp.gke.queued_provisioning import (
    management,
    queued_node_config,
    queued_provisioning,
)
from gpukit.providers.gcp.placement import initial_node_count

TYPE_TOKEN = "gpukit:index:GkeNodePool"

# With `driver: operator` the GPU Operator's device plugin advertises the GPUs, so GKE's own plugin
# is switched off on those nodes (NVIDIA's GKE guide): two plugins would both advertise nvidia.com/gpu.
# With `driver: preinstalled` GKE's plugin is the only one, and must stay on.
NO_GKE_DEVICE_PLUGIN_LABEL = {"gke-no-default-nvidia-gpu-device-plugin": "true"}
CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform"
_TAINT_EFFECTS = {
    "NoSchedule": "NO_SCHEDULE",
    "NoExecute": "NO_EXECUTE",
    "PreferNoSchedule": "PREFER_NO_SCHEDULE",
}


def image_type(pool: PoolFacts, driver: DriverMode) -> str:
    """COS (GKE's default, with GKE-installed drivers), or Ubuntu where the Operator builds the
    driver: its driver container needs a full distribution, which COS is not."""
    return "UBUNTU_CONTAINERD" if pool.is_gpu and driver == DriverMode.OPERATOR else "COS_CONTAINERD"


def gpu_driver_version(driver: DriverMode, version: GkeDriverVersion) -> str:
    """`gpu_driver_installation_config.gpu_driver_version` for a GPU pool."""
    if driver == DriverMode.OPERATOR:
        return "INSTALLATION_DISABLED"
    return "LATEST" if version == GkeDriverVersion.LATEST else "DEFAULT"


def secure_boot(pool: PoolFacts, driver: DriverMode) -> bool:
    """Secure Boot loads only signed kernel modules: GKE's drivers are signed, the ones the GPU
    Operator's driver container compiles on the node are not, so those nodes boot without it."""
    return not (pool.is_gpu and driver == DriverMode.OPERATOR)


def disk_type(pool: PoolFacts) -> str:
    """Boot disk type: families that only take Hyperdisk get hyperdisk-balanced, the rest pd-balanced."""
    return "hyperdisk-balanced" if pool.instance.hyperdisk_only else "pd-balanced"


def pool_labels(pool: PoolFacts, driver: DriverMode) -> dict[str, str]:
    labels = dict(pool.labels)
    if pool.is_gpu and driver == DriverMode.OPERATOR:
        labels.update(NO_GKE_DEVICE_PLUGIN_LABEL)
    return labels


# GKE's sharing strategies (container API GPUSharingConfig.GPUSharingStrategy, pulumi-gcp
# NodePoolNodeConfigGuestAcceleratorGpuSharingConfig.gpu_sharing_strategy).
_GKE_SHARING_STRATEGY = {SharingMode.TIME_SLICING: "TIME_SHARING", SharingMode.MPS: "MPS"}


def gpu_sharing_settings(sharing: PoolSharing, driver: DriverMode) -> dict[str, Any]:
    """GKE's own GPU sharing fields on a guest accelerator, with `driver: preinstalled` (GKE's driver
    and device plugin): `gpu_sharing_config` {TIME_SHARING or MPS, max_shared_clients_per_gpu} for
    time-slicing and MPS, `gpu_partition_size` for MIG. With the Operator's driver, the Operator
    shares the GPUs instead (node labels and its device-plugin config)."""
    if driver == DriverMode.OPERATOR or not sharing.shares:
        return {}
    if sharing.mode is SharingMode.MIG:
        return {"gpu_partition_size": sharing.mig_profile}
    return {
        "gpu_sharing_config": {
            "gpu_sharing_strategy": _GKE_SHARING_STRATEGY[sharing.mode],
            "max_shared_clients_per_gpu": sharing.replicas,
        }
    }


class GkeNodePoolArgs(TypedDict):
    cluster: pulumi.Input[str]
    location: str
    service_account: pulumi.Input[str]
    pool: PoolFacts
    """Pool facts from components/pools.py (Python-only: built by GkeCluster)."""
    zones: list[str]
    driver: DriverMode
    gke_driver_version: GkeDriverVersion
    compact_placement: bool
    """Validated: the machine supports it and `zones` is one zone."""
    resource_labels: dict[str, str]
    """Labels on the node VMs (the provider's default labels do not reach them)."""
    extra_networks: NotRequired[list[tuple[pulumi.Input[str], pulumi.Input[str]]]]
    """A GPUDirect pool's extra NICs, in NIC order: (network, subnetwork) names (gpu_networks.py)."""


class GkeNodePool(pulumi.ComponentResource):
    node_pool_name: pulumi.Output[str]

    def __init__(self, name: str, args: GkeNodePoolArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        pool = args["pool"]
        instance = pool.instance
        accelerators: list[gcp.container.NodePoolNodeConfigGuestAcceleratorArgsDict] = []
        if pool.is_gpu and instance.accelerator_type:
            accelerators = [
                {
                    "type": instance.accelerator_type,
                    "count": instance.gpu_count,
                    "gpu_driver_installation_config": {
                        "gpu_driver_version": gpu_driver_version(args["driver"], args["gke_driver_version"]),
                    },
                    **gpu_sharing_settings(pool.sharing, args["driver"]),  # type: ignore[typeddict-item]
                }
            ]
        spot = pool.capacity == Capacity.SPOT
        node_config: gcp.container.NodePoolNodeConfigArgsDict = {
            "machine_type": instance.name.split("+", 1)[0],
            "spot": spot,
            "image_type": image_type(pool, args["driver"]),
            "disk_type": disk_type(pool),
            "disk_size_gb": pool.disk_size_gb,
            "labels": pool_labels(pool, args["driver"]),
            # Declared explicitly: GKE adds nvidia.com/gpu=present:NoSchedule to GPU nodes itself,
            # so leaving it out would show as drift on every run.
            "taints": [
                {"key": t.key, "value": t.value, "effect": _TAINT_EFFECTS[t.effect]} for t in pool.taints
            ],
            "guest_accelerators": accelerators,
            "resource_labels": args["resource_labels"],
            "service_account": args["service_account"],
            "oauth_scopes": [CLOUD_PLATFORM_SCOPE],  # access is narrowed by the SA's IAM roles
            "workload_metadata_config": {"mode": "GKE_METADATA"},
            "shielded_instance_config": {
                "enable_secure_boot": secure_boot(pool, args["driver"]),
                "enable_integrity_monitoring": True,
            },
            **queued_node_config(pool),  # type: ignore[typeddict-item]
        }
        # gVNIC set explicitly where the machine series attaches through it only
        # (catalog.GVNIC_REQUIRED_SERIES), never left to what GKE picks.
        if requires_gvnic(instance):
            node_config["gvnic"] = {"enabled": True}
        node_pool = gcp.container.NodePool(
            f"{name}-np",
            name=pool.name,
            cluster=args["cluster"],
            location=args["location"],
            node_locations=args["zones"] or None,  # unset: the cluster's own zones
            # Whole-pool bounds (not per zone), so minNodes 0 and maxNodes mean what the config says.
            autoscaling={
                "total_min_node_count": pool.min_nodes,
                "total_max_node_count": pool.max_nodes,
                # Spot: take capacity in whichever zone has it (lower preemption risk, GKE docs);
                # queued: GKE's guide asks for ANY (a gang's nodes come from wherever they are).
                "location_policy": "ANY" if spot or pool.queued else "BALANCED",
            },
            initial_node_count=initial_node_count(pool),  # per zone: the quota preflight counts it
            placement_policy={"type": "COMPACT"} if args["compact_placement"] else None,
            # Fixed when the pool is created (GKE multi-network): a change replaces the pool.
            network_config=(
                {
                    "additional_node_network_configs": [
                        {"network": network, "subnetwork": subnetwork}
                        for network, subnetwork in args["extra_networks"]
                    ]
                }
                if args.get("extra_networks")
                else None
            ),
            node_config=node_config,
            management=management(pool),
            queued_provisioning=queued_provisioning(pool),
            opts=pulumi.ResourceOptions(
                parent=self,
                # The cluster autoscaler owns the node count after creation.
                ignore_changes=["initialNodeCount", "nodeCount"],
                # The pool keeps the name the config gives it (GKE labels its nodes with it), so a
                # replacement (a new machine type, disk or accelerator) must delete the old pool before
                # it creates the new one: created first, it would fail on the name.
                delete_before_replace=True,
            ),
        )
        self.node_pool_name = node_pool.name
        self.register_outputs({"node_pool_name": self.node_pool_name})

"""A cluster's inference settings, resolved once from its config and its substrate's variant: what
validation, findings, the report, the objects and the build all read. Light: no Pulumi here (the
GKE cluster reads `metrics_enabled` to switch managed collection on)."""

from dataclasses import dataclass

from gpukit.components.addons.base import addon_variant
from gpukit.components.addons.inference.gateway_ranges import admitted_ranges
from gpukit.components.addons.inference.sizing import StoreSize, store_size
from gpukit.components.addons.inference.variant import INFERENCE, InferenceVariant
from gpukit.components.config.schema import RETENTION_DAYS_DEFAULT
from gpukit.components.spec import ClusterConfig, InferenceGatewaySpec, InferenceSpec
from gpukit.components.substrate import ResolvedCluster, Substrate


def inference_spec(args: ClusterConfig) -> InferenceSpec:
    return args.get("inference", {})


def metrics_enabled(args: ClusterConfig) -> bool:
    """`inference.metrics.enabled`, which defaults to `inference.enabled`."""
    spec = inference_spec(args)
    return spec.get("metrics", {}).get("enabled", spec.get("enabled", False))


def autoscaling_enabled(args: ClusterConfig) -> bool:
    """`inference.autoscaling.enabled`, which defaults to `inference.enabled`."""
    spec = inference_spec(args)
    return spec.get("autoscaling", {}).get("enabled", spec.get("enabled", False))


def gateway_spec(args: ClusterConfig) -> InferenceGatewaySpec:
    return inference_spec(args).get("gateway", {})


def gateway_enabled(args: ClusterConfig) -> bool:
    """`inference.gateway.enabled`, which defaults to `inference.enabled`."""
    return gateway_spec(args).get("enabled", inference_spec(args).get("enabled", False))


@dataclass(frozen=True)
class InferenceSettings:
    metrics: bool
    autoscaling: bool
    variant: InferenceVariant
    gateway: bool
    gateway_class: str
    """The Gateway's class (the substrate's default where unset); empty with the gateway off."""
    gateway_cidrs: list[str]
    """`gateway.allowedCidrs`: [] is the cluster's network only."""
    retention_days: int
    size: StoreSize
    """The in-cluster store's series, volume and memory at the pools' max (a managed store: its series
    and samples only)."""

    @property
    def in_cluster_store(self) -> bool:
        return self.metrics and not self.variant.managed_store


def substrate_variant(substrate: Substrate) -> InferenceVariant:
    """Where `substrate` keeps its metrics (variant.py): its declared variant, else the default."""
    return addon_variant(substrate, INFERENCE, InferenceVariant, InferenceVariant())


def inference_variant(cluster: ResolvedCluster) -> InferenceVariant:
    return substrate_variant(cluster.substrate)


def operator_dcgm(cluster: ResolvedCluster) -> bool:
    """Whether the GPU Operator's DCGM exporter runs (a GPU pool on the Operator's GPU software), which
    gpukit's own monitor then scrapes; otherwise the platform's DCGM collection, if any, is GKE's."""
    return bool(cluster.gpu_pools) and cluster.substrate.gpu_node_software(cluster).runs_gpu_operator


def inference_settings(cluster: ResolvedCluster) -> InferenceSettings:
    spec = inference_spec(cluster.args)
    retention = spec.get("metrics", {}).get("retention_days", RETENTION_DAYS_DEFAULT)
    variant = inference_variant(cluster)
    gateway = gateway_enabled(cluster.args)
    default_class = variant.gateway_classes[0]
    return InferenceSettings(
        metrics=metrics_enabled(cluster.args),
        autoscaling=autoscaling_enabled(cluster.args),
        variant=variant,
        gateway=gateway,
        gateway_class=gateway_spec(cluster.args).get("class_name", default_class) if gateway else "",
        gateway_cidrs=list(gateway_spec(cluster.args).get("allowed_cidrs", [])),
        retention_days=retention,
        size=store_size(cluster.pools, retention),
    )


def gateway_node_port_ranges(cluster: ResolvedCluster) -> list[str]:
    """The ranges a k3s cluster's cloud firewall admits to the Gateway's node port (the variant's
    client-address policy admits the same); none where there is no such Gateway."""
    settings = inference_settings(cluster)
    if not (settings.gateway and settings.variant.gateway_client_policy):
        return []
    return admitted_ranges(cluster, settings.gateway_cidrs)

"""GPU sharing per pool, as facts and pure renderers: what a shared node advertises, the node labels that
pick its setting, and the GPU Operator's device-plugin config with one entry per distinct setting.

Sources (NVIDIA k8s-device-plugin README "Shared Access to GPUs" and the GPU Operator's
gpu-sharing.rst and gpu-operator-mig.rst, at the versions the GPU Operator v26.7.0 chart pins):
- The device plugin reads a config file with `version: v1`, `flags.migStrategy` and
  `sharing.timeSlicing` or `sharing.mps`, each with `resources: [{name, replicas}]`; a node picks an
  entry of the config ConfigMap by its `nvidia.com/device-plugin.config` label, and nodes without the
  label use `devicePlugin.config.default`.
- Time-slicing: `replicas` pods per GPU, no memory or fault isolation. MPS: `replicas` pods per GPU,
  each limited to 1/replicas of the GPU's memory and compute by the MPS control daemon; MPS is not
  supported on GPUs with MIG enabled.
- MIG: the MIG manager cuts a node's GPUs by its `nvidia.com/mig.config` label (`all-<profile>` is a
  stock config); `mig.strategy` `single` advertises the instances as `nvidia.com/gpu`, `mixed` as
  `nvidia.com/mig-<profile>`.
- The Operator does not watch the device-plugin ConfigMap: gpukit names the ConfigMap after a hash of
  its content, so a changed setting changes `devicePlugin.config.name` in the ClusterPolicy, and the
  Operator rolls the device plugin out again with the new file.
"""

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

import yaml

from gpukit.components.catalog.gpus import GpuModel
from gpukit.components.spec import MigStrategy, SharingMode, SharingSpec

GPU_RESOURCE = "nvidia.com/gpu"
DEVICE_PLUGIN_CONFIG_LABEL = "nvidia.com/device-plugin.config"
MIG_CONFIG_LABEL = "nvidia.com/mig.config"
OPERATOR_SHARING_LABELS = (DEVICE_PLUGIN_CONFIG_LABEL, MIG_CONFIG_LABEL)
# The entry of nodes that share nothing (and of MIG nodes, whose instances are whole devices).
WHOLE_GPU_ENTRY = "none"
CONFIG_MAP_PREFIX = "gpukit-device-plugin-"
MIG_CONFIG_MAP_PREFIX = "gpukit-mig-parted-"

# 2 to 48 clients per GPU: GKE's range for max_shared_clients_per_gpu (GKE ComputeClass reference,
# gpuSharing.maxSharedClientsPerGPU "Valid range: 2-48"; GKE "Share GPUs with multiple workloads
# using time-sharing": at most 48). The device plugin documents no bound; gpukit keeps GKE's everywhere
# so a stack moves between substrates unchanged.
MIN_REPLICAS = 2
MAX_REPLICAS = 48


@dataclass(frozen=True)
class PoolSharing:
    """A GPU pool's sharing setting, validated (components/validate/sharing.py)."""

    mode: SharingMode = SharingMode.NONE
    replicas: int = 1
    mig_profile: str | None = None
    """MIG with one stock profile (`all-<profile>`); None for a custom layout."""
    mig_strategy: MigStrategy | None = None
    mig_devices: tuple[tuple[str, int], ...] = ()
    """MIG: instances per profile on each GPU (the stock count for `mig_profile`), sorted."""

    @property
    def shares(self) -> bool:
        return self.mode is not SharingMode.NONE

    @property
    def device_plugin_entry(self) -> str:
        """The device-plugin config entry of this setting, named by its content (`time-slicing-4`)."""
        if self.mode in (SharingMode.TIME_SLICING, SharingMode.MPS):
            return f"{self.mode.value}-{self.replicas}"
        return WHOLE_GPU_ENTRY

    @property
    def custom_mig_layout(self) -> bool:
        return self.mode is SharingMode.MIG and self.mig_profile is None

    @property
    def mig_config(self) -> str | None:
        """The mig-parted config the pool's nodes are labelled with: the MIG manager's stock
        `all-<profile>`, or gpukit's own for a layout, named by its content (`gpukit-1x3g.40gb-4x1g.10gb`,
        a hash where that would pass a label value's 63 characters)."""
        if self.mode is not SharingMode.MIG:
            return None
        if self.mig_profile is not None:
            return f"all-{self.mig_profile}"
        name = "gpukit-" + "-".join(f"{count}x{profile}" for profile, count in self.mig_devices)
        if len(name) > LABEL_VALUE_MAX:
            digest = hashlib.sha256(name.encode()).hexdigest()[:10]
            name = f"gpukit-layout-{digest}"
        return name

    def description(self) -> str:
        """One phrase for plans: `time-slicing x4`, `mig 1g.10gb (mixed)`."""
        if self.mode in (SharingMode.TIME_SLICING, SharingMode.MPS):
            return f"{self.mode.value} x{self.replicas}"
        if self.mode is SharingMode.MIG:
            strategy = self.mig_strategy.value if self.mig_strategy else MigStrategy.SINGLE.value
            what = self.mig_profile or " + ".join(f"{c}x {p}" for p, c in self.mig_devices)
            return f"mig {what} ({strategy})"
        return "none"

    def mig_resources(self, gpus: int) -> dict[str, int]:
        """What a node with `gpus` GPUs advertises under MIG: per profile (`mixed`) or all as
        nvidia.com/gpu (`single`)."""
        if self.mig_strategy is MigStrategy.MIXED:
            return {f"nvidia.com/mig-{profile}": gpus * count for profile, count in self.mig_devices}
        return {GPU_RESOURCE: gpus * sum(count for _, count in self.mig_devices)}


NO_SHARING = PoolSharing()
# Kubernetes label values: at most 63 characters.
LABEL_VALUE_MAX = 63


def mig_instances_per_gpu(gpu: GpuModel, profile: str) -> int:
    """Instances of `profile` the MIG manager's stock `all-<profile>` config makes on one GPU (the
    catalog's MIG geometry, components/catalog/mig.py)."""
    assert gpu.mig is not None, f"{gpu.name} has no MIG"
    return gpu.mig.profile(profile).max_per_gpu


def mig_memory_gb(gpu: GpuModel, profile: str) -> int:
    """Memory of one instance of `profile`, in the GB its name gives."""
    assert gpu.mig is not None, f"{gpu.name} has no MIG"
    return gpu.mig.profile(profile).memory_gb


def pool_sharing(spec: SharingSpec | None, gpu: GpuModel | None) -> PoolSharing:
    """The facts of a validated `sharing` setting of a pool with `gpu` GPUs (none: whole GPUs)."""
    if spec is None or gpu is None:
        return NO_SHARING
    mode = SharingMode(spec["mode"])
    if mode is SharingMode.MIG:
        mig = spec["mig"]
        strategy = MigStrategy(mig.get("strategy", MigStrategy.SINGLE))
        profile = mig.get("profile")
        devices: tuple[tuple[str, int], ...]
        if profile is not None:
            devices = ((profile, mig_instances_per_gpu(gpu, profile)),)
        else:
            devices = tuple(sorted(mig["layout"].items()))
        return PoolSharing(mode, mig_profile=profile, mig_strategy=strategy, mig_devices=devices)
    if mode is SharingMode.NONE:
        return NO_SHARING
    return PoolSharing(mode, replicas=spec["replicas"])


def sharing_labels(sharing: PoolSharing) -> dict[str, str]:
    """Node labels that make the Operator's device plugin and MIG manager apply a pool's setting."""
    labels = {DEVICE_PLUGIN_CONFIG_LABEL: sharing.device_plugin_entry}
    if sharing.mig_config is not None:
        labels[MIG_CONFIG_LABEL] = sharing.mig_config
    return labels


def cluster_mig_strategy(settings: Iterable[PoolSharing]) -> MigStrategy | None:
    """The Operator's cluster-wide `mig.strategy` (validation makes every MIG pool agree)."""
    for sharing in settings:
        if sharing.mode is SharingMode.MIG:
            return sharing.mig_strategy
    return None


def device_plugin_entry_text(sharing: PoolSharing, mig_strategy: MigStrategy | None) -> str:
    """One entry of the device-plugin ConfigMap: the device plugin's config file for a setting."""
    config: dict[str, object] = {
        "version": "v1",
        "flags": {"migStrategy": mig_strategy.value if mig_strategy else "none"},
    }
    if sharing.mode is SharingMode.TIME_SLICING:
        config["sharing"] = {
            "timeSlicing": {
                "renameByDefault": False,
                # A pod asking for 2 replicas would get 2 turns on one GPU, not 2 GPUs: refuse it.
                "failRequestsGreaterThanOne": True,
                "resources": [{"name": GPU_RESOURCE, "replicas": sharing.replicas}],
            }
        }
    elif sharing.mode is SharingMode.MPS:
        config["sharing"] = {
            "mps": {
                "renameByDefault": False,
                "resources": [{"name": GPU_RESOURCE, "replicas": sharing.replicas}],
            }
        }
    return yaml.safe_dump(config, sort_keys=False)


def device_plugin_config(settings: Iterable[PoolSharing]) -> dict[str, str]:
    """The device-plugin ConfigMap's data: the whole-GPU entry plus one entry per distinct setting."""
    settings = list(settings)
    strategy = cluster_mig_strategy(settings)
    entries = {WHOLE_GPU_ENTRY: NO_SHARING}
    for sharing in settings:
        entries.setdefault(sharing.device_plugin_entry, sharing)
    return {name: device_plugin_entry_text(entries[name], strategy) for name in sorted(entries)}


def config_map_name(data: dict[str, str], prefix: str = CONFIG_MAP_PREFIX) -> str:
    """`gpukit-device-plugin-<hash of the data>`: a changed setting gets a new name, which changes the
    ClusterPolicy and so makes the Operator roll the device plugin out with it."""
    digest = hashlib.sha256(yaml.safe_dump(data, sort_keys=True).encode()).hexdigest()[:10]
    return f"{prefix}{digest}"


def mig_parted_config(settings: Iterable[PoolSharing]) -> dict[str, str] | None:
    """The MIG manager's config where a pool has a custom layout (None otherwise: the MIG manager's own
    per-node configs hold every stock `all-<profile>`). A custom config replaces those, so it carries
    `all-disabled` (the Operator's default) and every MIG pool's config, stock ones included, in the
    mig-parted format (`version: v1`, `mig-configs: {name: [{devices: all, mig-enabled, mig-devices}]}`,
    GPU Operator gpu-operator-mig.rst, custom-mig-config.yaml); the chart's ConfigMap key must be
    `config.yaml`."""
    settings = [s for s in settings if s.mode is SharingMode.MIG]
    if not any(s.custom_mig_layout for s in settings):
        return None
    configs: dict[str, list[dict[str, object]]] = {
        "all-disabled": [{"devices": "all", "mig-enabled": False}],
    }
    for sharing in settings:
        name = sharing.mig_config
        assert name is not None
        configs[name] = [{"devices": "all", "mig-enabled": True, "mig-devices": dict(sharing.mig_devices)}]
    text = yaml.safe_dump({"version": "v1", "mig-configs": configs}, sort_keys=True)
    return {"config.yaml": text}

"""Every add-on gpukit knows, in install order: GpuCluster builds the wanted ones in this order after the
substrate; preflight lists their findings, and the plan report their sections, in it. An add-on that
waits for another comes after it (verification after the GPU Operator: its Jobs prove the GPU stack)."""

from gpukit.components.addons.base import Addon
from gpukit.components.addons.batch.addon import BATCH_ADDON
from gpukit.components.addons.gpu_operator.addon import GPU_OPERATOR_ADDON
from gpukit.components.addons.inference.addon import INFERENCE_ADDON
from gpukit.components.addons.interconnect.addon import INTERCONNECT_ADDON
from gpukit.components.addons.pod_security.addon import POD_SECURITY_ADDON
from gpukit.components.addons.storage.addon import STORAGE_ADDON
from gpukit.components.addons.verification.addon import VERIFICATION_ADDON

ADDONS: tuple[Addon, ...] = (
    POD_SECURITY_ADDON,  # first: the namespaces' level is in place before anything runs there
    GPU_OPERATOR_ADDON,
    INTERCONNECT_ADDON,  # the fabric's device plugin, before anything that may run on fabric pools
    VERIFICATION_ADDON,
    BATCH_ADDON,
    INFERENCE_ADDON,
    STORAGE_ADDON,  # after batch: its egress policy goes in the team namespaces batch creates
)

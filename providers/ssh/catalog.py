"""The machines of k3s on existing hosts: the user's own, so gpukit knows only the GPUs a pool declares
(`gpu: {model, count}`, a catalog model in any spelling or one declared with its memory and
architecture, checked on each host by its preflight) and no price."""

from gpukit.components.catalog.gpu_names import pool_gpu_model
from gpukit.components.catalog.instances import OWN_HOSTS_NOTE, InstanceType, MachineCatalog, PriceBasis
from gpukit.components.spec import NodePoolSpec

SSH_CATALOG = MachineCatalog(
    cloud="ssh",
    source="your own hosts",
    price_basis=PriceBasis("your own hosts", "no list prices", "none", listed=False),
)


def host_instance(pool: NodePoolSpec) -> InstanceType:
    """The machine shape of an SSH host pool: only its declared GPUs are known."""
    gpu = pool.get("gpu")
    if gpu is None:
        return InstanceType("ssh-host", 0, 0, None, price_note=OWN_HOSTS_NOTE)
    model = pool_gpu_model(gpu)
    return InstanceType(
        f"ssh-host {gpu['count']}x{model.name}",
        0,
        0,
        None,
        model.name,
        gpu["count"],
        price_note=OWN_HOSTS_NOTE,
        declared_gpu=model if model.declared else None,
    )

"""Which catalog table a cloud's pools use, and how a pool's machine (plus attached GPUs) resolves."""

from collections.abc import Mapping
from dataclasses import dataclass

from gpukit.components.catalog.instances import InstanceType, UnknownInstanceTypeError
from gpukit.components.catalog.lookup import lookup
from gpukit.components.spec import GpuSpec, Provider
from gpukit.providers.aws import catalog as aws
from gpukit.providers.aws.catalog import AWS_INSTANCE_TYPES
from gpukit.providers.gcp import catalog as gcp
from gpukit.providers.gcp.catalog import ATTACHABLE_GPUS, GCP_MACHINE_TYPES, GPU_ATTACH_FAMILIES


@dataclass(frozen=True)
class PriceBasis:
    region: str
    as_of: str
    source: str


PRICE_BASIS: dict[Provider, PriceBasis] = {
    Provider.AWS: PriceBasis(aws.PRICE_REGION, aws.PRICE_DATE, aws.PRICE_SOURCE),
    Provider.GCP: PriceBasis(gcp.PRICE_REGION, gcp.PRICE_DATE, gcp.PRICE_SOURCE),
    # Existing hosts: gpukit knows no price for them and adds no cloud charges.
    Provider.SSH: PriceBasis("your own hosts", "no list prices", "none"),
}

INSTANCE_TABLES: dict[Provider, Mapping[str, InstanceType]] = {
    Provider.AWS: AWS_INSTANCE_TYPES,
    Provider.GCP: GCP_MACHINE_TYPES,
}


def instance_types(cloud: Provider) -> Mapping[str, InstanceType]:
    return INSTANCE_TABLES.get(cloud, {})


def instance_type(cloud: Provider, name: str) -> InstanceType:
    """Raises UnknownInstanceTypeError (with close matches from that cloud's table)."""
    return lookup(instance_types(cloud), name, UnknownInstanceTypeError)


def can_attach_gpus(cloud: Provider, machine: InstanceType) -> bool:
    return cloud == Provider.GCP and machine.family in GPU_ATTACH_FAMILIES and not machine.has_gpu


def pool_instance(cloud: Provider, name: str, gpu: GpuSpec | None = None) -> InstanceType:
    """The machine a pool runs, with `gpu` attached where the machine accepts attached GPUs.

    Assumes validated input (components/validate/cluster.py reports a mismatched or unattachable `gpu`).
    """
    machine = instance_type(cloud, name)
    if gpu is not None and can_attach_gpus(cloud, machine):
        accelerator, price_each = ATTACHABLE_GPUS[gpu["model"]]
        return machine.with_attached_gpus(gpu["model"], gpu["count"], accelerator, price_each)
    return machine

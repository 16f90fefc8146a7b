"""What every k3s machine on Compute Engine is made of, per pool (pure, shared by servers and pools):
machine type and GPUs, scheduling, Shielded VM, labels, metadata, and what it runs at first boot.
"""

import re
from typing import Any

import pulumi

from gpukit.components.pools import PoolFacts
from gpukit.components.spec import Capacity

CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform"


def machine_type(pool: PoolFacts) -> str:
    """`n1-standard-8+2xT4` -> `n1-standard-8` (the catalog's name for a machine with attached GPUs)."""
    return pool.instance.name.split("+", 1)[0]


def guest_accelerators(pool: PoolFacts) -> list[dict[str, Any]]:
    """GPUs to attach: only on N1, where the pool attaches them.

    Accelerator-optimized types (A2, A3, A4, G2, G4) come with their GPUs: "For VMs that use
    accelerator-optimized machine types, the GPUs are automatically attached when you create the VM"
    (https://cloud.google.com/compute/docs/gpus/about-gpus); the guide for them
    (https://cloud.google.com/compute/docs/gpus/create-gpu-vm-accelerator-optimized) names no
    accelerator flag, while N1 VMs "attach the GPU to the VM during or after VM creation".
    """
    instance = pool.instance
    if not (pool.is_gpu and instance.accelerator_type and machine_type(pool) != instance.name):
        return []
    return [{"type": instance.accelerator_type, "count": instance.gpu_count}]


def scheduling(pool: PoolFacts) -> dict[str, Any]:
    """GPUs cannot live-migrate: GPU machines stop for host maintenance (the API refuses MIGRATE
    for them) and, on demand, restart after it."""
    if pool.capacity == Capacity.SPOT:
        return {
            "provisioning_model": "SPOT",
            "preemptible": True,
            "automatic_restart": False,  # Spot VMs never restart themselves
            "on_host_maintenance": "TERMINATE",  # the only choice for Spot VMs
            # A preempted machine is deleted, not stopped: its managed instance group then creates a
            # fresh one (a stopped machine would hold its disk and its place in the group).
            "instance_termination_action": "DELETE",
        }
    return on_demand_scheduling(gpu=pool.is_gpu)


def on_demand_scheduling(*, gpu: bool) -> dict[str, Any]:
    """On demand (never Spot), restarted after host maintenance; CPU machines live-migrate."""
    return {
        "provisioning_model": "STANDARD",
        "automatic_restart": True,
        "on_host_maintenance": "TERMINATE" if gpu else "MIGRATE",
    }


def shielded_instance_config(pool: PoolFacts) -> dict[str, bool]:
    """Shielded VM everywhere; Secure Boot off on GPU machines, whose NVIDIA kernel modules (the Deep
    Learning VM's or the GPU Operator's) are not signed by a key the firmware trusts."""
    return shielded_vm(secure_boot=not pool.is_gpu)


def shielded_vm(*, secure_boot: bool) -> dict[str, bool]:
    """Shielded VM: vTPM and integrity monitoring always; Secure Boot where the kernel modules are signed."""
    return {
        "enable_secure_boot": secure_boot,
        "enable_vtpm": True,
        "enable_integrity_monitoring": True,
    }


def gce_label_value(value: str) -> str:
    """A GCE label value: lowercase letters, digits, `_` and `-`, at most 63 characters."""
    return re.sub(r"[^a-z0-9_-]", "-", value.lower())[:63]


def gce_labels(pool: PoolFacts) -> dict[str, str]:
    """Labels on the machines (the provider adds gpukit-cluster and managed-by)."""
    return {"gpukit-pool": gce_label_value(pool.name), "gpukit-role": pool.role.value}


def login_metadata() -> dict[str, str]:
    """Logins through OS Login only (IAM-controlled), never through SSH keys set on the project: every
    VM gpukit makes on Compute Engine (k3s machines and NFS servers)."""
    return {"block-project-ssh-keys": "true", "enable-oslogin": "TRUE"}


def instance_metadata(startup_script: pulumi.Input[str]) -> dict[str, pulumi.Input[str]]:
    """Metadata: the first-boot script, and OS Login only (login_metadata)."""
    return {"startup-script": startup_script, **login_metadata()}

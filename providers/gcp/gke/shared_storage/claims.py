"""The Kubernetes objects every shared volume shares: its StorageClass name and an example claim."""

import pulumi
import pulumi_kubernetes as k8s

# Claims live in one namespace; a second namespace makes its own claim on the same StorageClass (a new
# instance for dynamically provisioned backends).
CLAIM_NAMESPACE = "default"
# A claim on a WaitForFirstConsumer class stays Pending until a pod uses it; Pulumi must not wait for it
# to bind (pulumi-kubernetes: the `pulumi.com/skipAwait` annotation).
SKIP_AWAIT = {"pulumi.com/skipAwait": "true"}


def class_name(volume: str) -> str:
    """`shared-<name>`: the StorageClass (or, for static volumes, the class name on the PV) a claim uses."""
    return f"shared-{volume}"


def example_claim(
    name: str,
    volume: str,
    size_gb: int,
    access_mode: str,
    parent: pulumi.Resource,
    *,
    volume_name: pulumi.Input[str] | None = None,
    depends_on: list[pulumi.Resource] | None = None,
) -> k8s.core.v1.PersistentVolumeClaim:
    return k8s.core.v1.PersistentVolumeClaim(
        name,
        metadata={"name": class_name(volume), "namespace": CLAIM_NAMESPACE, "annotations": dict(SKIP_AWAIT)},
        spec={
            "access_modes": [access_mode],
            "storage_class_name": class_name(volume),
            "resources": {"requests": {"storage": f"{size_gb}Gi"}},
            "volume_name": volume_name,
        },
        opts=pulumi.ResourceOptions(parent=parent, depends_on=depends_on or []),
    )

"""The one place shared-volume Kubernetes names are made: what a claim must use."""

STORAGE_CLASS_PREFIX = "shared-"
VOLUME_NAME_MAX = 24
"""Like pool names: every cloud name a backend composes from a volume name (with the cluster's) fits its
cloud's limit, cut and hashed where needed (components/names.py)."""


def storage_class_name(volume: str) -> str:
    """`checkpoints` -> `shared-checkpoints`: the StorageClass a PersistentVolumeClaim names
    (`storageClassName`). Per cluster, not per stack: the same claim works on every substrate."""
    return f"{STORAGE_CLASS_PREFIX}{volume}"

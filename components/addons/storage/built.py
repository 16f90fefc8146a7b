"""What a substrate's storage variant hands back to the storage add-on for each volume it built."""

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pulumi


@dataclass
class BuiltVolume:
    name: str
    """The volume's `name` from the config."""
    storage_class: str
    """The StorageClass created (PlannedVolume.storage_class): what a claim names."""
    resources: list["pulumi.Resource"] = field(default_factory=list)
    """What a workload depending on the volume waits for (the StorageClass, and the PersistentVolume where
    the backend is provisioned statically)."""

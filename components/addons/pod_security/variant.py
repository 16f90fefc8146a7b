"""What a substrate declares for the pod-security add-on (Substrate.addon_variants["pod-security"])."""

from dataclasses import dataclass

POD_SECURITY = "pod-security"


@dataclass(frozen=True)
class LabelledNamespaces:
    """The platform's API server enforces no Pod Security level by default and takes no admission
    configuration (EKS, GKE), so the level goes on these existing namespaces as labels; namespaces
    gpukit creates carry their own."""

    platform: str
    """The platform, in words, for the plan: `EKS`."""
    namespaces: tuple[str, ...] = ("default",)

"""The pod-security add-on: the stack's `podSecurity` level (baseline by default) on the namespaces
workloads start in, where the platform's API server enforces none by default (the substrate declares
which, LabelledNamespaces). On k3s the API server enforces it in every unlabelled namespace, and this
add-on is not wanted."""

from gpukit.components.addons.base import Addon, BuildContext, Built, addon_variant
from gpukit.components.addons.pod_security.variant import POD_SECURITY, LabelledNamespaces
from gpukit.components.handle import ClusterHandle
from gpukit.components.pod_security_labels import ENFORCE_LABEL
from gpukit.components.spec import PodSecurityLevel
from gpukit.components.substrate import ResolvedCluster, declared_variant


def labelled(cluster: ResolvedCluster) -> LabelledNamespaces | None:
    """The namespaces the substrate has gpukit label, or None (its API server enforces the level)."""
    if declared_variant(cluster.substrate, POD_SECURITY) is None:
        return None
    return addon_variant(cluster.substrate, POD_SECURITY, LabelledNamespaces, LabelledNamespaces(""))


def level(cluster: ResolvedCluster) -> PodSecurityLevel:
    return cluster.spec.get("pod_security", PodSecurityLevel.BASELINE)


class PodSecurityAddon(Addon):
    name = POD_SECURITY

    def wanted(self, cluster: ResolvedCluster) -> bool:
        return labelled(cluster) is not None

    def report(self, cluster: ResolvedCluster, handle: ClusterHandle) -> list[str]:
        found = labelled(cluster)
        if found is None:
            return []
        return [
            "",
            "Pod Security:",
            f"  enforced: {level(cluster).value} in {', '.join(found.namespaces)} (label {ENFORCE_LABEL}; "
            "restricted warned and audited); namespaces gpukit creates carry their own level",
            f"  other namespaces: none enforced until labelled ({found.platform}'s API server takes no "
            f"cluster-wide default): label each namespace you create {ENFORCE_LABEL}: {level(cluster).value}",
        ]

    def document(self, cluster: ResolvedCluster, handle: ClusterHandle) -> dict[str, object]:
        found = labelled(cluster)
        if found is None:
            return {}
        return {
            "pod_security": {"level": level(cluster).value, "labelled_namespaces": list(found.namespaces)}
        }

    def build(self, ctx: BuildContext) -> Built:
        # Lazy: the component imports pulumi_kubernetes, which only building needs.
        from gpukit.components.addons.pod_security.component import NamespacePodSecurity

        found = labelled(ctx.cluster)
        assert found is not None  # wanted() said so
        NamespacePodSecurity(
            f"{ctx.name}-pod-security",
            {"namespaces": list(found.namespaces), "level": level(ctx.cluster)},
            opts=ctx.in_cluster(ctx.handle.system_ready),
        )
        return Built()


POD_SECURITY_ADDON = PodSecurityAddon()

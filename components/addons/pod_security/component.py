"""NamespacePodSecurity: Pod Security labels on namespaces that exist already (`default`), as
server-side apply patches: the namespace stays the platform's, and only gpukit's labels are gpukit's
(removing the add-on gives them up)."""

from typing import Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from gpukit.components.pod_security_labels import pod_security_labels
from gpukit.components.spec import PodSecurityLevel

TYPE_TOKEN = "gpukit:index:NamespacePodSecurity"


class NamespacePodSecurityArgs(TypedDict):
    namespaces: list[str]
    level: PodSecurityLevel


class NamespacePodSecurity(pulumi.ComponentResource):
    """Pass the cluster's Kubernetes provider through `opts.providers`."""

    def __init__(
        self, name: str, args: NamespacePodSecurityArgs, opts: Optional[pulumi.ResourceOptions] = None
    ):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        for namespace in args["namespaces"]:
            k8s.core.v1.NamespacePatch(
                f"{name}-{namespace}",
                metadata={"name": namespace, "labels": pod_security_labels(args["level"])},
                opts=pulumi.ResourceOptions(parent=self),
            )
        self.register_outputs({})

"""K3sClusterAutoscaler: the Cluster Autoscaler release on the servers of a k3s cluster on cloud VMs.

The values (which cloud, which groups, which identity) come from the cloud's adapter
(components/k3s/cloud_flow.py); this only installs the pinned chart with them.
"""

from typing import Any, NotRequired, Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from gpukit.components.autoscaler.chart import CHART, CHART_REPOSITORY, CHART_VERSION, NAMESPACE, RELEASE_NAME
from gpukit.components.autoscaler.provisioning import provisioning_request_crd, with_provisioning_requests

TYPE_TOKEN = "gpukit:index:K3sClusterAutoscaler"


def autoscaler_release(
    name: str,
    values: pulumi.Input[dict[str, Any]],
    opts: pulumi.ResourceOptions,
    provisioning_requests: bool = False,
) -> k8s.helm.v3.Release:
    """The pinned Cluster Autoscaler chart with `values`: every gpukit cluster installs it so (the EKS
    component adds its Pod Identity role around it). `provisioning_requests`: serve ProvisioningRequests
    (a queued pool): the CRD first, then the autoscaler with the flags (provisioning.py)."""
    if provisioning_requests:
        crd = provisioning_request_crd()
        definition = k8s.apiextensions.v1.CustomResourceDefinition(
            f"{name}-provisioningrequest-crd",
            metadata=crd["metadata"],
            spec=crd["spec"],
            # Kept when the last queued pool goes (provisioning.py): deleting it deletes every request.
            opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(retain_on_delete=True)),
        )
        values = pulumi.Output.from_input(values).apply(with_provisioning_requests)
        waits = list(opts.depends_on) if isinstance(opts.depends_on, list) else []
        opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[*waits, definition]))
    return k8s.helm.v3.Release(
        name,
        name=RELEASE_NAME,
        chart=CHART,
        version=CHART_VERSION,
        repository_opts={"repo": CHART_REPOSITORY},
        namespace=NAMESPACE,
        values=values,
        opts=opts,
    )


class K3sClusterAutoscalerArgs(TypedDict):
    values: pulumi.Input[dict[str, Any]]
    """Chart values (components/autoscaler/k3s_values.py k3s_autoscaler_values)."""
    provisioning_requests: NotRequired[bool]
    """Serve ProvisioningRequests (a pool is queued: provisioning.py)."""


class K3sClusterAutoscaler(pulumi.ComponentResource):
    """Pass the cluster's Kubernetes provider through `opts.providers`."""

    release_name: pulumi.Output[Optional[str]]

    def __init__(
        self, name: str, args: K3sClusterAutoscalerArgs, opts: Optional[pulumi.ResourceOptions] = None
    ):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        release = autoscaler_release(
            f"{name}-release",
            args["values"],
            pulumi.ResourceOptions(parent=self),
            args.get("provisioning_requests", False),
        )
        self.release_name = release.name
        self.register_outputs({"release_name": self.release_name})

"""Kubernetes objects of CRDs, applied as the Kubernetes provider takes them."""

from typing import Any

import pulumi
from pulumi_kubernetes import _utilities as k8s_utilities


def custom_object(
    name: str, manifest: dict[str, Any], opts: pulumi.ResourceOptions, outputs: tuple[str, ...] = ()
) -> pulumi.CustomResource:
    """A Kubernetes object of a CRD, as the provider takes one (`kubernetes:<apiVersion>:<kind>`, the
    manifest as its inputs). Not apiextensions.CustomResource: that takes `spec` only, and some kinds
    have other top-level fields (a WorkloadPriorityClass's `value` and `description`).

    `outputs`: top-level fields the object gets from its controller (`status`) that the caller reads as
    attributes of the resource: each is registered empty, as the typed resources register `status`
    (an input that is None is not sent), so the provider's live object fills it in."""
    version = pulumi.ResourceOptions(version=k8s_utilities.get_version())  # type: ignore[no-untyped-call]
    api_version = manifest["apiVersion"]
    # The core group's objects are `kubernetes:core/v1:<Kind>` to the provider (its typed resources'
    # tokens), though their apiVersion is plain `v1`.
    group_version = api_version if "/" in api_version else f"core/{api_version}"
    return pulumi.CustomResource(
        f"kubernetes:{group_version}:{manifest['kind']}",
        name,
        {**manifest, **dict.fromkeys(outputs)},
        pulumi.ResourceOptions.merge(opts, version),
    )

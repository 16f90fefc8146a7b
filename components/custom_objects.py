"""Kubernetes objects of CRDs, applied as the Kubernetes provider takes them."""

from typing import Any

import pulumi
from pulumi_kubernetes import _utilities as k8s_utilities


def custom_object(name: str, manifest: dict[str, Any], opts: pulumi.ResourceOptions) -> pulumi.CustomResource:
    """A Kubernetes object of a CRD, as the provider takes one (`kubernetes:<apiVersion>:<kind>`, the
    manifest as its inputs). Not apiextensions.CustomResource: that takes `spec` only, and some kinds
    have other top-level fields (a WorkloadPriorityClass's `value` and `description`)."""
    version = pulumi.ResourceOptions(version=k8s_utilities.get_version())  # type: ignore[no-untyped-call]
    return pulumi.CustomResource(
        f"kubernetes:{manifest['apiVersion']}:{manifest['kind']}",
        name,
        dict(manifest),
        pulumi.ResourceOptions.merge(opts, version),
    )

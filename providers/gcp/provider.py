"""The explicit Google Cloud provider every gpukit cluster on GCP builds with (GKE and k3s on GCE), and
the APIs the stack enables before it."""

import pulumi
import pulumi_gcp as gcp

from gpukit.components.spec import ClusterSpec
from gpukit.providers.gcp.apis import service_resource_name
from gpukit.providers.gcp.labels import cluster_labels


def cluster_provider(
    name: str, spec: ClusterSpec, parent: pulumi.Resource, apis: tuple[str, ...]
) -> tuple[gcp.Provider, list[gcp.projects.Service]]:
    """Project and region come from the stack, never from gcloud defaults; every resource is labelled
    with its cluster and the stack's `tags`.

    The provider depends on the project's APIs being enabled: every resource built with it waits for
    them, so none is created against a disabled API. The services themselves are enabled through a
    second provider for the same project (they cannot use the provider that waits for them). Invokes
    wait only for what they name, so the services come back too: a look-up passes them as depends_on
    (a preview on a fresh project must not call an API the stack has yet to enable)."""
    project, region = spec.get("project", ""), spec["region"]
    labels = cluster_labels(spec)
    enabler = gcp.Provider(
        f"{name}-gcp-apis",
        project=project,
        region=region,
        default_labels=labels,
        opts=pulumi.ResourceOptions(parent=parent),
    )
    services = [
        gcp.projects.Service(
            service_resource_name(name, api),
            project=project,
            service=api,
            # Never disabled on destroy: other resources of the project may use the API.
            disable_on_destroy=False,
            disable_dependent_services=False,
            opts=pulumi.ResourceOptions(parent=parent, provider=enabler),
        )
        for api in apis
    ]
    provider = gcp.Provider(
        f"{name}-gcp",
        project=project,
        region=region,
        default_labels=labels,
        opts=pulumi.ResourceOptions(parent=parent, depends_on=services),
    )
    return provider, services

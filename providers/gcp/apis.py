"""The Google Cloud APIs a stack calls, which the stack enables itself (gcp.projects.Service).

A new project has few APIs on; `pulumi up` on a project without them fails on the first call with
"API not enabled". The stack enables them, and never disables them on destroy (disable_on_destroy is
False): other workloads of the project may use them, and disabling an API another resource still
needs breaks it (pulumi-gcp projects.Service docs: disable_on_destroy, disable_dependent_services).

Enabling needs the Service Usage API itself (serviceusage.googleapis.com), which Google turns on in
every new project; gpukit cannot enable that one for itself.
"""

# What each API serves (the API's own name in Google's API Library):
COMPUTE = "compute.googleapis.com"  # networks, subnets, routers, NAT, firewalls, VMs, addresses
CONTAINER = "container.googleapis.com"  # GKE clusters and node pools
CLOUD_KMS = "cloudkms.googleapis.com"  # the key ring and key that encrypt GKE's Secrets
IAM = "iam.googleapis.com"  # service accounts
# Project IAM bindings (projects.IAMMember) and the project-number look-up go through Resource
# Manager's projects.getIamPolicy / setIamPolicy / get.
RESOURCE_MANAGER = "cloudresourcemanager.googleapis.com"
# The GPU quotas `pulumi up` reads before it builds the cluster (providers/gcp/quotas.py): the Cloud
# Quotas API serves them (cloudquota.get_s_quota_info), and answers only where it is enabled.
CLOUD_QUOTAS = "cloudquotas.googleapis.com"

GKE_APIS: tuple[str, ...] = (COMPUTE, CONTAINER, CLOUD_KMS, IAM, RESOURCE_MANAGER, CLOUD_QUOTAS)
# k3s on Compute Engine also uses Secret Manager; its join secrets enable that API themselves
# (providers/gcp/k3s/iam.py), next to the secrets that need it.
K3S_GCE_APIS: tuple[str, ...] = (COMPUTE, IAM, RESOURCE_MANAGER, CLOUD_QUOTAS)


def service_resource_name(name: str, api: str) -> str:
    """`<name>-api-container` for container.googleapis.com."""
    return f"{name}-api-{api.split('.', 1)[0]}"

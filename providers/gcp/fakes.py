"""`gpukit plan` fakes for Google Cloud resources: ids as the resource paths Google returns, with the
links, emails and addresses other resources take from them. Stable: the same names, the same fakes.
A name Google would refuse fails the plan (names.py)."""

from collections.abc import Mapping
from typing import Any

from gpukit.components.name_rules import ResourceNameError, planned_name
from gpukit.components.plan_fakes import FAKE_CA
from gpukit.components.plan_fakes import stable_hex as _hex  # short: the fakes below are full of ids
from gpukit.providers.gcp.names import GCP_NAME_RULES

PROJECT_NUMBER = "123456789012"
DEFAULT_PROJECT = "gpukit-plan"
DEFAULT_REGION = "us-central1"
# Disk types and their size ranges in GB: `gcloud compute disk-types list` as exported by
# Cyclenerd/google-cloud-pricing-cost-calculator tools/disktypes.csv @04e5d5f8 (2024-07-03).
_DISK_SIZES = {
    "pd-standard": (10, 65536),
    "pd-balanced": (10, 65536),
    "pd-ssd": (10, 65536),
    "pd-extreme": (500, 65536),
    "hyperdisk-balanced": (4, 65536),
}


def _check_disk(name: str, inputs: dict[str, Any]) -> None:
    """A disk Compute Engine would refuse fails the plan, as `pulumi up` would."""
    disk_type = inputs.get("type") or "pd-standard"  # the API's default type
    if disk_type not in _DISK_SIZES:
        raise ResourceNameError(
            f"Compute Engine disk {name}: type {disk_type!r} is not one of {sorted(_DISK_SIZES)}"
        )
    low, high = _DISK_SIZES[disk_type]
    size = inputs.get("size")
    if isinstance(size, (int, float)) and not low <= size <= high:
        raise ResourceNameError(
            f"Compute Engine disk {name}: {disk_type} takes {low} to {high} GB; got {size}"
        )


class GcpFakes:
    """providers' PlanFakes for the `gcp` package."""

    package = "gcp"

    def __init__(self, config: Mapping[str, Any]) -> None:
        self.project = str(config.get("gcp:project") or DEFAULT_PROJECT)
        self.region = str(config.get("gcp:region") or DEFAULT_REGION)

    def resource(self, token: str, name: str, inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """Raises ResourceNameError for a name Google would refuse (providers/gcp/names.py)."""
        names = {
            rule.field: planned_name(token, name, inputs, rule) for rule in GCP_NAME_RULES.get(token, ())
        }
        named = {field: value for field, value in names.items() if value is not None}
        if token == "gcp:compute/disk:Disk":
            _check_disk(name, inputs)
        state = {**inputs, **named}
        rid = self._gcp_id(token, name, state)
        return rid, {**named, **self._gcp_outputs(token, name, rid, state)}

    def invoke(self, token: str, args: dict[str, Any]) -> dict[str, Any] | None:
        """The project look-up (GKE's service agent is named after the project number); image families
        and zones are plain paths and tables, no invokes."""
        if token == "gcp:organizations/getProject:getProject":
            project = str(args.get("projectId") or self.project)
            return {
                "id": f"projects/{project}",
                "projectId": project,
                "number": PROJECT_NUMBER,
                "name": project,
            }
        if token == "gcp:compute/getSubnetwork:getSubnetwork":
            # A reused subnetwork: a range stable per name, inside the private 10.0.0.0/8.
            subnet = str(args.get("name") or args.get("selfLink"))
            return {"name": subnet, "ipCidrRange": f"10.{100 + int(_hex(subnet, length=2), 16) % 100}.0.0/20"}
        return None

    def _gcp_id(self, token: str, name: str, state: dict[str, Any]) -> str:
        """Google's resource ids are paths; those other resources take as references."""
        resource = state.get("name") or name
        project = f"projects/{self.project}"
        regional = f"{project}/regions/{self.region}"
        paths = {
            "gcp:compute/network:Network": f"{project}/global/networks/{resource}",
            "gcp:compute/subnetwork:Subnetwork": f"{regional}/subnetworks/{resource}",
            "gcp:compute/router:Router": f"{regional}/routers/{resource}",
            "gcp:container/cluster:Cluster": f"{project}/locations/{state.get('location')}/clusters/{resource}",  # noqa: E501
            "gcp:serviceaccount/account:Account": f"{project}/serviceAccounts/{self._sa_email(state)}",
            "gcp:compute/address:Address": f"{regional}/addresses/{resource}",
            "gcp:compute/globalAddress:GlobalAddress": f"{project}/global/addresses/{resource}",
            "gcp:filestore/instance:Instance": (
                f"{project}/locations/{state.get('location')}/instances/{resource}"
            ),
            # A bucket's id is its name; a connection's is `<network>:<service>` (pulumi-gcp
            # servicenetworking.Connection import id).
            "gcp:storage/bucket:Bucket": str(resource),
            "gcp:servicenetworking/connection:Connection": f"{state.get('network')}:{state.get('service')}",
            "gcp:compute/firewall:Firewall": f"{project}/global/firewalls/{resource}",
            "gcp:compute/instanceTemplate:InstanceTemplate": f"{project}/global/instanceTemplates/{resource}",
            "gcp:compute/instance:Instance": f"{project}/zones/{state.get('zone')}/instances/{resource}",
            "gcp:compute/disk:Disk": f"{project}/zones/{state.get('zone')}/disks/{resource}",
            "gcp:compute/instanceGroupManager:InstanceGroupManager": (
                f"{project}/zones/{state.get('zone')}/instanceGroupManagers/{resource}"
            ),
            "gcp:projects/iAMCustomRole:IAMCustomRole": f"{project}/roles/{state.get('roleId') or resource}",
            "gcp:secretmanager/secret:Secret": f"{project}/secrets/{state.get('secretId') or resource}",
            "gcp:kms/keyRing:KeyRing": f"{project}/locations/{state.get('location')}/keyRings/{resource}",
            "gcp:kms/cryptoKey:CryptoKey": f"{state.get('keyRing')}/cryptoKeys/{resource}",
            "gcp:projects/service:Service": f"{state.get('project') or self.project}/{state.get('service')}",
        }
        return paths.get(token, f"{resource}-{_hex(token, name, length=8)}")

    def _sa_email(self, state: dict[str, Any]) -> str:
        return f"{state.get('accountId')}@{self.project}.iam.gserviceaccount.com"

    def _gcp_outputs(self, token: str, name: str, rid: str, state: dict[str, Any]) -> dict[str, Any]:
        if token == "gcp:serviceaccount/account:Account":
            email = self._sa_email(state)
            return {
                "email": email,
                "member": f"serviceAccount:{email}",
                "uniqueId": _hex(name, length=21),
            }
        if token == "gcp:container/cluster:Cluster":
            octet = int(_hex(name, length=2), 16) % 250 + 1
            outputs: dict[str, Any] = {
                "endpoint": f"34.118.{octet}.{(octet * 7) % 250 + 1}",
                "masterAuth": {"clusterCaCertificate": FAKE_CA.decode()},
                "selfLink": f"https://container.googleapis.com/v1/{rid}",
            }
            endpoints = state.get("controlPlaneEndpointsConfig") or {}
            if "dnsEndpointConfig" in endpoints:
                # GKE names the DNS endpoint after the cluster's id and location.
                dns = {
                    **endpoints["dnsEndpointConfig"],
                    "endpoint": f"gke-{_hex(name, length=32)}.{state.get('location')}.gke.goog",
                }
                outputs["controlPlaneEndpointsConfig"] = {**endpoints, "dnsEndpointConfig": dns}
            return outputs
        if token == "gcp:compute/address:Address":
            octet = int(_hex(name, length=2), 16) % 200 + 10
            internal = state.get("addressType") == "INTERNAL"
            address = state.get("address") or (
                f"10.40.0.{octet}" if internal else f"34.120.{octet}.{octet % 97 + 1}"
            )
            return {"address": address, "selfLink": f"https://www.googleapis.com/compute/v1/{rid}"}
        if token == "gcp:compute/globalAddress:GlobalAddress":
            # Google picks a free block of the prefix length in the VPC when no address is given.
            third = int(_hex(name, length=2), 16) % 16 * 16
            return {
                "address": state.get("address") or f"10.{200 + third % 50}.{third}.0",
                "selfLink": f"https://www.googleapis.com/compute/v1/{rid}",
            }
        if token == "gcp:filestore/instance:Instance":
            # Filestore gives the instance one private address from the private services range.
            octet = int(_hex(name, length=2), 16) % 200 + 2
            networks = [{**n, "ipAddresses": [f"10.210.{octet}.2"]} for n in state.get("networks") or [{}]]
            return {"networks": networks, "createTime": "2026-01-01T00:00:00Z"}
        if token == "gcp:storage/bucket:Bucket":
            return {
                "selfLink": f"https://www.googleapis.com/storage/v1/b/{rid}",
                "url": f"gs://{rid}",
                "projectNumber": PROJECT_NUMBER,
            }
        if token == "gcp:secretmanager/secret:Secret":
            return {"name": f"projects/{PROJECT_NUMBER}/secrets/{state.get('secretId') or name}"}
        if token == "gcp:secretmanager/secretVersion:SecretVersion":
            return {"name": f"{state.get('secret')}/versions/1", "version": "1"}
        if token == "gcp:projects/iAMCustomRole:IAMCustomRole":
            return {"name": rid}
        if token == "gcp:compute/instanceGroupManager:InstanceGroupManager":
            link = f"https://www.googleapis.com/compute/v1/{rid}"
            return {
                "selfLink": link,
                "instanceGroup": link.replace("instanceGroupManagers", "instanceGroups"),
            }
        if token.startswith("gcp:compute/"):
            link = f"https://www.googleapis.com/compute/v1/{rid}"
            return {"selfLink": link, "selfLinkUnique": f"{link}?uniqueId={_hex(name, length=19)}"}
        return {}

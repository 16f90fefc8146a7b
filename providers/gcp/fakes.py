"""`gpukit plan` fakes for Google Cloud resources: ids as the resource paths Google returns, with the
links, emails and addresses other resources take from them. Stable: the same names, the same fakes.
A name Google would refuse fails the plan (names.py)."""

import base64
import binascii
import hashlib
import re
from collections.abc import Mapping
from typing import Any

from gpukit.components.name_rules import ResourceNameError, planned_name
from gpukit.components.plan_fakes import FAKE_CA
from gpukit.components.plan_fakes import stable_hex as _hex  # short: the fakes below are full of ids
from gpukit.providers.gcp.apis import COMPUTE
from gpukit.providers.gcp.names import GCP_NAME_RULES
from gpukit.providers.gcp.quotas import QUOTAS_BY_ID
from gpukit.providers.gcp.regions import GCP_REGIONS
from gpukit.providers.gcp.validation import PROJECT_ID_RE

PROJECT_NUMBER = "123456789012"
DEFAULT_PROJECT = "gpukit-plan"
DEFAULT_REGION = "us-central1"
# The plan has no project to ask: GPU quotas that admit any plan (the plan's findings say `pulumi up`
# reads the real ones, providers/gcp/quotas.py).
PLAN_GPU_QUOTA = 100_000
QUOTA_INFO_TOKEN = "gcp:cloudquota/getSQuotaInfo:getSQuotaInfo"
# Cloud Quotas' parent of a project's quotas: `projects/` and the project's id or number.
_PROJECT_PARENT = re.compile(rf"projects/({PROJECT_ID_RE.pattern}|[0-9]+)")
# Cloud KMS encrypts at most 64 KiB of plaintext with a SOFTWARE key (EncryptRequest.plaintext), and a
# Secret Manager version's payload is at most 64 KiB (SecretPayload.data): the servers' join bundle is
# encrypted with the one and its ciphertext stored in the other (providers/gcp/k3s/join_key.py).
KMS_PLAINTEXT_LIMIT = 64 * 1024
SECRET_PAYLOAD_LIMIT = 64 * 1024
# A stand-in for what Cloud KMS adds to a plaintext (the key version that encrypted it, AES-GCM's nonce
# and tag): the fake ciphertext is that much longer than its plaintext.
_KMS_CIPHERTEXT_OVERHEAD = 70
_CRYPTO_KEY = re.compile(r"projects/[^/]+/locations/[^/]+/keyRings/[^/]+/cryptoKeys/[^/]+")
_SECRET_SIG = "4dabf18193072939515e22adb298388d"  # Pulumi's wire marker of a secret value
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


def _plain(value: Any) -> Any:
    """A secret input's value (the engine hands the fakes secrets in their wire wrapper)."""
    return value["value"] if isinstance(value, dict) and _SECRET_SIG in value else value


def _kms_ciphertext(name: str, inputs: dict[str, Any]) -> str:
    """What Cloud KMS's cryptoKeys.encrypt returns for kms.SecretCiphertext, base64: stable for the same
    key and plaintext, never the plaintext itself. A key name or plaintext Cloud KMS would refuse
    fails the plan, as `pulumi up` would."""
    key, plaintext = str(_plain(inputs.get("cryptoKey")) or ""), _plain(inputs.get("plaintext"))
    if not _CRYPTO_KEY.fullmatch(key):
        raise ResourceNameError(
            f"Cloud KMS ciphertext {name}: crypto key {key!r} is not "
            "projects/P/locations/L/keyRings/R/cryptoKeys/K"
        )
    # The provider sends the string's UTF-8 bytes (base64-encoded): the limit is on those.
    size = len(str(plaintext or "").encode())
    if not 0 < size <= KMS_PLAINTEXT_LIMIT:
        raise ResourceNameError(
            f"Cloud KMS ciphertext {name}: Cloud KMS encrypts 1 to {KMS_PLAINTEXT_LIMIT} bytes of "
            f"plaintext; got {size}"
        )
    digest = hashlib.shake_256(f"{key}\0{plaintext}".encode()).digest(size + _KMS_CIPHERTEXT_OVERHEAD)
    return base64.b64encode(digest).decode()


def _check_secret_payload(name: str, inputs: dict[str, Any]) -> None:
    """A secret version Secret Manager would refuse (over 64 KiB, or data that is not the base64 it was
    said to be) fails the plan."""
    data = str(_plain(inputs.get("secretData")) or "")
    payload = data.encode()
    if inputs.get("isSecretDataBase64"):
        try:
            payload = base64.b64decode(data, validate=True)
        except binascii.Error as err:
            raise ResourceNameError(
                f"Secret Manager version {name}: its data is not base64 ({err})"
            ) from None
    if len(payload) > SECRET_PAYLOAD_LIMIT:
        raise ResourceNameError(
            f"Secret Manager version {name}: a payload takes at most {SECRET_PAYLOAD_LIMIT} bytes; "
            f"got {len(payload)}"
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
        if token == "gcp:secretmanager/secretVersion:SecretVersion":
            _check_secret_payload(name, inputs)
        state = {**inputs, **named}
        rid = self._gcp_id(token, name, state)
        return rid, {**named, **self._gcp_outputs(token, name, rid, state)}

    def invoke(self, token: str, args: dict[str, Any]) -> dict[str, Any] | None:
        """The project look-up (GKE's service agent is named after the project number) and the GPU
        quotas; image families and zones are plain paths and tables, no invokes."""
        if token == QUOTA_INFO_TOKEN:
            return self._quota_info(args)
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

    def _quota_info(self, args: dict[str, Any]) -> dict[str, Any]:
        """A QuotaInfo as Cloud Quotas returns one for a project that was never granted more than its
        defaults: one row per slice without a region (it applies in every region it lists), here a
        value no plan exceeds. Arguments Cloud Quotas would refuse (another project, service or an id
        gpukit does not read) fail the plan, as they would fail `pulumi up`. The parent is checked for its
        shape only: a program's project is its provider's, which these fakes are not told."""
        parent, service, quota_id = args.get("parent"), args.get("service"), args.get("quotaId")
        slices = QUOTAS_BY_ID.get(str(quota_id), ())
        if not _PROJECT_PARENT.fullmatch(str(parent)) or service != COMPUTE or not slices:
            raise ValueError(
                f"gpukit plan: getSQuotaInfo takes parent projects/<project id or number>, service {COMPUTE} "
                f"and a GPU quota id of providers/gcp/quotas.py; got parent {parent!r}, service "
                f"{service!r}, quotaId {quota_id!r}"
            )
        regional = slices[0].regional
        locations = sorted(GCP_REGIONS | {self.region}) if regional else ["global"]
        name = f"projects/{PROJECT_NUMBER}/locations/global/services/{service}/quotaInfos/{quota_id}"
        return {
            "id": name,
            "name": name,
            "parent": parent,
            "service": service,
            "quotaId": quota_id,
            "metric": f"{service}/{slices[0].metric.lower()}",
            "containerType": "PROJECT",
            "dimensions": [*(["region"] if regional else []), *dict(slices[0].dimensions)],
            "dimensionsInfos": [
                {
                    "dimensions": dict(s.dimensions),
                    "details": [{"value": str(PLAN_GPU_QUOTA)}],
                    "applicableLocations": locations,
                }
                for s in slices
            ],
            "isConcurrent": False,
            "isFixed": False,
            "isPrecise": True,
            "metricUnit": "1",
            "refreshInterval": "",
            "quotaIncreaseEligibilities": [{"isEligible": True, "ineligibilityReason": ""}],
            "serviceRequestQuotaUri": "https://console.cloud.google.com/iam-admin/quotas",
        }

    def _gcp_id(self, token: str, name: str, state: dict[str, Any]) -> str:
        """Google's resource ids are paths; those other resources take as references."""
        if token == "gcp:kms/secretCiphertext:SecretCiphertext":
            # The provider's id: `<crypto key>/<ciphertext>`.
            return f"{_plain(state.get('cryptoKey'))}/{_kms_ciphertext(name, state)}"
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
        if token == "gcp:kms/secretCiphertext:SecretCiphertext":
            return {"ciphertext": _kms_ciphertext(name, state)}
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

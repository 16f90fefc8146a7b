"""The mock engine behind `gpukit plan`: realistic fake outputs, strict invokes, and a record.

Fake outputs look like what AWS returns (ids, ARNs, an EKS endpoint and CA) so that everything the
program derives from them (kubeconfig, autoscaling group tags, IAM policies) renders as it would for
real. An invoke the table does not know raises: a silent all-None answer would plan a broken cluster.
"""

import asyncio
import atexit
import base64
import hashlib
import threading
from dataclasses import dataclass
from typing import Any

import pulumi
from pulumi.runtime.mocks import MockCallArgs, MockMonitor, MockResourceArgs

ACCOUNT_ID = "123456789012"
FAKE_CA = base64.b64encode(b"-----BEGIN CERTIFICATE-----\ngpukit plan: fake CA\n-----END CERTIFICATE-----\n")


def _pem(kind: str, name: str) -> str:
    return f"-----BEGIN {kind}-----\ngpukit plan fake {_hex(kind, name, length=32)}\n-----END {kind}-----\n"


class UnmockedInvokeError(RuntimeError):
    pass


def _hex(*parts: str, length: int = 17) -> str:
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:length]


def _private_ip(name: str) -> str:
    """A stable fake private address for an EC2 instance or network interface."""
    return f"10.40.{int(_hex(name, length=2), 16) % 200}.{int(_hex(name, 'h', length=2), 16) % 250 + 2}"


def _auto_name(state: dict[str, Any], name: str) -> str:
    """What AWS names a resource given `name` or `namePrefix` (or neither: Pulumi's own prefix)."""
    return str(state.get("name") or f"{state.get('namePrefix', name + '-')}{_hex(name, length=26)}")


@dataclass
class Recorded:
    urn: str
    type: str
    name: str
    parent: str
    provider: str
    custom: bool
    inputs: dict[str, Any]
    id: str = ""


# Resource id prefixes EC2 uses, by type token.
_EC2_PREFIXES = {
    "aws:ec2/vpc:Vpc": "vpc",
    "aws:ec2/subnet:Subnet": "subnet",
    "aws:ec2/internetGateway:InternetGateway": "igw",
    "aws:ec2/routeTable:RouteTable": "rtb",
    "aws:ec2/routeTableAssociation:RouteTableAssociation": "rtbassoc",
    "aws:ec2/eip:Eip": "eipalloc",
    "aws:ec2/natGateway:NatGateway": "nat",
    "aws:ec2/launchTemplate:LaunchTemplate": "lt",
    "aws:ec2/securityGroup:SecurityGroup": "sg",
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": "sgr",
    "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule": "sgr",
    "aws:ec2/instance:Instance": "i",
    "aws:ec2/networkInterface:NetworkInterface": "eni",
}
PROJECT_NUMBER = "123456789012"


class PlanMocks(pulumi.runtime.Mocks):
    def __init__(self, region: str, project: str = "gpukit-plan") -> None:
        self.region = region
        self.project = project
        # The engine registers resources from a thread pool: each thread hands its own call's args
        # to RecordingMonitor through this, so a record never pairs one resource with another's inputs.
        self.current = threading.local()

    # --- resources
    def new_resource(self, args: MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        self.current.args = args
        state = dict(args.inputs)
        token, name = args.typ, args.name
        if token in _EC2_PREFIXES:
            rid = f"{_EC2_PREFIXES[token]}-{_hex(token, name)}"
        elif not args.custom:
            return None, {}
        elif token.startswith("gcp:"):
            rid = self._gcp_id(token, name, state)
        else:
            rid = f"{name}-{_hex(token, name, length=8)}"
        state.update(self._outputs(token, name, rid, state))
        if token.startswith("gcp:"):
            state.update(self._gcp_outputs(token, name, rid, state))
        return rid, state

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
            "gcp:compute/firewall:Firewall": f"{project}/global/firewalls/{resource}",
            "gcp:compute/instanceTemplate:InstanceTemplate": f"{project}/global/instanceTemplates/{resource}",
            "gcp:compute/instance:Instance": f"{project}/zones/{state.get('zone')}/instances/{resource}",
            "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager": (
                f"{regional}/instanceGroupManagers/{resource}"
            ),
            "gcp:secretmanager/secret:Secret": f"{project}/secrets/{state.get('secretId') or resource}",
        }
        return paths.get(token, f"{resource}-{_hex(token, name, length=8)}")

    def _sa_email(self, state: dict[str, Any]) -> str:
        return f"{state.get('accountId')}@{self.project}.iam.gserviceaccount.com"

    def _gcp_outputs(self, token: str, name: str, rid: str, state: dict[str, Any]) -> dict[str, Any]:
        if token == "gcp:serviceaccount/account:Account":
            email = self._sa_email(state)
            return {"email": email, "member": f"serviceAccount:{email}", "uniqueId": _hex(name, length=21)}
        if token == "gcp:container/cluster:Cluster":
            octet = int(_hex(name, length=2), 16) % 250 + 1
            return {
                "endpoint": f"34.118.{octet}.{(octet * 7) % 250 + 1}",
                "masterAuth": {"clusterCaCertificate": FAKE_CA.decode()},
                "selfLink": f"https://container.googleapis.com/v1/{rid}",
            }
        if token == "gcp:compute/address:Address":
            octet = int(_hex(name, length=2), 16) % 200 + 10
            internal = state.get("addressType") == "INTERNAL"
            address = state.get("address") or (
                f"10.40.0.{octet}" if internal else f"34.120.{octet}.{octet % 97 + 1}"
            )
            return {"address": address, "selfLink": f"https://www.googleapis.com/compute/v1/{rid}"}
        if token == "gcp:secretmanager/secret:Secret":
            return {"name": f"projects/{PROJECT_NUMBER}/secrets/{state.get('secretId') or name}"}
        if token == "gcp:secretmanager/secretVersion:SecretVersion":
            return {"name": f"{state.get('secret')}/versions/1", "version": "1"}
        if token == "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager":
            link = f"https://www.googleapis.com/compute/v1/{rid}"
            return {
                "selfLink": link,
                "instanceGroup": link.replace("instanceGroupManagers", "instanceGroups"),
            }
        if token.startswith("gcp:compute/"):
            link = f"https://www.googleapis.com/compute/v1/{rid}"
            return {"selfLink": link, "selfLinkUnique": f"{link}?uniqueId={_hex(name, length=19)}"}
        return {}

    def _arn(self, service: str, resource: str, *, regional: bool = True) -> str:
        region = self.region if regional else ""
        return f"arn:aws:{service}:{region}:{ACCOUNT_ID}:{resource}"

    def _outputs(self, token: str, name: str, rid: str, state: dict[str, Any]) -> dict[str, Any]:
        if token == "aws:eks/cluster:Cluster":
            cluster = state.get("name", name)
            return {
                "arn": self._arn("eks", f"cluster/{cluster}"),
                "endpoint": f"https://{_hex(cluster, length=32).upper()}.gr7.{self.region}.eks.amazonaws.com",
                "certificateAuthority": {"data": FAKE_CA.decode()},
                "status": "ACTIVE",
                "platformVersion": "eks.1",
            }
        if token == "aws:eks/nodeGroup:NodeGroup":
            ng = f"{state.get('nodeGroupNamePrefix', name + '-')}{_hex(name, length=26)}"
            return {
                "nodeGroupName": ng,
                "arn": self._arn("eks", f"nodegroup/{state.get('clusterName')}/{ng}/{_hex(ng, length=8)}"),
                "resources": [{"autoscalingGroups": [{"name": f"eks-{ng}-{_hex(ng, 'asg', length=8)}"}]}],
                "status": "ACTIVE",
            }
        if token == "aws:ec2/launchTemplate:LaunchTemplate":
            return {
                "latestVersion": 1,
                "defaultVersion": 1,
                "arn": self._arn("ec2", f"launch-template/{rid}"),
            }
        if token == "aws:iam/role:Role":
            role = state.get("name") or f"{name}-{_hex(name, length=7)}"
            return {"name": role, "arn": self._arn("iam", f"role/{role}", regional=False), "uniqueId": rid}
        if token == "aws:kms/key:Key":
            key_id = (
                f"{_hex(name, length=8)}-{_hex(name, 'a', length=4)}-{_hex(name, 'b', length=4)}-"
                f"{_hex(name, 'c', length=4)}-{_hex(name, 'd', length=12)}"
            )
            return {"keyId": key_id, "arn": self._arn("kms", f"key/{key_id}")}
        if token == "aws:ec2/eip:Eip":
            return {"publicIp": f"203.0.113.{int(_hex(name, length=2), 16) % 250 + 1}"}
        if token == "aws:eks/podIdentityAssociation:PodIdentityAssociation":
            return {"associationArn": self._arn("eks", f"podidentityassociation/{rid}"), "associationId": rid}
        if token == "aws:eks/addon:Addon":
            return {
                "arn": self._arn("eks", f"addon/{state.get('addonName')}/{rid}"),
                "addonVersion": state.get("addonVersion") or "default-for-cluster-version",
            }
        if token == "aws:ec2/instance:Instance":
            ip = _private_ip(name)
            return {
                "arn": self._arn("ec2", f"instance/{rid}"),
                "privateIp": ip,
                "privateDns": f"ip-{ip.replace('.', '-')}.ec2.internal",
                "instanceState": "running",
            }
        if token == "aws:ec2/networkInterface:NetworkInterface":
            ip = _private_ip(name)
            return {"arn": self._arn("ec2", f"network-interface/{rid}"), "privateIp": ip, "privateIps": [ip]}
        if token.startswith(("aws:ec2/", "aws:vpc/")):
            return {"arn": self._arn("ec2", rid)}
        if token == "aws:lb/loadBalancer:LoadBalancer":
            lb = (state.get("name") or f"{name[:20]}-{_hex(name, length=6)}")[:32]
            return {
                "arn": self._arn("elasticloadbalancing", f"loadbalancer/net/{lb}/{_hex(name, length=16)}"),
                "dnsName": f"{lb}-{_hex(name, 'dns', length=16)}.elb.{self.region}.amazonaws.com",
                "zoneId": "Z26RNL4JYFTOTI",
            }
        if token == "aws:lb/targetGroup:TargetGroup":
            tg = (state.get("name") or state.get("namePrefix", "") + _hex(name, length=8))[:32]
            return {"arn": self._arn("elasticloadbalancing", f"targetgroup/{tg}/{_hex(name, length=16)}")}
        if token == "aws:lb/listener:Listener":
            return {"arn": self._arn("elasticloadbalancing", f"listener/net/{rid}")}
        if token == "aws:autoscaling/group:Group":
            group = _auto_name(state, name)
            return {
                "name": group,
                "arn": self._arn("autoscaling", f"autoScalingGroup:{rid}:autoScalingGroupName/{group}"),
            }
        if token == "aws:iam/instanceProfile:InstanceProfile":
            profile = state.get("name") or f"{name}-{_hex(name, length=7)}"
            return {"name": profile, "arn": self._arn("iam", f"instance-profile/{profile}", regional=False)}
        if token == "aws:secretsmanager/secret:Secret":
            secret = _auto_name(state, name)
            return {
                "name": secret,
                "arn": self._arn("secretsmanager", f"secret:{secret}-{_hex(name, length=6)}"),
            }
        if token == "aws:secretsmanager/secretVersion:SecretVersion":
            return {"arn": state.get("secretId"), "versionId": _hex(name, length=32)}
        return self._local_outputs(token, name)

    def _local_outputs(self, token: str, name: str) -> dict[str, Any]:
        """Providers that run on the deployer's machine (tls, random) or on the hosts (command)."""
        if token == "random:index/randomPassword:RandomPassword":
            return {"result": f"plan-fake-{_hex(name, length=40)}"}
        if token == "tls:index/privateKey:PrivateKey":
            return {"privateKeyPem": _pem("PRIVATE KEY", name), "publicKeyPem": _pem("PUBLIC KEY", name)}
        if token in (
            "tls:index/selfSignedCert:SelfSignedCert",
            "tls:index/locallySignedCert:LocallySignedCert",
        ):
            return {"certPem": _pem("CERTIFICATE", name)}
        if token == "tls:index/certRequest:CertRequest":
            return {"certRequestPem": _pem("CERTIFICATE REQUEST", name)}
        if token in ("command:remote:Command", "command:local:Command"):
            return {"stdout": "", "stderr": ""}
        return {}

    # --- invokes
    def call(self, args: MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
        return self._invoke(args.token), []

    def _invoke(self, token: str) -> dict[str, Any]:
        if token == "aws:index/getAvailabilityZones:getAvailabilityZones":
            names = [f"{self.region}{z}" for z in "abcd"]
            return {
                "names": names,
                "zoneIds": [f"use1-az{i + 1}" for i in range(len(names))],
                "id": self.region,
                "groupNames": [self.region] * len(names),
            }
        if token == "aws:index/getCallerIdentity:getCallerIdentity":
            return {
                "accountId": ACCOUNT_ID,
                "arn": f"arn:aws:iam::{ACCOUNT_ID}:user/gpukit-plan",
                "userId": "AIDAGPUKITPLAN",
                "id": ACCOUNT_ID,
            }
        if token == "aws:index/getPartition:getPartition":
            return {
                "partition": "aws",
                "dnsSuffix": "amazonaws.com",
                "id": "aws",
                "reverseDnsPrefix": "com.amazonaws",
            }
        raise UnmockedInvokeError(
            f"gpukit plan has no fake result for invoke {token!r}; add one to gpukit/plan/fakes.py"
        )


class RecordingMonitor(MockMonitor):
    """MockMonitor that also keeps each registration's parent and provider, for the resource tree."""

    def __init__(self, mocks: PlanMocks) -> None:
        super().__init__(mocks)
        self.plan_mocks = mocks
        self.recorded: list[Recorded] = []
        self._lock = threading.Lock()

    def RegisterResource(self, request: Any) -> Any:
        self.plan_mocks.current.args = None
        response = super().RegisterResource(request)  # type: ignore[no-untyped-call]
        args: MockResourceArgs | None = self.plan_mocks.current.args
        if args is None:  # the root Stack, which never reaches the mocks
            return response
        recorded = Recorded(
            urn=response.urn,
            type=request.type,
            name=request.name,
            parent=request.parent,
            provider=request.provider,
            custom=bool(request.custom),
            inputs=args.inputs,
            id=response.id,
        )
        with self._lock:
            self.recorded.append(recorded)
            _OPENED_LOOPS.add(asyncio.get_event_loop_policy().get_event_loop())
        return response


# The mock monitor opens an event loop per worker thread and never closes it. Worker threads (and
# their loops) are reused by later runs in the same process, so the loops are closed only at exit:
# left to the garbage collector during interpreter shutdown, one can fail noisily after its file
# descriptors are gone ("Exception ignored in BaseEventLoop.__del__").
_OPENED_LOOPS: set[asyncio.AbstractEventLoop] = set()


@atexit.register
def _close_opened_loops() -> None:
    for loop in _OPENED_LOOPS:
        if not loop.is_running() and not loop.is_closed():
            loop.close()

"""gpukit's config contract, written once: every key, its type, default, allowed values, meaning and
whether it is substrate-specific.

Everything else is derived from this table: the parser (components/config/parse.py) checks structure
against it; the substrates declare which substrate-specific keys they take and require (their
`accepts` and `requires`, as the paths `schema_paths()` gives: `cluster.network.vpcId`,
`nodePools.nodeImage`); and `make docs` writes `Pulumi.yaml`'s `config:` block and the
configuration reference from it (gpukit/docs.py), which a test keeps in sync.

`description` is the short form a message uses ("required key is missing (cluster name)"); `doc` is
the meaning as the reference (docs/configuration.md) gives it.
"""

import re
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal

from gpukit.components.spec import (
    Autoscaler,
    Capacity,
    DriverMode,
    GkeDriverVersion,
    GpuArchitecture,
    Interconnect,
    MigStrategy,
    NatGateways,
    NodeImage,
    NodeRole,
    Platform,
    PodSecurityLevel,
    Provider,
    Provisioning,
    ReleaseChannel,
    SharingMode,
    StorageKind,
    StorageRole,
    SupportType,
)

Kind = Literal[
    "str",
    "input",
    "secret",
    "int",
    "number",
    "bool",
    "list[str]",
    "map[str]",
    "map[int]",
    "object",
    "list[object]",
]
"""`input`: a string, or from Python a pulumi.Output[str] (the name of a resource the user's own program
makes). Only keys whose value no check and no resource name needs take one (docs/own-program.md lists
them and says why the others must be plain)."""


@dataclass(frozen=True)
class Field:
    key: str
    kind: Kind
    description: str
    required: bool = False
    default: Any = None
    choices: type[Enum] | None = None
    fields: tuple["Field", ...] = ()
    planned: str | None = None
    """Set for keys of capabilities gpukit does not build yet: such a key is rejected, never ignored."""
    specific: bool = False
    """Taken by the substrates that declare it only (Substrate.accepts), refused elsewhere."""
    doc: str = ""
    """What the key means, for the reference, docs/configuration.md (Markdown)."""
    default_doc: str = ""
    """The default in words, where it is not a plain value the parser fills in ("derived", "3")."""

    @property
    def attr(self) -> str:
        return re.sub(r"(?<!^)(?=[A-Z])", "_", self.key).lower()


def camel(attr: str) -> str:
    """`min_nodes` -> `minNodes`: the config spelling of an attribute (Field.attr the other way)."""
    return re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), attr)


NAMESPACE = "gpukit"
SSH_KEY = f"{NAMESPACE}:sshPrivateKey"


def child_key(parent: str, key: str) -> str:
    """The config key of `key` inside `parent`: `gpukit:` + `cluster` -> `gpukit:cluster`,
    `gpukit:cluster` + `name` -> `gpukit:cluster.name`."""
    return f"{parent}{key}" if parent.endswith(":") else f"{parent}.{key}"


NETWORK_FIELDS = (
    Field(
        "cidr",
        "str",
        "CIDR of a new VPC, /16 to /20 (exclusive with vpcId)",
        doc="Creates a new network. EKS: the VPC, /16 to /20. GKE: /16 to /20; nodes get its first quarter, "
        "services a /20 of the second, pods the upper half (/16: 128 nodes). k3s on aws: the VPC, /16 to "
        "/22. k3s on gcp: the subnet, /16 to /24. k3s: it must not overlap k3s's pod and service networks "
        "(10.42.0.0/16, 10.43.0.0/16). Set this or the keys that reuse a network, never both.",
    ),
    # No parser defaults for zoneCount/natGateways: validation must see whether the user set them,
    # since they mean nothing for a reused VPC. Defaults live in components.spec.
    Field(
        "zoneCount",
        "int",
        "availability zones for a new VPC, 2 to 6",
        specific=True,
        default_doc="3",
        doc="Zones for a new VPC, 2 to 6, capped by what the region offers.",
    ),
    Field(
        "natGateways",
        "str",
        "NAT gateway layout of a new VPC",
        choices=NatGateways,
        specific=True,
        default_doc="`single`",
        doc="New VPC: one NAT gateway (cheapest), or one per zone (survives the loss of a zone).",
    ),
    Field(
        "vpcId",
        "str",
        "existing VPC to reuse (needs subnetIds)",
        specific=True,
        doc="Reuses an existing VPC, with `subnetIds`.",
    ),
    Field(
        "subnetIds",
        "list[str]",
        "existing private subnets in two zones or more",
        specific=True,
        doc="The reused VPC's private subnets the nodes go to (EKS: in two zones or more).",
    ),
    Field(
        "publicSubnetIds",
        "list[str]",
        "k3s on aws, reused VPC: public subnets for an internet-facing API",
        specific=True,
        doc="With `vpcId`: public subnets for the API load balancer, required when `apiAccessCidrs` has a "
        "public range.",
    ),
    Field(
        "podsCidr",
        "str",
        "GKE: secondary range for pods of a new subnet",
        specific=True,
        default_doc="derived",
        doc="New network: the pods' secondary range. It must hold the pools' `maxNodes` (a /24 each).",
    ),
    Field(
        "servicesCidr",
        "str",
        "GKE: secondary range for services of a new subnet",
        specific=True,
        default_doc="derived",
        doc="New network: the services' secondary range.",
    ),
    Field(
        "gpuNetworksCidr",
        "str",
        "GKE: the block the GPU machines' extra VPC subnets come from",
        specific=True,
        default_doc="`192.168.0.0/16`",
        doc="Only with GPUDirect pools (`nodePools[].interconnect` on A3 / A4 machines): gpukit makes their "
        "extra VPCs (new or reused primary network alike) and cuts this block, /8 to /19, into 32 "
        "subnets, one per GPU NIC network. It must not overlap the primary subnet's node, pod or service "
        "ranges: a VM's NICs sit in subnets that do not overlap. docs/interconnect.md.",
    ),
    Field(
        "networkId",
        "str",
        "GKE: existing VPC network to reuse (needs subnetworkId)",
        specific=True,
        doc="Reuses an existing network (`projects/P/global/networks/N` or its name), with `subnetworkId`.",
    ),
    Field(
        "subnetworkId",
        "str",
        "GKE: existing subnetwork in the cluster's region",
        specific=True,
        doc="The reused network's subnetwork in the cluster's region.",
    ),
    Field(
        "podsRangeName",
        "str",
        "GKE: the reused subnetwork's secondary range for pods",
        specific=True,
        doc="The reused subnetwork's secondary range for pods.",
    ),
    Field(
        "servicesRangeName",
        "str",
        "GKE: the reused subnetwork's secondary range for services",
        specific=True,
        doc="The reused subnetwork's secondary range for services.",
    ),
)

HOST_KEY_DOC = (
    "Its SSH host key, checked on every connection: a known_hosts line (`<host> <type> <base64>`, "
    "hashed or not) or `<type> <base64>`. Get it with `ssh-keyscan -t ed25519 ADDRESS` (`-p PORT` off "
    "port 22) and compare its fingerprint (`... | ssh-keygen -lf -`) with the one the machine's console "
    "shows (`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub`). Required unless "
    "`cluster.insecureIgnoreHostKeys` is set."
)

BASTION_FIELDS = (
    Field("address", "str", "jump host address", required=True, doc="The jump host's address."),
    Field("user", "str", "jump host SSH user", required=True, doc="The user to log in to it as."),
    Field("port", "int", "jump host SSH port", default_doc="22", doc="Its SSH port."),
    Field(
        "hostKey",
        "str",
        "jump host SSH host key (a known_hosts line)",
        default_doc="required",
        doc=HOST_KEY_DOC,
    ),
)

HOST_FIELDS = (
    Field(
        "address",
        "str",
        "host address reachable over SSH",
        required=True,
        doc="How gpukit reaches the host (IP address or DNS name); also its node address unless NATed. "
        "Each host joins once: DNS names that differ only in case, and one IP address in two spellings "
        "(`2001:db8::1`, `2001:DB8:0::1`), are the same host. Loopback, unspecified and `localhost` "
        "addresses are refused: the other nodes could not reach the host there. So is an IPv6 zone id "
        "(`fe80::1%eth0`), here and in every other address (`apiAddress`, `bastion.address`, "
        "`nfs.server`): it names an interface of one machine.",
    ),
    Field(
        "user",
        "str",
        "SSH user with passwordless sudo",
        required=True,
        doc="A user with passwordless sudo (or root) that `gpukit:sshPrivateKey` logs in as.",
    ),
    Field("port", "int", "SSH port (default 22)", default_doc="22", doc="The host's SSH port."),
    Field(
        "hostKey",
        "str",
        "the host's SSH host key (a known_hosts line)",
        default_doc="required",
        doc=HOST_KEY_DOC,
    ),
    Field(
        "bastion",
        "object",
        "jump host {address, user, port?}",
        fields=BASTION_FIELDS,
        doc="A jump host to reach the host through, logged in to with the same key.",
    ),
)

CLUSTER_FIELDS = (
    Field(
        "name",
        "str",
        "cluster name",
        required=True,
        doc="Lowercase letters, digits and `-`, at most 32 characters. This is the cluster name.",
    ),
    Field(
        "platform",
        "str",
        "where the cluster runs",
        required=True,
        choices=Platform,
        doc="Where the cluster runs: Amazon EKS, Google GKE, or k3s on machines gpukit creates or you own.",
    ),
    Field(
        "provider",
        "str",
        "host provider, only for platform k3s",
        choices=Provider,
        default_doc="implied",
        doc="Only for `k3s`, where it is required: EC2 instances, Compute Engine VMs, or your own hosts over "
        "SSH. `eks` and `gke` imply `aws` and `gcp`: the key is refused there.",
    ),
    Field(
        "kubernetesVersion",
        "str",
        'Kubernetes minor version, quoted ("1.35")',
        required=True,
        doc='EKS: `"1.34"`, `"1.35"` or `"1.36"` (standard support in 2026-11). GKE: what the release '
        "channel offers (regular `1.34` to `1.36`, rapid `1.34` to `1.37`, stable `1.34` to `1.35`, GKE "
        "release notes 2026-09). k3s: `1.34` to `1.36`. Quote it: YAML reads `1.30` as `1.3`.",
    ),
    Field(
        "network",
        "object",
        "new VPC {cidr} or reuse {vpcId, subnetIds}",
        fields=NETWORK_FIELDS,
        specific=True,
        doc="The network the cluster's machines live in: a new one (`cidr`) or one you have.",
    ),
    Field(
        "apiAccessCidrs",
        "list[str]",
        "CIDRs allowed to reach the public API ([] = private only)",
        specific=True,
        doc="Who may reach the Kubernetes API. EKS/GKE: `[]` makes the endpoint private only. k3s on "
        "aws/gcp: at least one range (the machines that run `pulumi` and `kubectl`); the endpoint is "
        "internet-facing only when a range lies outside private space (10/8, 172.16/12, 192.168/16, "
        "100.64/10). Each is a network in CIDR form (a bare address is refused: write `/32`), listed once; "
        "EKS takes at most 40 public ones (private ranges become security group rules), GKE 50. "
        "Ranges that admit the whole internet (`0.0.0.0/0`, or "
        "`0.0.0.0/1` + `128.0.0.0/1`) draw a preflight warning.",
    ),
    Field(
        "adminPrincipalArns",
        "list[str]",
        "IAM principals given cluster-admin",
        specific=True,
        default_doc="`[]`",
        doc="IAM roles and users that administer the cluster: "
        "`arn:aws:iam::<account>:role/<path/name>` or `:user/<path/name>`. STS session ARNs "
        "(`assumed-role/...`), groups and the account root are refused. EKS: cluster-admin through access "
        "entries (access entries take none of the refused kinds); the cluster's creator is always an admin "
        "(EKS makes its entry), so its own role or user is skipped. k3s on EC2: administrators of the key "
        "that encrypts the servers' join secret, who may also read and write that secret through Secrets "
        "Manager, as whoever runs `pulumi up` may. List every role that deploys the stack (teammates, CI): "
        "the key policy names only the current caller and these, so a run by someone else would leave the "
        "others unable to refresh the secret.",
    ),
    Field(
        "supportType",
        "str",
        "EKS support policy (standard or extended)",
        choices=SupportType,
        specific=True,
        default_doc="`standard`",
        doc="The cluster's upgrade policy. `standard`: $0.10 per cluster-hour, and when a Kubernetes "
        "minor leaves standard support EKS upgrades the control plane itself. `extended`: 12 more months "
        "on a minor at $0.60 per cluster-hour (shown in the plan's costs).",
    ),
    Field(
        "logRetentionDays",
        "int",
        "EKS: days the control-plane log group keeps events",
        specific=True,
        default_doc="30",
        doc="gpukit creates the control-plane log group `/aws/eks/<name>/cluster` (so it is removed on "
        "destroy and never keeps events forever) with this retention, a value CloudWatch Logs takes: 1, "
        "3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288 "
        "or 3653.",
    ),
    Field(
        "autoscaler",
        "str",
        "EKS: what scales the GPU pools (karpenter or cluster-autoscaler)",
        choices=Autoscaler,
        specific=True,
        default_doc="`karpenter`",
        doc="What scales the GPU pools from zero and back. `karpenter` (AWS's recommended autoscaler for "
        "GPU nodes on EKS, see docs/eks-autoscaling.md): each GPU pool becomes a Karpenter "
        "NodePool (no node group), spot pools fall back to on-demand, GPU pools must have `minNodes: 0`, "
        "and the other pools are managed node groups of fixed size (`minNodes` = `maxNodes`). "
        "`cluster-autoscaler`: every pool is managed node groups scaled by the Kubernetes Cluster "
        "Autoscaler (what gpukit built before Karpenter: stacks deployed then set it to keep their "
        "node groups).",
    ),
    Field(
        "zone",
        "str",
        "GKE: a zonal cluster in this zone (default regional)",
        specific=True,
        default_doc="regional",
        doc="A zonal cluster in this zone of the region.",
    ),
    Field(
        "releaseChannel",
        "str",
        "GKE release channel",
        choices=ReleaseChannel,
        specific=True,
        default_doc="`regular`",
        doc="The GKE release channel.",
    ),
    Field(
        "deletionProtection",
        "bool",
        "GKE: refuse to destroy the cluster",
        specific=True,
        default_doc="`true`",
        doc="Refuse to destroy the cluster. Set `false` for ephemeral stacks.",
    ),
    Field(
        "k3sVersion",
        "str",
        "k3s: exact k3s release, e.g. v1.35.7+k3s1",
        specific=True,
        default_doc="gpukit's pin",
        doc="The exact k3s release, e.g. `v1.35.8+k3s1`. Its minor must match `kubernetesVersion`. The "
        "pins are v1.34.11, v1.35.8 and v1.36.4 (+k3s1), each with its binary's SHA-256 for amd64 and "
        "arm64; any other release needs `k3sSha256`.",
    ),
    Field(
        "apiAddress",
        "str",
        "k3s: address clients use for the API (default: first server)",
        specific=True,
        default_doc="first server",
        doc="The address kubectl and Pulumi reach the API at (port 6443). It goes into the server "
        "certificate; a loopback or unspecified address is refused. (On aws/gcp gpukit makes the address.)",
    ),
    Field(
        "insecureIgnoreHostKeys",
        "bool",
        "k3s over SSH: connect to hosts without a hostKey unchecked (insecure)",
        specific=True,
        default_doc="`false`",
        doc="Lets hosts and bastions without `hostKey` through, connected to without checking who answers: "
        "anyone who can intercept the connection gets the cluster's CA keys and join token. Keys that are "
        "given are still checked, and `gpukit plan` warns about every host it cannot check. For throwaway "
        "lab clusters only.",
    ),
    Field(
        "traefik",
        "bool",
        "k3s: keep k3s's packaged traefik ingress (default off)",
        specific=True,
        default_doc="`false`",
        doc="Keep k3s's packaged traefik ingress controller.",
    ),
    Field(
        "podSecurity",
        "str",
        "Pod Security Standard enforced by default (baseline)",
        choices=PodSecurityLevel,
        specific=True,
        default_doc="`baseline`",
        doc="k3s: the Pod Security Standard the API server enforces in every namespace without its own "
        "`pod-security.kubernetes.io/enforce` label; it warns and audits against `restricted` either "
        "way. `kube-system` is exempt, and gpukit labels the GPU Operator's namespace `privileged`. "
        "EKS and GKE, whose API servers take no cluster-wide default: gpukit labels the `default` "
        "namespace with it (enforce; audit and warn `restricted`); namespaces gpukit creates carry their "
        "own level, and namespaces you create need the label.",
    ),
    Field(
        "k3sSha256",
        "map[str]",
        "k3s: SHA-256 of the k3s binary per architecture (amd64, arm64)",
        specific=True,
        default_doc="gpukit's pins",
        doc="The SHA-256 of the `k3sVersion` binary, per architecture (`amd64`, `arm64`), from the "
        "release's `sha256sum-<arch>.txt`. Needed for every release gpukit has not pinned a sum for "
        "(it pins v1.34.11, v1.35.8 and v1.36.4, +k3s1, the releases `k3sVersion` defaults to): no "
        "machine runs a k3s binary that does not match.",
    ),
    Field(
        "tags",
        "map[str]",
        "extra tags on every cloud resource",
        specific=True,
        default_doc="`{}`",
        doc="Extra tags on every cloud resource. AWS: tags (every resource already carries `gpukit:cluster` "
        "and `managed-by`): at most 45 (AWS takes 50 per resource, gpukit sets up to 5), keys of 1-128 and "
        "values of 0-256 letters, digits, spaces and `+ - = . _ : / @`, no `aws:` prefix; keys gpukit sets "
        "itself (`Name`, `managed-by`, `gpukit:*`, `kubernetes.io/cluster/*`, `kubernetes.io/role/*`, "
        "`k8s.io/cluster-autoscaler/*`) are refused. Google Cloud (GKE, k3s on gcp): labels on every "
        "resource that takes labels, node VMs included, beside `gpukit-cluster` and `managed-by`; keys 1-63 "
        "characters starting with a lowercase letter, keys and values of lowercase letters, digits, `_` and "
        "`-` (values up to 63), at most 60 of them.",
    ),
)

MIG_FIELDS = (
    Field(
        "profile",
        "str",
        "MIG profile every GPU of the pool is cut into (or layout)",
        doc="A MIG profile of the pool's GPU model (`1g.10gb`, `3g.40gb` on H100 and A100-80GB; "
        "`gpukit plan` lists each model's). Every GPU gets as many instances as fit (the MIG manager's "
        "stock `all-<profile>` config). Set this or `layout`.",
    ),
    Field(
        "layout",
        "map[int]",
        "instances per profile on each GPU, e.g. {3g.40gb: 1, 1g.10gb: 4} (or profile)",
        doc="Instances of each profile on every GPU of the pool (`{3g.40gb: 1, 1g.10gb: 4}`): it must fit "
        "the GPU's compute and memory slices (the catalog's MIG geometry). Several profiles need "
        "`strategy: mixed`. gpukit writes it as a custom mig-parted config. Not on GKE. Set this or "
        "`profile`.",
    ),
    Field(
        "strategy",
        "str",
        "how MIG instances are advertised (default single)",
        choices=MigStrategy,
        default_doc="`single`",
        doc="`single`: instances are advertised as `nvidia.com/gpu` (one profile per pool); `mixed`: as "
        "`nvidia.com/mig-<profile>`. The GPU Operator's strategy is cluster-wide: every MIG pool of a "
        "cluster takes the same one.",
    ),
)

SHARING_FIELDS = (
    Field(
        "mode",
        "str",
        "none, time-slicing, mps or mig",
        required=True,
        choices=SharingMode,
        doc="`none` (whole GPUs, the default), `time-slicing`, `mps` or `mig`.",
    ),
    Field(
        "replicas",
        "int",
        "time-slicing and mps: pods per GPU, 2 to 48",
        doc="`time-slicing` and `mps` (required there): how many pods share each GPU, 2 to 48 (GKE's "
        "limit; gpukit keeps it everywhere so a stack moves between substrates unchanged).",
    ),
    Field(
        "mig",
        "object",
        "mode mig: {profile or layout, strategy?}",
        fields=MIG_FIELDS,
        doc="`mig` (required there): the profile or layout the pool's GPUs are cut into.",
    ),
)

GPU_FIELDS = (
    Field(
        "model",
        "str",
        "GPU model from the catalog",
        required=True,
        doc="A GPU model from the catalog, written as `nvidia-smi` or people write it: case, spaces, "
        "hyphens and the words NVIDIA, GeForce, Tesla and Generation do not matter (`NVIDIA GeForce RTX "
        "4090`, `rtx4090` and `4090` are all `RTX-4090`). A short name that fits several models (`A100`, "
        "`6000`) is refused with the candidates. Over SSH, a model gpukit does not know is accepted with "
        "`memoryGb` and `architecture` (see docs/gpus.md).",
    ),
    Field("count", "int", "GPUs per node", required=True, doc="GPUs per node."),
    Field(
        "memoryGb",
        "int",
        "SSH: memory per GPU in GB, for a model gpukit does not know",
        specific=True,
        doc="k3s over SSH, a model the catalog does not hold: memory per GPU in GB (1 to 1024). Needs "
        "`architecture`. Refused for a catalog model (the catalog already has it).",
    ),
    Field(
        "architecture",
        "str",
        "SSH: architecture, for a model gpukit does not know",
        choices=GpuArchitecture,
        specific=True,
        doc="k3s over SSH, a model the catalog does not hold: `volta`, `turing`, `ampere`, `ada`, "
        "`hopper` or `blackwell` (the CUDA compute capability list says which). Needs `memoryGb`. The "
        "plan checks CUDA and driver support by architecture and says what it cannot check (no "
        "driver minimum of the model, no MIG).",
    ),
    Field(
        "computeCapability",
        "str",
        "SSH: compute capability, for a model gpukit does not know (optional)",
        specific=True,
        doc="k3s over SSH, a model the catalog does not hold: its CUDA compute capability "
        "(`8.9`), shown in the plan; optional.",
    ),
)

POOL_FIELDS = (
    Field(
        "name",
        "str",
        "pool name",
        required=True,
        doc="Unique, at most 24 characters. It becomes the label `gpukit.dev/pool`.",
    ),
    Field(
        "instanceType",
        "str",
        "cloud instance type",
        specific=True,
        doc="An instance or machine type from the substrate's catalog (`providers/aws/catalog.py`, "
        "`providers/gcp/catalog.py`). The GPU model and count come from it.",
    ),
    Field(
        "minNodes",
        "int",
        "fewest nodes (0 lets a GPU pool scale to zero)",
        specific=True,
        doc="0 ≤ `minNodes` ≤ `maxNodes`. GPU pools may use 0.",
    ),
    Field(
        "maxNodes",
        "int",
        "most nodes the autoscaler may start",
        specific=True,
        doc="At least 1. The pool's total: on EKS a GPU pool's zone groups share it (see `zones`). EKS: "
        "at most 450 per managed node group (the default quota of nodes per managed node group). GKE: at "
        "most 1,000 per zone of the pool (and 15,000 over all pools).",
    ),
    Field(
        "capacity",
        "str",
        "purchase option (default on-demand)",
        choices=Capacity,
        specific=True,
        default_doc="`on-demand`",
        doc="The purchase option. k3s servers must be on-demand.",
    ),
    Field(
        "alternativeInstanceTypes",
        "list[str]",
        "spot pools: more instance types for the pool's groups (same GPUs per node)",
        specific=True,
        default_doc="`[]`",
        doc="Spot pools: more instance types the pool's groups may launch (same GPU model, count "
        "and CPU architecture), so spot requests draw on more capacity pools. EKS also needs the same "
        "vCPUs and memory: the Cluster Autoscaler builds one template node per group from the first type.",
    ),
    Field(
        "diskSizeGb",
        "int",
        "root volume size in GiB",
        specific=True,
        default_doc="100 for GPU pools, 50 otherwise",
        doc="The root volume in GiB (encrypted gp3 on AWS).",
    ),
    # No parser default: the key is EKS-only, so validation must see whether it was set.
    Field(
        "nodeImage",
        "str",
        "EKS node image family (default al2023)",
        choices=NodeImage,
        specific=True,
        default_doc="`al2023`",
        doc="The image family. GPU pools use its NVIDIA variant. (GKE picks COS or Ubuntu from the driver "
        "mode.)",
    ),
    Field(
        "role",
        "str",
        "k3s node role (default agent)",
        choices=NodeRole,
        specific=True,
        default_doc="`agent`",
        doc="Servers run the control plane. Over SSH the cluster needs 1 server host, or an odd number "
        "(3 for HA with embedded etcd). On aws/gcp exactly one pool is the server pool: a machine type "
        "without GPUs, on-demand, `minNodes` = `maxNodes` = 1 or 3.",
    ),
    Field(
        "schedulable",
        "bool",
        "k3s server pool: run workloads on the servers too",
        specific=True,
        default_doc="`false`",
        doc="Server pool only. While the cluster has agent pools, servers carry "
        "`CriticalAddonsOnly=true:NoExecute` and run the control plane and system add-ons only; `true` "
        "lets workloads run there too. A cluster without agents always runs workloads on its servers.",
    ),
    Field(
        "hosts",
        "list[object]",
        "existing SSH hosts",
        fields=HOST_FIELDS,
        specific=True,
        doc="The pool's existing machines, each joined once (required there).",
    ),
    Field(
        "sharing",
        "object",
        "GPU pools: how pods share the pool's GPUs {mode, replicas?, mig?}",
        fields=SHARING_FIELDS,
        specific=True,
        default_doc="whole GPUs",
        doc="GPU pools only: how pods share the pool's GPUs (see docs/gpu-sharing.md). "
        "`time-slicing`: `replicas` pods take turns on each GPU, with no memory or fault isolation. "
        "`mps`: `replicas` pods run at once on each GPU, each limited to 1/`replicas` of its memory and "
        "compute. `mig`: each GPU is cut into hardware-isolated instances of `mig.profile` (MIG-capable "
        "models only). EKS (AL2023 images), k3s and GKE with `driver: operator` apply it through the GPU "
        "Operator: a device-plugin config, the MIG manager and node labels per pool. GKE with `driver: "
        "preinstalled` uses the node pool's own fields (`gpu_sharing_config`, `gpu_partition_size`; "
        "MIG on A100, H100, H200 and B200 only). GKE takes MIG with `strategy: single` only.",
    ),
    Field(
        "gpu",
        "object",
        "GPUs per node {model, count}",
        fields=GPU_FIELDS,
        default_doc="from the machine",
        doc="GPUs per node. Google Cloud N1 machines take attached T4s this way (`{model: T4, count: N}`, "
        "N 1, 2 or 4); where the machine fixes its GPUs the key is refused (it would change nothing). Over "
        "SSH: the GPUs each host of the pool has, checked by its preflight.",
    ),
    Field(
        "zones",
        "list[str]",
        "zones for this pool",
        specific=True,
        default_doc="see meaning",
        doc="Zones for this pool. GKE: by default a GPU pool goes to every zone of the region that offers "
        "its GPU, and a CPU pool to the cluster's zones. G4 (RTX PRO 6000) pools must name their zones: no "
        "sourced zone list exists. EKS: AZ IDs (`usw2-az1`; `aws ec2 describe-availability-zones` maps "
        "them to your account's zone names), the same in every account. A GPU pool becomes one node "
        "group per zone (balanced by the autoscaler); its `minNodes` and `maxNodes` stay the pool's "
        "totals, split as evenly as possible over the zones, so `maxNodes` must be at least the number "
        "of zones. Left out on an EKS GPU pool: under Karpenter, the zones of the cluster's subnets that "
        "offer the type (Karpenter picks); with managed node groups, the VPC's zones that EC2 says offer "
        "every type of the pool (`DescribeInstanceTypeOfferings`, asked when `pulumi up` runs: the plan "
        "says so), one group each, as many as `maxNodes` allows. Never `use1-az3`, `usw1-az2` or "
        "`cac1-az3`, where EKS refuses subnets. A new VPC always has a subnet in every pinned zone; a "
        "reused VPC's subnets are checked at `pulumi up`. A CPU pool with zones keeps one group over those "
        "zones.",
    ),
    Field(
        "compactPlacement",
        "bool",
        "GKE: place the pool's nodes close together in one zone",
        specific=True,
        default_doc="`false`",
        doc="A compact placement policy: the pool's nodes sit physically close within one zone (lower "
        "latency between them, for tightly coupled multi-node training). Only for machines GKE places "
        "compactly (C2, C2D, C3, C3D, C4D, H3, H4D, N2, N2D, and A100, L4 and H100 GPU machines) and a pool "
        "in exactly one zone (`zones` with one entry, or a zonal cluster).",
    ),
    Field(
        "provisioning",
        "str",
        "GPU pools: how a gang gets its nodes (queued: all at once, through a ProvisioningRequest)",
        choices=Provisioning,
        default_doc="`standard`",
        doc="`standard`: nodes start for pending pods. `queued`: Kueue asks the autoscaler for all of a "
        "gang's nodes in one ProvisioningRequest and admits the gang once they are there; needs "
        "`gpukit:batch.enabled`. GKE: a flex-start node pool with queued provisioning "
        "(`queued-provisioning.gke.io`: GKE starts every node at once or none; on-demand, `minNodes: 0`, "
        "no `compactPlacement`, no auto-repair; its nodes come only through ProvisioningRequests, so the "
        "per-pool verification runs as the batch gang check). EKS with the Cluster Autoscaler, k3s on "
        "EC2 and on Compute Engine: the autoscaler's `best-effort-atomic-scale-up.autoscaling.x-k8s.io` "
        "(the whole gang in one scale-up; Auto Scaling groups and instance groups do not make it atomic, "
        "so a gang short of capacity is requeued by gang admission). Not with Karpenter (it implements "
        "no ProvisioningRequest) or existing hosts (fixed capacity). docs/batch.md.",
    ),
    Field(
        "interconnect",
        "str",
        "GPU pools: the machine's fast fabric between nodes (auto) or the ordinary network (none)",
        choices=Interconnect,
        specific=True,
        default_doc="`auto`",
        doc="`auto`: the machine's fast fabric for multi-node training, where it has one. EKS: EFA "
        "on types with 4 or more EFA interfaces (p4d, p4de, p5, p5e, p5en, p6-b200, g6e.48xlarge, "
        "g7e.48xlarge): its EFA interfaces (an ENA primary, the rest EFA-only), a cluster placement group, "
        "a security group open to itself and the EFA device plugin; pods request `vpc.amazonaws.com/efa`. "
        "GKE: the GPU NICs of a3-highgpu-8g (GPUDirect-TCPX, 4), a3-megagpu-8g (GPUDirect-TCPXO, 8), "
        "a3-ultragpu-8g and a4-highgpu-8g (GPUDirect RDMA, 8): their extra VPCs "
        "(`cluster.network.gpuNetworksCidr`), multi-networking and the Kubernetes networks pods attach "
        "through annotations, compact placement where GKE offers it. Either way the pool sits in exactly "
        "one zone. Other machines run on the ordinary network, and asking for `auto` there is refused. "
        "Left out, a pool gets its fabric only where it pins one zone. `none`: the ordinary network on "
        "any machine (a pool that must span zones, say). The plan says per pool what `auto` resolved to. "
        "docs/interconnect.md.",
    ),
)

GPU_OPERATOR_FIELDS = (
    Field(
        "chartVersion",
        "str",
        "gpu-operator chart version",
        default="v26.7.0",
        doc="Only versions whose values gpukit has checked against the chart are accepted.",
    ),
    Field(
        "driver",
        "str",
        "who provides the NVIDIA driver",
        default="preinstalled",
        choices=DriverMode,
        doc="Who provides the NVIDIA driver. On EKS the AL2023 and Bottlerocket NVIDIA images ship driver "
        "R580 and the container toolkit (`operator` needs an Ubuntu EKS image, not built yet). On GKE "
        "`preinstalled` means GKE installs and manages the driver, device plugin and DCGM metrics; "
        "`operator` means Ubuntu nodes on which the GPU Operator installs driver R595 and the whole GPU "
        "stack (not for A3, A4 and G4, which need gVNIC and so COS nodes). "
        "On k3s: the image (or your host) ships the driver, or the Operator installs it; the "
        "Operator's container toolkit runs either way.",
    ),
    Field(
        "gkeDriverVersion",
        "str",
        "GKE-installed driver (preinstalled)",
        choices=GkeDriverVersion,
        specific=True,
        default_doc="`default`",
        doc="With `preinstalled`: GKE's DEFAULT driver (older than R580; preflight assumes R535) or LATEST "
        "(R580 or newer, needed for CUDA 13 images).",
    ),
)

WORKLOADS_FIELDS = (
    Field(
        "cudaVersion",
        "str",
        'newest CUDA version your images use, quoted ("12.8")',
        default_doc="unset",
        doc="The newest CUDA version your images are built for. It is checked against each GPU pool's "
        "driver branch: an error when the driver cannot run it, and a warning when the driver runs it "
        "only through minor-version compatibility.",
    ),
)

BUDGET_FIELDS = (
    Field(
        "maxHourlyCost",
        "number",
        "the most the stack may cost per hour at max nodes, USD (> 0)",
        default_doc="unset",
        doc="The most the stack may cost per hour with every pool at `maxNodes`, in USD at list prices "
        "for the stack's region (the plan's \"total at max\"). `gpukit plan` exits 1 and `pulumi up` "
        "stops before creating anything when the cost at max nodes is above it, naming the pools that "
        "drive it, largest first. Spot pools count at the on-demand price (they may fall back to it).",
    ),
    Field(
        "allowUnpriced",
        "bool",
        "accept a lower-bound cost when a pool has no price in the region",
        default_doc="false",
        doc="When a pool's machine has no list price in the stack's region, the cost at max nodes is only a "
        "lower bound and cannot prove the budget holds: by default that refuses the stack too (exit 1). "
        "`true` checks the lower bound against `maxHourlyCost` and only warns about the unpriced pools.",
    ),
)

NFS_FIELDS = (
    Field(
        "server",
        "str",
        "NFS server address of an existing export (with path)",
        doc="The address of an NFS server you run, with `path`: gpukit mounts its export and changes "
        "nothing on it.",
    ),
    Field(
        "path", "str", "the export's path on server", doc="The exported directory on `server` (`/srv/nfs`)."
    ),
    Field(
        "host",
        "str",
        "k3s over SSH: address of a cluster host gpukit makes the NFS server",
        doc="The `address` of one of the cluster's SSH hosts: gpukit sets up an NFS server there. Not highly "
        "available: the volume is down while that host is.",
    ),
)

SHARED_VOLUME_FIELDS = (
    Field(
        "name",
        "str",
        "volume name",
        required=True,
        doc="Lowercase letters, digits and `-`, at most 24 characters, unique. Claims use the StorageClass "
        "`shared-<name>`.",
    ),
    Field(
        "kind",
        "str",
        "backend, or auto",
        required=True,
        choices=StorageKind,
        doc="The backend: `auto` picks one for the substrate, `role` and `throughputMbps` (the plan says "
        "which and why). EKS: `efs`, `fsx-lustre`, `s3`; GKE: `filestore`, `gcs-fuse`, `managed-lustre`; "
        "k3s: `nfs`.",
    ),
    Field(
        "role",
        "str",
        "what the volume is for: datasets, checkpoints or model-cache",
        required=True,
        choices=StorageRole,
        doc="What the volume is for; it drives `kind: auto` (checkpoints need full POSIX writes, so never a "
        "bucket).",
    ),
    Field(
        "sizeGb",
        "int",
        "size in GiB",
        required=True,
        doc="The size in GiB, within the backend's range and step. Elastic backends (efs, s3, gcs-fuse) grow "
        "as data is written: there it is the size the plan prices.",
    ),
    Field(
        "throughputMbps",
        "int",
        "MB/s the volume must deliver (optional)",
        doc="The throughput the volume must deliver, MB/s. `auto` picks a backend that gives it at "
        "`sizeGb`, and a backend with tiers its first tier that does; refused where none can.",
    ),
    Field(
        "tier",
        "str",
        "backend performance tier (optional)",
        default_doc="the backend's first tier that fits",
        doc="A performance tier of the backend, by name (`gpukit plan` lists them when a name is wrong).",
    ),
    Field(
        "bucket",
        "input",
        "s3, gcs-fuse: existing bucket to mount",
        doc="`s3` and `gcs-fuse` (required there): an existing bucket the volume mounts; gpukit never "
        "creates or deletes it. `auto` picks a bucket backend only where it is set.",
    ),
    Field(
        "nfs",
        "object",
        "nfs: {server, path} of an export, or {host}",
        fields=NFS_FIELDS,
        doc="`nfs` only: an existing export (`server`, `path`), or a host of the cluster gpukit makes the "
        "server (`host`, k3s over SSH). On k3s over aws/gcp, leave it out for a small VM gpukit makes.",
    ),
    Field(
        "zone",
        "str",
        "fsx-lustre, zonal filestore tiers: the zone its file system lives in (optional)",
        default_doc="the zone of the GPU pool with the most GPUs at maxNodes",
        doc="`fsx-lustre` (an AZ ID a node pool pins, e.g. `use1-az4`) and the one-zone `filestore` tiers "
        "`basic-hdd`, `basic-ssd`, `zonal`, `zonal-large` (a zone a node pool runs in, e.g. "
        "`us-central1-a`): the zone of its single-zone file system. Set it: unset, gpukit places the file "
        "system next to the GPU pool with the most GPUs at `maxNodes`, so changing the pools can move it, "
        "and a change of zone (or of `name`) replaces the file system and the data on it.",
    ),
)

STORAGE_FIELDS = (
    Field(
        "shared",
        "list[object]",
        "shared ReadWriteMany volumes",
        fields=SHARED_VOLUME_FIELDS,
        default_doc="`[]`",
        doc="Shared ReadWriteMany volumes, each a StorageClass `shared-<name>` pods claim.",
    ),
)

VERIFICATION_TIMEOUT_DEFAULT = 20
VERIFICATION_TIMEOUT_RANGE = (5, 120)
VERIFICATION_FIELDS = (
    Field(
        "enabled",
        "bool",
        "verify every GPU pool with a Job at `pulumi up`",
        default=False,
        default_doc="`false`",
        doc="`true`: after the GPU stack is installed, one Kubernetes Job per GPU pool requests one GPU unit "
        "there, runs NVIDIA's CUDA vectorAdd sample and checks the GPU model, its memory and the pool's "
        "sharing; `pulumi up` waits for the Jobs and fails naming the pool whose check failed. A pool at "
        "`minNodes: 0` is scaled to one node for it (the plan states the cost). See docs/verification.md. "
        "Ephemeral stacks turn it on.",
    ),
    Field(
        "timeoutMinutes",
        "int",
        "minutes a pool's verification may take, 5 to 120",
        default=VERIFICATION_TIMEOUT_DEFAULT,
        doc="How long each pool's Job may take, node start from zero and GPU stack start-up included, "
        "before it fails (`activeDeadlineSeconds`) and `pulumi up` with it. 5 to 120.",
    ),
    Field(
        "nccl",
        "bool",
        "check the fabric between two nodes of each fabric pool with an NCCL all-reduce at `pulumi up`",
        default=False,
        default_doc="`false`",
        doc="`true`: for every EFA pool (`nodePools[].interconnect`; not yet GKE's GPUDirect pools) whose "
        "`maxNodes` is 2 or more, two nodes run nccl-tests' all_reduce_perf (8 B to 16 GiB) over the "
        "fabric; `pulumi up` fails naming the pool when NCCL falls back to sockets, does not use the "
        "fabric's plugin (or GPUDirect RDMA where the machine has it), or the bus bandwidth at the "
        "largest message is below the machine's published gate. It takes `timeoutMinutes`; the plan "
        "states what the two nodes cost. Independent of `enabled`. See docs/interconnect.md.",
    ),
)

QUOTA_FIELDS = (
    Field(
        "pool",
        "str",
        "the pool the quota is on (or gpuModel)",
        doc="A GPU pool's `name`. Give this or `gpuModel`.",
    ),
    Field(
        "gpuModel",
        "str",
        "the GPU model the quota is on, over every pool of it (or pool)",
        doc="A GPU model (`H100`, as `gpukit plan` names pools' GPUs): the quota covers every pool of that "
        "model, split over them by their capacity at `maxNodes`.",
    ),
    Field(
        "resource",
        "str",
        "what a pod requests: nvidia.com/gpu or nvidia.com/mig-<profile>",
        default_doc="the pool's one resource",
        doc="The resource pods request, as the pool advertises it: `nvidia.com/gpu` (whole GPUs, and "
        "time-sliced or MPS shares, and MIG instances with `strategy: single`) or "
        "`nvidia.com/mig-<profile>` (MIG with `strategy: mixed`). Required only where the pool "
        "advertises more than one.",
    ),
    Field(
        "count",
        "int",
        "units of the resource the queue may use",
        required=True,
        doc="How many units (GPUs, shares or MIG instances: what pods request) the queue's admitted "
        "workloads may hold at once. A count above what the pool has at `maxNodes` is accepted and "
        "flagged by the plan: the queue can never use it all.",
    ),
    Field(
        "borrowingLimit",
        "int",
        "units the queue may borrow from its cohort beyond count",
        default_doc="no limit",
        doc="With `cohort`: how many units beyond `count` the queue may borrow from its cohort's unused "
        "quota. Without `cohort` it is refused (there is nothing to borrow from).",
    ),
)

QUEUE_FIELDS = (
    Field(
        "name",
        "str",
        "queue (team) name",
        required=True,
        doc="Lowercase letters, digits and `-`, at most 63 characters, unique. It names the ClusterQueue and "
        "the LocalQueue in each namespace: jobs join with the label `kueue.x-k8s.io/queue-name: <name>`.",
    ),
    Field(
        "namespaces",
        "list[str]",
        "the team's namespaces",
        required=True,
        doc="The namespaces whose jobs use the queue: gpukit creates them (except `default`, which "
        "exists) and a LocalQueue in each. Only they may submit to the queue.",
    ),
    Field(
        "quotas",
        "list[object]",
        "GPU quotas [{pool | gpuModel, resource?, count, borrowingLimit?}]",
        fields=QUOTA_FIELDS,
        default_doc="every GPU pool's capacity at maxNodes",
        doc="The queue's GPU quotas. Unset: every GPU pool, its whole capacity at `maxNodes`.",
    ),
    Field(
        "cohort",
        "str",
        "cohort whose queues lend each other unused quota",
        default_doc="none",
        doc="Queues of the same cohort borrow each other's unused quota (up to `borrowingLimit`).",
    ),
    Field(
        "priorityClass",
        "str",
        "default priority of the queue's workloads (a priorityClasses name)",
        default_doc="none",
        doc="A name of `priorityClasses`. Workloads pick one with the label "
        "`kueue.x-k8s.io/priority-class`; the queue's docs/batch.md example sets it.",
    ),
)

PRIORITY_CLASS_FIELDS = (
    Field("name", "str", "priority class name", required=True, doc="Lowercase letters, digits and `-`."),
    Field(
        "value",
        "int",
        "priority (higher is admitted first)",
        required=True,
        doc="Higher is admitted first, and may preempt lower within its queue.",
    ),
)

GANG_TIMEOUT_DEFAULT = 30
GANG_TIMEOUT_RANGE = (5, 1440)
GANG_FIELDS = (
    Field(
        "timeoutMinutes",
        "int",
        "minutes an admitted gang may take to get all its pods running, 5 to 1440",
        default=GANG_TIMEOUT_DEFAULT,
        doc="Kueue's waitForPodsReady, which Kueue v0.19 always applies (its v1beta2 Configuration has no "
        "switch for it): an admitted workload must have all its pods running within this many minutes, "
        "node start-up from zero included, else it is evicted, gives back its quota (and so its nodes) "
        "and is requeued with backoff (60 s doubling to an hour). 5 to 1440; Kueue's default is 30.",
    ),
    Field(
        "blockAdmission",
        "bool",
        "admit nothing else while an admitted gang waits for its pods",
        default=True,
        doc="`true` (gpukit's default; Kueue's is false): while one admitted workload waits for its pods, "
        "no other is admitted, so two gangs never each hold part of the nodes they both need (which "
        "matters where quotas exceed what is running: autoscaled pools). `false` admits in parallel: "
        "more throughput for small jobs, at that risk.",
    ),
)

TRAINING_OPERATOR_FIELDS = (
    Field(
        "enabled",
        "bool",
        "install Kubeflow Trainer v2 and JobSet",
        default=True,
        doc="Kubeflow Trainer v2 (TrainJob, ClusterTrainingRuntime) with JobSet, and a PyTorch "
        "ClusterTrainingRuntime per GPU pool (`torch-<pool>`).",
    ),
)

BATCH_FIELDS = (
    Field(
        "enabled",
        "bool",
        "install Kueue with the queues below",
        default=False,
        doc="`true`: Kueue, pinned, with a ResourceFlavor per GPU pool, a ClusterQueue per queue and a "
        "LocalQueue per namespace (docs/batch.md).",
    ),
    Field(
        "queues",
        "list[object]",
        "team queues [{name, namespaces, quotas?, cohort?, priorityClass?}]",
        fields=QUEUE_FIELDS,
        default_doc="one queue `gpus` in namespace `default` with every GPU pool at maxNodes",
        doc="The teams' queues. Unset: one queue `gpus`, in namespace `default`, with every GPU pool's "
        "whole capacity at `maxNodes`.",
    ),
    Field(
        "priorityClasses",
        "list[object]",
        "workload priority classes [{name, value}]",
        fields=PRIORITY_CLASS_FIELDS,
        default_doc="`[]`",
        doc="Kueue WorkloadPriorityClasses.",
    ),
    Field(
        "gangScheduling",
        "object",
        "all-or-nothing admission {timeoutMinutes, blockAdmission}",
        default={},
        fields=GANG_FIELDS,
        doc="Gang admission: a workload's pods all run, or it gives its quota back and is requeued.",
    ),
    Field(
        "trainingOperator",
        "object",
        "Kubeflow Trainer v2 {enabled}",
        default={},
        fields=TRAINING_OPERATOR_FIELDS,
        doc="The training operator.",
    ),
    Field(
        "topologyAware",
        "bool",
        "Kueue topology-aware scheduling over the GPU pools' nodes",
        default_doc="`false`",
        doc="`true`: a Kueue Topology (zone, then node, on EKS and GKE; node only on k3s, whose nodes "
        "carry no zone label) referenced by every GPU pool's ResourceFlavor, so a job can ask for its "
        "pods in one zone or on one node (`kueue.x-k8s.io/podset-required-topology`) and every other job "
        "is placed by Kueue too. Kueue counts only nodes that exist, so every GPU pool must have them "
        "before a gang is admitted: `provisioning: queued` (its ProvisioningRequest brings them) or "
        "`minNodes` equal to `maxNodes` (existing hosts always are); not with Karpenter, whose GPU pools "
        "start at 0. docs/batch.md.",
    ),
)

RETENTION_DAYS_DEFAULT = 15
RETENTION_DAYS_RANGE = (1, 90)
INFERENCE_METRICS_FIELDS = (
    Field(
        "enabled",
        "bool",
        "collect GPU and workload metrics into the substrate's metrics store",
        default_doc="`inference.enabled`",
        doc="`true`: the substrate's natural metrics store collects the GPU metrics (DCGM, per GPU and, for "
        'whole GPUs and MIG, per pod) and every pod labelled `gpukit.dev/metrics: "true"` on its container '
        "port named `metrics` "
        "(docs/inference.md). GKE: Google Cloud Managed Service for Prometheus (managed collection). EKS and "
        "k3s: an in-cluster Prometheus (kube-prometheus-stack, pinned) on a volume of the default "
        "StorageClass sized from the pools' maximum.",
    ),
    Field(
        "retentionDays",
        "int",
        "days the in-cluster Prometheus keeps samples, 1 to 90",
        default_doc="15",
        doc="How long the in-cluster Prometheus (EKS, k3s) keeps samples, 1 to 90; its volume is sized for "
        "it at the pools' maximum. GKE's managed store keeps samples 24 months whatever is set, so the key "
        "is refused there.",
    ),
    Field(
        "amazonManagedPrometheus",
        "object",
        "remote-write to an Amazon Managed Service for Prometheus workspace",
        planned="remote-write to Amazon Managed Service for Prometheus",
        doc="Planned: remote-write from the in-cluster Prometheus to an AMP workspace (EKS).",
    ),
)

INFERENCE_AUTOSCALING_FIELDS = (
    Field(
        "enabled",
        "bool",
        "install KEDA to scale pods on the metrics store's queries",
        default_doc="`inference.enabled`",
        doc="`true`: KEDA (pinned), whose Prometheus scaler scales a Deployment on any PromQL query of the "
        "metrics store (a model server's queue depth, a GPU's utilisation), down to zero replicas where the "
        "ScaledObject allows it. Needs `inference.metrics`. docs/inference.md has the ScaledObjects.",
    ),
)

GATEWAY_ALLOWED_CIDRS_MAX = 15
"""EKS: EKS's service controller adds two inbound rules per range to the nodes' security group (the
gateway's node port, and ICMP for path MTU discovery), besides one for its health checks; a group holds
60 inbound rules by default, shared with the cluster's own: 15 ranges leave the rest room."""
INFERENCE_GATEWAY_FIELDS = (
    Field(
        "enabled",
        "bool",
        "a Gateway for model servers' HTTPRoutes",
        default_doc="`inference.enabled`",
        doc=(
            "`true`: the Gateway API CRDs (standard channel), the substrate's implementation and one "
            "Gateway, `gpukit-inference` in namespace `gpukit-gateway`, listening for HTTP on port 80; "
            'HTTPRoutes attach from namespaces labelled `gpukit.dev/gateway: "true"`. '
            "EKS: Envoy Gateway (pinned) behind a Network Load Balancer. "
            "GKE: GKE's own Gateway controller (the cluster's Gateway API channel, a proxy-only subnet in a "
            "network gpukit creates). "
            "k3s: Envoy Gateway on node port 30080 of the nodes without GPUs. "
            "docs/inference.md has an HTTPRoute."
        ),
    ),
    Field(
        "className",
        "str",
        "the Gateway's GatewayClass",
        default_doc="EKS and k3s `envoy-gateway`; GKE `gke-l7-rilb`",
        doc="EKS and k3s: `envoy-gateway` (the GatewayClass gpukit makes for Envoy Gateway). GKE: "
        "`gke-l7-rilb` (the regional internal Application Load Balancer); the external classes "
        "(`gke-l7-regional-external-managed`, `gke-l7-global-external-managed`) are refused until gpukit "
        "can hold them to `allowedCidrs` (Cloud Armor).",
    ),
    Field(
        "allowedCidrs",
        "list[str]",
        "client ranges the Gateway admits ([] = the cluster's network only)",
        default_doc="`[]`",
        doc=(
            "Who may reach the Gateway. `[]`: the cluster's network only (a new VPC's range, or private "
            "address space in a network you bring or on your own hosts). "
            "EKS: the ranges the Network Load Balancer admits (the nodes' security group), internet-facing "
            "when a range lies outside private space. "
            "k3s: the ranges Envoy admits (a client-address policy) and, on EC2 and Compute Engine, the "
            "cloud firewall opens to the node port: private ranges only there (the machines have no public "
            "address gpukit serves on). "
            f"At most {GATEWAY_ALLOWED_CIDRS_MAX}. A range that admits the whole internet is taken as said "
            "and draws a warning. "
            "GKE's internal class admits its VPC only: the key is refused there."
        ),
    ),
)

INFERENCE_FIELDS = (
    Field(
        "enabled",
        "bool",
        "turn on metrics, autoscaling and the gateway for inference serving",
        default=False,
        default_doc="`false`",
        doc="`true`: every part below that is not switched off on its own (`metrics`, `autoscaling`, "
        "`gateway` where the substrate has one), with "
        "the defaults docs/inference.md states.",
    ),
    Field(
        "metrics",
        "object",
        "GPU and workload metrics {enabled, retentionDays}",
        default={},
        fields=INFERENCE_METRICS_FIELDS,
        doc="The metrics store and what it collects.",
    ),
    Field(
        "autoscaling",
        "object",
        "pod autoscaling on custom metrics {enabled}",
        default={},
        fields=INFERENCE_AUTOSCALING_FIELDS,
        doc="Pod autoscaling on the metrics store's queries.",
    ),
    Field(
        "gateway",
        "object",
        "a Gateway API gateway for model servers {enabled, className, allowedCidrs}",
        default={},
        fields=INFERENCE_GATEWAY_FIELDS,
        doc="One Gateway (Gateway API, standard channel) that model servers' HTTPRoutes attach to, reachable "
        "only from the cluster's network unless `allowedCidrs` opens it.",
    ),
)

EPHEMERAL_FIELDS = (
    Field(
        "expiresAt",
        "str",
        "when an ephemeral stack expires, RFC 3339 UTC (set by `gpukit ephemeral up`)",
        default_doc="unset",
        doc="Set by `gpukit ephemeral up --ttl` (docs/ephemeral.md), not by hand: the time after which "
        "`gpukit ephemeral reap` destroys the stack, RFC 3339 in UTC with whole seconds "
        "(`2026-12-01T15:30:00Z`). Every AWS resource gets the tag and every Google Cloud resource the "
        "label `gpukit-expires-at` with the UTC minute (`20261201t1530z`, a value both clouds accept). "
        "Clouds only (k3s over SSH has no cloud resources to tag).",
    ),
)

TOP_LEVEL_FIELDS = (
    Field(
        "cluster",
        "object",
        "the cluster",
        required=True,
        fields=CLUSTER_FIELDS,
        doc="The cluster: where it runs, its Kubernetes version, its network and who reaches its API.",
    ),
    Field(
        "nodePools",
        "list[object]",
        "the node pools",
        required=True,
        fields=POOL_FIELDS,
        doc="The node pools, a list. On EKS and GKE at least one non-GPU pool must have `minNodes` of 1 or "
        "more: it hosts CoreDNS, the GPU Operator and the autoscaler (on k3s the servers host them). On "
        "k3s over aws/gcp, agent pools are created at `minNodes` and the Cluster Autoscaler on the servers "
        "then sizes them between `minNodes` and `maxNodes` (a GPU pool at `minNodes: 0` costs nothing "
        "while idle). k3s over SSH does not scale: a pool is the hosts it lists (`gpukit plan` says so per "
        "pool). SSH pools take `name`, `role`, `hosts` and `gpu` only.",
    ),
    Field(
        "gpuOperator",
        "object",
        "the NVIDIA GPU Operator",
        default={},
        fields=GPU_OPERATOR_FIELDS,
        doc="The NVIDIA GPU Operator and who provides the driver.",
    ),
    Field(
        "workloads",
        "object",
        "what the cluster's workloads need",
        default={},
        fields=WORKLOADS_FIELDS,
        doc="What the cluster's workloads need, checked against the pools.",
    ),
    Field(
        "budget",
        "object",
        "the stack's cost limit",
        fields=BUDGET_FIELDS,
        specific=True,
        doc="A cost limit the stack is checked against before anything is created. Clouds only: machines "
        "you own (provider ssh) have no list price, so a budget there could not be checked and is refused.",
    ),
    Field(
        "verification",
        "object",
        "GPU verification Jobs at `pulumi up`",
        default={},
        fields=VERIFICATION_FIELDS,
        doc="Whether `pulumi up` proves each GPU pool works (a Job per pool), and how long it may take.",
    ),
    Field(
        "batch",
        "object",
        "queued batch and training: Kueue queues with GPU quotas, gang admission, Kubeflow Trainer",
        default={},
        fields=BATCH_FIELDS,
        doc="Queued batch jobs and multi-node training (see docs/batch.md). Off by default.",
    ),
    Field(
        "inference",
        "object",
        "inference serving: GPU and workload metrics, pod autoscaling on them",
        default={},
        fields=INFERENCE_FIELDS,
        doc="What serving models needs beyond GPUs (see docs/inference.md). Off by default.",
    ),
    Field(
        "ephemeral",
        "object",
        "ephemeral stack settings",
        fields=EPHEMERAL_FIELDS,
        specific=True,
        doc="What `gpukit ephemeral up` records on a throwaway stack: its expiry, tagged on every cloud "
        "resource. Clouds only: k3s over SSH creates no cloud resources to tag, so the key is refused there "
        "(an ephemeral k3s-ssh stack keeps its expiry on the Pulumi stack only).",
    ),
    Field(
        "sshPrivateKey",
        "secret",
        "SSH private key for provider ssh (pulumi config set --secret)",
        specific=True,
        doc="The private key gpukit logs in to the hosts with (required there). It must be stored encrypted "
        "(`pulumi config set --secret gpukit:sshPrivateKey < ~/.ssh/id_ed25519`) and is refused in plain "
        "text. It reaches the hosts only as the SSH connection's key, and never appears in a plan, an "
        "output or a file.",
    ),
    Field(
        "storage",
        "object",
        "shared storage {shared: [...]}",
        default={},
        fields=STORAGE_FIELDS,
        doc="Shared storage the cluster's pods mount (see docs/shared-storage.md).",
    ),
)

# Key groups substrates build their `accepts` and `requires` from (schema paths, see schema_paths).
CLOUD_MACHINE_REQUIRED = frozenset(
    {
        "cluster.network",
        "cluster.apiAccessCidrs",
        "nodePools.instanceType",
        "nodePools.minNodes",
        "nodePools.maxNodes",
    }
)
"""What every substrate that creates machines from a cloud catalog needs."""
CLOUD_MACHINE_KEYS = CLOUD_MACHINE_REQUIRED | {
    "nodePools.capacity",
    "nodePools.diskSizeGb",
    "budget",
    "ephemeral",
}
"""What every substrate that creates machines from a cloud catalog takes."""
K3S_KEYS = frozenset(
    {
        "cluster.k3sVersion",
        "cluster.k3sSha256",
        "cluster.traefik",
        "cluster.podSecurity",
        "nodePools.role",
        "nodePools.schedulable",
        "nodePools.sharing",
    }
)
"""What every k3s substrate takes."""


def schema_paths(fields: tuple[Field, ...] = TOP_LEVEL_FIELDS, prefix: str = "") -> list[tuple[str, Field]]:
    """Every field with its path: `cluster.network.vpcId`, `nodePools.hosts.bastion.port`."""
    found: list[tuple[str, Field]] = []
    for field in fields:
        path = f"{prefix}{field.key}"
        found.append((path, field))
        found += schema_paths(field.fields, f"{path}.")
    return found


def filled_default(field: Field) -> Any:
    """A field's default with its own fields' defaults filled in (`gpuOperator`: chart and driver)."""
    if field.kind == "object" and isinstance(field.default, dict):
        inner = {f.key: default for f in field.fields if (default := filled_default(f)) is not None}
        return {**inner, **field.default}
    return field.default


def project_defaults() -> dict[str, Any]:
    """The defaults of the top-level keys, as Pulumi.yaml declares them (full keys)."""
    return {f"{NAMESPACE}:{f.key}": filled_default(f) for f in TOP_LEVEL_FIELDS if f.default is not None}

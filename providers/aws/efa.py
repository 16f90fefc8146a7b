"""EFA on EC2: the network interfaces an EFA pool's machines launch with, and the facts its pods and the
Cluster Autoscaler need. Pure: managed node groups' launch templates (eks/node_group.py) and
Karpenter's EC2NodeClass (eks/karpenter_objects.py) both take the layout from here.

The layout is EC2's current recommendation for machines with several network cards (EC2 user guide,
"Maximize network bandwidth on Amazon EC2 instances with multiple network cards", read 2026-12):
- network card 0, device index 0: an ENA interface (`interface`), the node's primary: "You can't use
  an EFA-only network interface as the primary network interface";
- network card 0, device index 1: an EFA-only interface (card 0 of every type gpukit attaches EFA to
  supports EFA);
- every further card up to the machine's EFA count: an EFA-only interface at device index 0.
So a p5.48xlarge gets 1 ENA and 32 EFA-only interfaces; the EKS user guide's p6-b200 example is the
same shape (device-management-efa, awsdocs/amazon-eks-user-guide@43d79bdbc308). Why not the older
layout (an `efa` primary and device index 1 everywhere, as terraform-aws-eks and pulumi-eks still
build): EFA-only interfaces take no IP address, so the VPC CNI does not spread pod IPs over 32
interfaces (same EKS page, "IP exhaustion"), and Karpenter takes only `interface` and `efa-only`.
EFA-only interfaces need VPC CNI 1.18.5 or later (EKS user guide, node-efa); checked at `pulumi up`
against the add-on version EKS picks (eks/cluster.py).

EC2 offers EFA-only interfaces on every type that supports EFA ("EFA-only is available on all EFA
supported instances", AWS What's New, "Amazon EC2 announces EFA updates for scalability with AI/ML
applications", 2024-10-28), so p4d and p4de take this layout too.

No interface asks for a public address: "Instances launched with multiple pre-configured network
interfaces cannot set AssociatePublicIPAddress to true" and an EFA-only interface takes no IP at all
(Karpenter pkg/providers/launchtemplate/launchtemplate.go @1d927085dd81; EC2 user guide, create-efa).
"""

from dataclasses import dataclass
from typing import Any

EFA_RESOURCE = "vpc.amazonaws.com/efa"
"""What the EFA device plugin advertises and a pod requests (chart aws-efa-k8s-device-plugin NOTES)."""
EFA_ONLY_MIN_VPC_CNI = (1, 18, 5)
HUGEPAGES_RESOURCE = "hugepages-2Mi"
HUGEPAGES_PREALLOCATED = "10256Mi"
""""Amazon EC2 instances with the EFA driver installed pre-allocate 5128 2MiB Huge Pages, which you can
request as resources" (EKS user guide, node-efa): 5128 x 2 MiB, what an AL2023 EFA node offers."""
HUGEPAGES_PER_POD = "5120Mi"
"""What AWS's EFA examples have one pod per node request (EKS user guide, node-efa; aws-samples/
awsome-distributed-training nccl-tests.yaml)."""
INTERFACE = "interface"
EFA_ONLY = "efa-only"


@dataclass(frozen=True)
class EfaNetwork:
    """What an EFA pool's machines launch into, made once per pool (eks/cluster.py)."""

    placement_group: Any
    """The pool's cluster placement group's name, an Output: launch templates name it, and Karpenter's
    placementGroupSelector selects it by name."""
    security_groups: list[Any]
    """The cluster security group and the EFA group open to itself, by id."""


@dataclass(frozen=True)
class NetworkInterface:
    card: int
    device: int
    kind: str
    """EC2's InterfaceType: `interface` (ENA) or `efa-only`."""


def efa_layout(efa_interfaces: int) -> tuple[NetworkInterface, ...]:
    """The interfaces of a machine with `efa_interfaces` EFA devices, one per network card."""
    if efa_interfaces < 1:
        raise ValueError(f"an EFA layout needs at least one EFA interface, not {efa_interfaces}")
    return (
        NetworkInterface(0, 0, INTERFACE),
        NetworkInterface(0, 1, EFA_ONLY),
        *(NetworkInterface(card, 0, EFA_ONLY) for card in range(1, efa_interfaces)),
    )


def efa_count(layout: tuple[NetworkInterface, ...]) -> int:
    """The EFA devices a node with `layout` offers pods (what Karpenter advertises: its EFA-only
    interfaces)."""
    return sum(1 for i in layout if i.kind == EFA_ONLY)


def launch_template_interfaces(
    layout: tuple[NetworkInterface, ...], security_groups: list[Any]
) -> list[dict[str, Any]]:
    """`network_interfaces` of an EC2 launch template (pulumi-aws LaunchTemplateNetworkInterface): each
    in `security_groups` (EC2 applies the VPC's default group to an interface that names none), deleted
    with the instance, no subnet (EKS picks it: "Do not specify SubnetId in the launch template when
    using EKS managed node groups", EKS user guide) and no public address."""
    return [
        {
            "network_card_index": i.card,
            "device_index": i.device,
            "interface_type": i.kind,
            "security_groups": security_groups,
            "delete_on_termination": "true",
        }
        for i in layout
    ]


def node_class_interfaces(layout: tuple[NetworkInterface, ...]) -> list[dict[str, Any]]:
    """`spec.networkInterfaces` of a Karpenter EC2NodeClass (added in Karpenter v1.11; gpukit pins
    1.14.1, whose CRD requires the {0, 0, interface} primary and at most one EFA per card)."""
    return [{"networkCardIndex": i.card, "deviceIndex": i.device, "interfaceType": i.kind} for i in layout]


def vpc_cni_version_problem(version: str) -> str | None:
    """Why VPC CNI `version` (`v1.20.4-eksbuild.1`) cannot run a node with EFA-only interfaces; None
    when it can, or when the version does not read as one (EKS's own default for the minor)."""
    core = version.removeprefix("v").split("-", 1)[0].split(".")
    if len(core) != 3 or not all(part.isdigit() for part in core):
        return None
    found = (int(core[0]), int(core[1]), int(core[2]))
    if found >= EFA_ONLY_MIN_VPC_CNI:
        return None
    floor = ".".join(map(str, EFA_ONLY_MIN_VPC_CNI))
    return (
        f"the VPC CNI add-on EKS picks for this Kubernetes version is {version}; EFA-only interfaces "
        f"need {floor} or later (EKS user guide, node-efa): use a newer kubernetesVersion, or "
        "`interconnect: none` on the EFA pools"
    )


# Libfabric's EFA provider, asked for by name, so libfabric never settles for its TCP provider on a node
# whose EFA is not working (aws-ofi-nccl doc/efa-env-var.md lists FI_PROVIDER=efa, needed only before
# aws-ofi-nccl 1.5, and harmless after). It does not stop NCCL falling back to its own sockets transport
# when the plugin does not load (the most reported EFA problem, NVIDIA/nccl#229): only the log's
# `NET/Socket` shows that (docs/interconnect.md). FI_EFA_USE_DEVICE_RDMA=1 only on the types AWS's own
# EKS tests run GPUDirect RDMA reads on (aws/aws-k8s-tester test/cases/nvidia/mpi_test.go
# instanceSupportsRdmaRead): not needed from libfabric 1.18 / aws-ofi-nccl 1.7 on, harmless there
# (efa-env-var.md).
RDMA_READ_TYPES = frozenset({"p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge"})


def efa_nccl_env(instance_type: str) -> dict[str, str]:
    """What a training container on an EFA node sets for NCCL over EFA (the image brings NCCL, the
    aws-ofi-nccl plugin and libfabric: the EKS AL2023 and Bottlerocket images bring only the host side)."""
    env = {"FI_PROVIDER": "efa"}
    if instance_type in RDMA_READ_TYPES:
        env["FI_EFA_USE_DEVICE_RDMA"] = "1"
    return env


def efa_node_resources(efa_devices: int, huge_pages: bool) -> dict[str, str]:
    """What one EFA node offers besides its GPUs, as the Cluster Autoscaler's scale-from-zero template
    must advertise it (a pending pod that asks for EFA or huge pages scales the pool from zero only if
    the template node has them). `huge_pages`: the node's image pre-allocates them (AL2023)."""
    offered = {EFA_RESOURCE: str(efa_devices)}
    if huge_pages:
        offered[HUGEPAGES_RESOURCE] = HUGEPAGES_PREALLOCATED
    return offered

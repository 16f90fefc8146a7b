"""The fast fabrics GPU machines have for traffic between nodes (NCCL's all-reduce), and which machine
has which: a table plus a pure look-up.

What counts as a fast fabric here: one a multi-node training job needs set up to get the machine's
bandwidth (several interfaces beside the node's own, a placement close together), so a pool of that
machine gets it by default (`nodePools[].interconnect: auto`).

- AWS: EFA on machines with 4 or more EFA interfaces (`InstanceType.efa_interfaces`, sourced in
  providers/aws/catalog.py): the multi-network-card types built for multi-node work (p4d, p4de, p5,
  p5e, p5en, p6-b200, g6e.48xlarge, g7e.48xlarge). Types with one or two EFA interfaces (g4dn, g5, g6,
  g6e up to 24xlarge, p5.4xlarge) are left on ENA: one EFA of a single network card adds little
  bandwidth, while the single zone and cluster placement group EFA needs cost such a pool capacity.
  Aggregate bandwidth: p5, p5e, p5en and p6-b200 3.2 Tbps (NVIDIA Dynamo docs, "EFA (RDMA over AWS
  Fabric) on EKS", instance table, read 2026-12); g6e.48xlarge 400 Gbps ("up to four network cards ...
  up to 400 Gbps", EC2 user guide p5-efa page, older version); others not sourced (None).
- Google Cloud: the A3 and A4 machines' GPU NICs (GKE "Maximize GPU network bandwidth" pages and
  GoogleCloudPlatform/cluster-toolkit's gke-a3-* / gke-a4 blueprints @1047080375af): a3-highgpu-8g
  GPUDirect-TCPX over 4 extra NICs and a3-megagpu-8g GPUDirect-TCPXO over 8, 200 Gbps each;
  a3-ultragpu-8g and a4-highgpu-8g GPUDirect RDMA (RoCE) over 8 RDMA NICs (speed not sourced).
"""

from dataclasses import dataclass
from enum import Enum

from gpukit.components.catalog.instances import InstanceType

MIN_FAST_EFA_INTERFACES = 4


class FabricKind(str, Enum):
    EFA = "efa"
    GPUDIRECT_TCPX = "gpudirect-tcpx"
    GPUDIRECT_TCPXO = "gpudirect-tcpxo"
    GPUDIRECT_RDMA = "gpudirect-rdma"

    @property
    def display(self) -> str:
        return _TITLES[self]


_TITLES = {
    FabricKind.EFA: "EFA",
    FabricKind.GPUDIRECT_TCPX: "GPUDirect-TCPX",
    FabricKind.GPUDIRECT_TCPXO: "GPUDirect-TCPXO",
    FabricKind.GPUDIRECT_RDMA: "GPUDirect RDMA",
}


@dataclass(frozen=True)
class MachineFabric:
    kind: FabricKind
    interfaces: int
    """The fabric's interfaces per machine: EFA devices, or the extra GPU NICs on Google Cloud."""
    gbps: int | None
    """Aggregate bandwidth between two machines, Gbit/s; None where no source gives it."""

    def describe(self) -> str:
        """`EFA x32, 3,200 Gbps`; `GPUDirect-TCPXO, 8 extra NICs, 1,600 Gbps`."""
        count = (
            f"{self.kind.display} x{self.interfaces}"
            if self.kind is FabricKind.EFA
            else (f"{self.kind.display}, {self.interfaces} extra NICs")
        )
        return f"{count}, {self.gbps:,} Gbps" if self.gbps else f"{count} (bandwidth not sourced)"


_EFA_GBPS = {
    "p5.48xlarge": 3200,
    "p5e.48xlarge": 3200,
    "p5en.48xlarge": 3200,
    "p6-b200.48xlarge": 3200,
    "g6e.48xlarge": 400,
}
GOOGLE_FABRICS: dict[str, MachineFabric] = {
    "a3-highgpu-8g": MachineFabric(FabricKind.GPUDIRECT_TCPX, 4, 800),
    "a3-megagpu-8g": MachineFabric(FabricKind.GPUDIRECT_TCPXO, 8, 1600),
    "a3-ultragpu-8g": MachineFabric(FabricKind.GPUDIRECT_RDMA, 8, None),
    "a4-highgpu-8g": MachineFabric(FabricKind.GPUDIRECT_RDMA, 8, None),
}


def machine_fabric(instance: InstanceType) -> MachineFabric | None:
    """The fast fabric `instance` has (None: the ordinary network only)."""
    efa = instance.efa_interfaces or 0
    if efa >= MIN_FAST_EFA_INTERFACES:
        return MachineFabric(FabricKind.EFA, efa, _EFA_GBPS.get(instance.name))
    return GOOGLE_FABRICS.get(instance.name)

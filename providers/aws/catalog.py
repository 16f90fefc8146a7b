"""AWS EC2 instance types gpukit can put in a node pool (GPUs, size, EFA, list price), and AWS charges.

Sources:
- Prices: us-east-1 on-demand Linux list prices, USD per hour, from aws/karpenter-provider-aws
  `pkg/providers/pricing/zz_generated.pricing_aws.go` @265ee0ba ("generated at 2026-02-09T13:43:35Z
  for us-east-1"), which is generated from the AWS Price List API. p5e.48xlarge has no on-demand
  price there (AWS sells it through Capacity Blocks), so its price is None and plans say so.
- vCPU, memory, GPU model and count: aws/karpenter-provider-aws
  `website/content/en/docs/reference/instance-types.md` @0c5e7d81 (EC2 DescribeInstanceTypes data).
  p5.4xlarge reports 0 GPUs in that API (karpenter-provider-aws#8368); it has one H100 (80 GiB of
  H100 memory, and exactly 1/8 of the p5.48xlarge price).
  g7e: kubernetes/autoscaler#9854 and PR #9097 (generated from the EC2 API, us-east-1).
- EFA interfaces: the same instance-types reference (`vpc.amazonaws.com/efa`); None where no source
  gives a number.
- g7e needs driver R595 or later: AWS EKS user guide, "device-management-nvidia-mig" ("The g7
  instance type requires NVIDIA driver version 595 or later").
"""

from gpukit.components.catalog.instances import CpuArch, InstanceType, MachineCatalog, PriceBasis

PRICE_REGION = "us-east-1"
PRICE_DATE = "2026-02-09"
PRICE_SOURCE = "aws/karpenter-provider-aws zz_generated.pricing_aws.go @265ee0ba"


def _gpu(  # noqa: PLR0917 (one positional row per table line keeps the table scannable)
    name: str,
    vcpu: int,
    mem: int,
    price: float | None,
    model: str,
    count: int,
    efa: int | None,
    min_driver_branch: int | None = None,
) -> InstanceType:
    return InstanceType(name, vcpu, mem, price, model, count, efa, min_driver_branch=min_driver_branch)


_G7E_MIN_DRIVER = 595

AWS_INSTANCE_TYPES: dict[str, InstanceType] = {
    t.name: t
    for t in (
        # --- NVIDIA T4 (Turing)
        _gpu("g4dn.xlarge", 4, 16, 0.526, "T4", 1, 0),
        _gpu("g4dn.2xlarge", 8, 32, 0.752, "T4", 1, 0),
        _gpu("g4dn.4xlarge", 16, 64, 1.204, "T4", 1, 0),
        _gpu("g4dn.8xlarge", 32, 128, 2.176, "T4", 1, 1),
        _gpu("g4dn.12xlarge", 48, 192, 3.912, "T4", 4, 1),
        _gpu("g4dn.16xlarge", 64, 256, 4.352, "T4", 1, 1),
        _gpu("g4dn.metal", 96, 384, 7.824, "T4", 8, 1),
        # --- NVIDIA A10G (Ampere)
        _gpu("g5.xlarge", 4, 16, 1.006, "A10G", 1, 0),
        _gpu("g5.2xlarge", 8, 32, 1.212, "A10G", 1, 0),
        _gpu("g5.4xlarge", 16, 64, 1.624, "A10G", 1, 0),
        _gpu("g5.8xlarge", 32, 128, 2.448, "A10G", 1, 1),
        _gpu("g5.12xlarge", 48, 192, 5.672, "A10G", 4, 1),
        _gpu("g5.16xlarge", 64, 256, 4.096, "A10G", 1, 1),
        _gpu("g5.24xlarge", 96, 384, 8.144, "A10G", 4, 1),
        _gpu("g5.48xlarge", 192, 768, 16.288, "A10G", 8, 1),
        # --- NVIDIA L4 (Ada)
        _gpu("g6.xlarge", 4, 16, 0.8048, "L4", 1, 0),
        _gpu("g6.2xlarge", 8, 32, 0.9776, "L4", 1, 0),
        _gpu("g6.4xlarge", 16, 64, 1.3232, "L4", 1, 0),
        _gpu("g6.8xlarge", 32, 128, 2.0144, "L4", 1, 1),
        _gpu("g6.12xlarge", 48, 192, 4.6016, "L4", 4, 1),
        _gpu("g6.16xlarge", 64, 256, 3.3968, "L4", 1, 1),
        _gpu("g6.24xlarge", 96, 384, 6.6752, "L4", 4, 1),
        _gpu("g6.48xlarge", 192, 768, 13.3504, "L4", 8, 1),
        # --- NVIDIA L40S (Ada)
        _gpu("g6e.xlarge", 4, 32, 1.861, "L40S", 1, 0),
        _gpu("g6e.2xlarge", 8, 64, 2.24208, "L40S", 1, 0),
        _gpu("g6e.4xlarge", 16, 128, 3.00424, "L40S", 1, 0),
        _gpu("g6e.8xlarge", 32, 256, 4.52856, "L40S", 1, 1),
        _gpu("g6e.12xlarge", 48, 384, 10.49264, "L40S", 4, 1),
        _gpu("g6e.16xlarge", 64, 512, 7.57719, "L40S", 1, 1),
        _gpu("g6e.24xlarge", 96, 768, 15.06559, "L40S", 4, 2),
        _gpu("g6e.48xlarge", 192, 1536, 30.13118, "L40S", 8, 4),
        # --- NVIDIA RTX PRO 6000 Blackwell Server Edition
        _gpu("g7e.2xlarge", 8, 64, 3.36312, "RTX-PRO-6000", 1, None, _G7E_MIN_DRIVER),
        _gpu("g7e.4xlarge", 16, 128, 3.99816, "RTX-PRO-6000", 1, None, _G7E_MIN_DRIVER),
        _gpu("g7e.8xlarge", 32, 256, 5.26824, "RTX-PRO-6000", 1, None, _G7E_MIN_DRIVER),
        _gpu("g7e.12xlarge", 48, 512, 8.28608, "RTX-PRO-6000", 2, None, _G7E_MIN_DRIVER),
        _gpu("g7e.24xlarge", 96, 1024, 16.57216, "RTX-PRO-6000", 4, None, _G7E_MIN_DRIVER),
        _gpu("g7e.48xlarge", 192, 2048, 33.14432, "RTX-PRO-6000", 8, 4, _G7E_MIN_DRIVER),
        # --- A100, H100, H200, B200
        _gpu("p4d.24xlarge", 96, 1152, 21.957642, "A100-40GB", 8, 4),
        _gpu("p4de.24xlarge", 96, 1152, 27.44705, "A100-80GB", 8, 4),
        _gpu("p5.4xlarge", 16, 256, 6.88, "H100", 1, 1),
        _gpu("p5.48xlarge", 192, 2048, 55.04, "H100", 8, 32),
        InstanceType(
            "p5e.48xlarge",
            192,
            2048,
            None,
            "H200",
            8,
            32,
            price_note="AWS sells it through Capacity Blocks, with no on-demand list price",
        ),
        _gpu("p5en.48xlarge", 192, 2048, 63.296, "H200", 8, 16),
        _gpu("p6-b200.48xlarge", 192, 2048, 113.9328, "B200", 8, 8),
        # --- CPU-only types for system pools
        InstanceType("m7i.large", 2, 8, 0.1008),
        InstanceType("m7i.xlarge", 4, 16, 0.2016),
        InstanceType("m7i.2xlarge", 8, 32, 0.4032),
        InstanceType("m6i.large", 2, 8, 0.096),
        InstanceType("m6i.xlarge", 4, 16, 0.192),
        InstanceType("t3.large", 2, 8, 0.0832),
        InstanceType("t3.xlarge", 4, 16, 0.1664),
        InstanceType("c7i.large", 2, 4, 0.08925),
        InstanceType("m7g.large", 2, 8, 0.0816, arch=CpuArch.ARM64),
    )
}

# Cluster-level charges in us-east-1, USD per hour.
# EKS: $0.10 per cluster-hour in standard support (AWS Containers blog, "Amazon EKS extended support
# for Kubernetes versions pricing", 2024; $0.60 in extended support).
EKS_CONTROL_PLANE_PER_HOUR = 0.10
EKS_EXTENDED_SUPPORT_PER_HOUR = 0.60
# NAT gateway: $0.045 per gateway-hour plus $0.045 per GB processed (https://aws.amazon.com/vpc/pricing/,
# as quoted by several 2026 us-east-1 guides; the data charge depends on traffic and is not planned).
NAT_GATEWAY_PER_HOUR = 0.045
# Network Load Balancer (k3s API): $0.0225 per hour plus $0.006 per NLCU-hour, which an API with a
# handful of clients barely uses (https://aws.amazon.com/elasticloadbalancing/pricing/, us-east-1).
NETWORK_LOAD_BALANCER_PER_HOUR = 0.0225
# Secrets Manager: $0.40 per secret per month (https://aws.amazon.com/secrets-manager/pricing/), per
# hour over a 730-hour month; k3s on EC2 keeps two (servers' and agents' join secrets).
SECRET_PER_HOUR = 0.40 / 730

AWS_CATALOG = MachineCatalog(
    cloud="aws",
    source="providers/aws/catalog.py",
    price_basis=PriceBasis(PRICE_REGION, PRICE_DATE, PRICE_SOURCE),
    machines=AWS_INSTANCE_TYPES,
)

"""What the EKS shared-storage backends are, as sourced constants: add-ons, identities, ports, modes,
and the Lustre deployment type. Pure: no SDK import.

Sources are cited per figure. Snapshots read: awsdocs/amazon-eks-user-guide @4d52b4d0 (2024-12-18),
kubernetes-sigs/aws-efs-csi-driver @a4fc6760 (2026-07-24), kubernetes-sigs/aws-fsx-csi-driver @5b227125
(2026-04-21), awslabs/mountpoint-s3-csi-driver @57c6bedb (2026-08-08).
"""

from dataclasses import dataclass

from gpukit.providers.aws.iam_policies import MANAGED

STORAGE_CLASS_PREFIX = "shared-"
"""Claims name the StorageClass `shared-<volume name>`."""
EXAMPLE_CLAIM_NAMESPACE = "default"
"""Where the example claim of a statically provisioned volume lives (one PersistentVolume binds one
claim: pods in other namespaces need a volume of their own)."""

# --- CSI drivers as EKS add-ons, with the service account each controller runs as.


@dataclass(frozen=True)
class CsiAddon:
    addon: str
    """The EKS add-on name."""
    driver: str
    """The CSI driver name (a StorageClass provisioner, a PersistentVolume's csi.driver)."""
    service_account: str
    """The controller's service account in kube-system: the Pod Identity association's subject."""
    managed_policies: tuple[str, ...] = ()


# EKS user guide, "Amazon EKS add-ons" (workloads-add-ons-available-eks.adoc) and efs-csi.adoc: add-on
# aws-efs-csi-driver, SA kube-system/efs-csi-controller-sa, managed policy AmazonEFSCSIDriverPolicy
# (service-role/). The node SA needs no identity: gpukit never sets the `iam` mount option.
EFS_CSI = CsiAddon(
    "aws-efs-csi-driver",
    "efs.csi.aws.com",
    "efs-csi-controller-sa",
    (f"{MANAGED}/service-role/AmazonEFSCSIDriverPolicy",),
)
# EKS user guide fsx-csi.adoc: add-on aws-fsx-csi-driver, SA kube-system/fsx-csi-controller-sa. The
# guide attaches AmazonFSxFullAccess, which is for dynamic provisioning (CreateFileSystem,
# DeleteFileSystem, iam:CreateServiceLinkedRole: aws-fsx-csi-driver docs/install.md). gpukit provisions
# FSx statically (fsx_lustre.py), so the controller gets the inline policy of policies.py instead.
FSX_CSI = CsiAddon("aws-fsx-csi-driver", "fsx.csi.aws.com", "fsx-csi-controller-sa")
# EKS user guide s3-csi.adoc: add-on aws-mountpoint-s3-csi-driver, driver s3.csi.aws.com, SA
# kube-system/s3-csi-driver-sa; mountpoint-s3-csi-driver docs/CONFIGURATION.md "Driver-Level Credentials
# with EKS Pod Identity" (a Pod Identity association for s3-csi-driver-sa). No managed policy: a
# bucket-scoped inline policy (policies.py).
S3_CSI = CsiAddon("aws-mountpoint-s3-csi-driver", "s3.csi.aws.com", "s3-csi-driver-sa")

# --- Network: what a node must reach, and nothing else.

NFS_PORT = 2049
"""EFS mount targets: NFS over TCP 2049 (aws-efs-csi-driver docs/efs-create-filesystem.md: "inbound
rule that allows inbound NFS traffic", --port 2049)."""
LUSTRE_PORTS = ((988, 988), (1018, 1023))
"""FSx for Lustre: TCP 988 and 1018-1023, between the file servers (the group itself) and with the
clients (FSx Lustre guide, "File system access control with Amazon VPC",
https://docs.aws.amazon.com/fsx/latest/LustreGuide/limit-access-security-groups.html; a group without
them fails CreateFileSystem: "do not permit Lustre LNET network traffic on port 988",
cannot-create-fs.html)."""

# --- Amazon EFS

EFS_MODES = ("elastic", "provisioned", "bursting")
"""Throughput modes (EFS API CreateFileSystem ThroughputMode: bursting | provisioned | elastic; the API
default is bursting, the console's and AWS's recommendation elastic: EFS guide managing-throughput.html).
gpukit defaults to elastic: it scales with the workload and needs no credits."""
EFS_DEFAULT_MODE = "elastic"
EFS_PERFORMANCE_MODE = "generalPurpose"
"""General Purpose: "we recommend always using General Purpose performance mode" (Max I/O has higher
latencies and no Elastic throughput; EFS guide performance.html)."""
EFS_CREATION_TOKEN_MAX = 64
"""EFS API CreateFileSystem CreationToken: "a string of up to 64 ASCII characters". Pulumi's own auto-name
for it allows 255 (pulumi-aws resources.go AutoName("creationToken", 255)), so gpukit names it."""
EFS_DIRECTORY_PERMS = "700"
"""Each claim's access point root directory: its owner only (aws-efs-csi-driver docs/parameters.md
directoryPerms; the driver enforces one uid/gid per access point)."""


# --- FSx for Lustre (SSD, PERSISTENT_2)

LUSTRE_DEPLOYMENT_TYPE = "PERSISTENT_2"
"""Persistent: file servers replaced and data replicated within the AZ on failure, the kind of file
system a checkpoint must outlive a node on (FSx Lustre guide, using-fsx-lustre.html); PERSISTENT_2 gives
the highest per-unit throughput (125-1000 MB/s/TiB)."""
LUSTRE_MOUNT_OPTIONS = ("flock",)
"""Cluster-coherent file locks across clients (aws-fsx-csi-driver examples/kubernetes/
static_provisioning/specs/pv.yaml)."""

# --- Mountpoint for Amazon S3

S3_BUCKET_MIN, S3_BUCKET_MAX = 3, 63
S3_BUCKET_SOURCE = "S3 user guide, general purpose bucket naming rules (bucketnamingrules.html)"
S3_BUCKET_PREFIXES = ("xn--", "sthree-", "amzn-s3-demo-")
S3_BUCKET_SUFFIXES = ("-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3")

# --- List prices: per region in components/addons/storage/rates.py (EFS Standard); FSx for Lustre is not
# priced (https://aws.amazon.com/fsx/lustre/pricing/ could not be read with its figures); an S3 volume
# mounts a bucket its owner already pays for. Sizes and throughput tiers:
# components/addons/storage/backends.py.

"""The small VM gpukit makes as an NFS server on k3s over aws (pure facts, with their sources).

- Machine: m7i.large (2 vCPUs, 8 GiB, a Nitro instance: EBS volumes appear as NVMe devices named by
  their volume id, components/addons/storage/nfs/vm.py), on demand (never spot: a reclaimed server
  stops every pod using the volume). Not burstable (a t3's CPU credits run out under a long checkpoint
  write). Its price is the catalog's (providers/aws/catalog.py), in the cluster's region.
- Data disk: EBS gp3, encrypted. Sizes "gp2 and gp3: 1 - 16,384 GiB" (EC2 API reference,
  LaunchTemplateEbsBlockDeviceRequest.VolumeSize; docs.aws.amazon.com/sdk-for-kotlin/api/latest/ec2/
  aws.sdk.kotlin.services.ec2.model/-launch-template-ebs-block-device-request/volume-size.html). The
  newer ModifyVolume reference lists gp3 up to 65,536 GiB; gpukit keeps the limit every API takes.
- gp3 price: per region in components/addons/storage/rates.py (SERVER_DISK_RATES; us-east-1 only, so other
  regions show no sourced price). Its baseline, "3,000 IOPS
  baseline performance and 125 MiB/s, regardless of volume size" (AWS Storage Blog, "Migrate your
  Amazon EBS volumes from gp2 to gp3", aws.amazon.com/blogs/storage/), is included in that rate;
  gpukit provisions no more, so about 125 MiB/s is what the volume gives all its clients together.
"""

NFS_VM_INSTANCE_TYPE = "m7i.large"
NFS_VM_ROOT_DISK_GB = 20
NFS_DISK_TYPE = "gp3"
NFS_DISK_MIN_GB = 1
NFS_DISK_MAX_GB = 16384

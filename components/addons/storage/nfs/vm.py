"""The small VM gpukit makes as the NFS server of one shared volume on k3s over aws or gcp: what it runs
at boot. Pure: the script is golden-tested, shellcheck-clean and run against stubs; the EC2 user data is
checked with `cloud-init schema` (tests/scripts/test_nfs_vm.py).

The volume's data lives on a disk of its own (a cloud resource apart from the VM, so replacing the VM
keeps it): nfs-data-disk.sh formats it only when it holds no filesystem, mounts it at the volume's
directory by its stable path, and makes nfs-server.service require that mount; then nfs-server.sh (the
same script k3s over SSH runs on a host) installs the distribution's NFS server and exports the
directory to the node subnets only. Both are idempotent: the VM runs them at every boot.
"""

from collections.abc import Sequence

from gpukit.components.addons.storage.nfs.exports import (
    EXPORTS_FILE,
    NFS_SCRIPTS,
    SQUASHED_OWNER,
    V4_ONLY_MARK,
    exports,
    exports_file,
    volume_directory,
)
from gpukit.components.k3s.cloud_config import Literal, cloud_config_body
from gpukit.components.k3s.host_scripts import render_script

SCRIPT_PATH = "/opt/gpukit/nfs-server.sh"
UNIT_NAME = "gpukit-nfs.service"
NFS_DROP_IN = "/etc/systemd/system/nfs-server.service.d/gpukit-data-disk.conf"
UNIT = f"""[Unit]
Description=gpukit: mount the shared volume's data disk and export it to the cluster's nodes
Wants=network-online.target
After=network-online.target
StartLimitIntervalSec=0

[Service]
Type=oneshot
ExecStart={SCRIPT_PATH}
RemainAfterExit=yes
Restart=on-failure
RestartSec=30

[Install]
WantedBy=multi-user.target"""
"""Runs at every boot (idempotent); a failure (the disk not attached yet, a package mirror down) retries
30 s later. Type=oneshot with Restart=on-failure needs systemd 244 or later (Ubuntu 24.04 has 255)."""


def ebs_device_path(volume_id: str) -> str:
    """The stable path of an attached EBS volume on a Nitro instance: "NVMe EBS volumes have the EBS
    volume ID set as the serial number in the device identification" (Amazon EBS user guide, "Map
    Amazon EBS volumes to NVMe device names", docs.aws.amazon.com/ebs/latest/userguide/
    identify-nvme-ebs-device.html), without its dash (`sn: vol01234567890abcdef`, EC2 user guide
    "Amazon EBS and NVMe"); systemd's udev rule 60-persistent-storage.rules links
    /dev/disk/by-id/nvme-<model>_<serial>, the model "Amazon Elastic Block Store" with its spaces
    escaped to `_`."""
    return f"/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_{volume_id.replace('-', '')}"


def gce_device_path(device_name: str) -> str:
    """The stable path of an attached Compute Engine disk: its `deviceName` "is reflected into the
    /dev/disk/by-id/google-* tree of a Linux operating system running within the instance" (Compute
    Engine API, instances.attachedDisks[].deviceName; udev rules of GoogleCloudPlatform/guest-configs
    65-gce-disk-naming.rules)."""
    return f"/dev/disk/by-id/google-{device_name}"


def nfs_vm_script(volume: str, device: str, node_networks: Sequence[str]) -> str:
    """Mount the data disk at the volume's directory, then serve it to `node_networks` (CIDRs) only."""
    table = exports([volume_directory(volume)], node_networks)
    return render_script(
        NFS_SCRIPTS / "nfs-data-disk.sh",
        NFS_SCRIPTS / "nfs-server.sh",
        DEVICE=device,
        MOUNT=volume_directory(volume),
        FS_LABEL=f"gpukit-{volume}"[:16],  # ext4 labels hold 16 bytes (mke2fs(8) -L)
        NFS_DROP_IN=NFS_DROP_IN,
        EXPORT_DIRS=volume_directory(volume),
        EXPORTS=exports_file(table),
        EXPORTS_FILE=EXPORTS_FILE,
        SQUASHED_OWNER=SQUASHED_OWNER,
        V4_ONLY_MARK=V4_ONLY_MARK,
    )


def nfs_vm_user_data(script: str) -> str:
    """`#cloud-config` that writes the script and its unit, and starts the unit (enabled: every boot)."""
    document = {
        "write_files": [
            {"path": SCRIPT_PATH, "owner": "root:root", "permissions": "0700", "content": Literal(script)},
            {
                "path": f"/etc/systemd/system/{UNIT_NAME}",
                "owner": "root:root",
                "permissions": "0644",
                "content": UNIT,
            },
        ],
        "runcmd": [
            ["systemctl", "daemon-reload"],
            ["systemctl", "enable", "--now", "--no-block", UNIT_NAME],
        ],
    }
    body = cloud_config_body(document)
    # The header names where this renderer lived when the first NFS VMs were made (it is now this
    # file). It stays as it is: the VM's user data replaces the VM when it changes (nfs_server.py's
    # userDataReplaceOnChange), and a comment is no reason to restart every NFS server.
    return "#cloud-config\n# Rendered by gpukit (components/k3s/nfs_vm.py).\n" + body

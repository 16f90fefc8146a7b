"""What the NFS VM gpukit makes on k3s over a cloud runs at every boot: golden, shellcheck-clean, valid
cloud-config, and executed against stub commands: a new disk is formatted, a disk holding data never is,
the mount is by the disk's stable path and nfs-server requires it, and the export reaches the node
subnets only."""

from pathlib import Path

import pytest
import yaml
from scripts.stubs import NFS_SERVER_STUBS, FakeHost

from gpukit.components.addons.storage.nfs.exports import EXPORT_OPTIONS, EXPORTS_FILE
from gpukit.components.addons.storage.nfs.vm import (
    NFS_DROP_IN,
    SCRIPT_PATH,
    UNIT_NAME,
    ebs_device_path,
    gce_device_path,
    nfs_vm_script,
    nfs_vm_user_data,
)
from gpukit.components.k3s import cloud_config
from tools import cloud_init_schema_problems, shellcheck_problems

DEVICE = ebs_device_path("vol-0123456789abcdef0")
NETWORKS = ["10.50.0.0/19", "10.50.32.0/19"]
SCRIPT = nfs_vm_script("checkpoints", DEVICE, NETWORKS)
MOUNT = "/srv/gpukit-nfs/checkpoints"
ROOT_FSTAB = "LABEL=cloudimg-rootfs\t/\text4\tdiscard,commit=30,errors=remount-ro\t0 1\n"

STUBS = {
    **NFS_SERVER_STUBS,
    # The disk's filesystem type lives in $STATE/fs once made.
    "blkid": '[ -e "$STATE/fs" ] && cat "$STATE/fs"; true',
    "mkfs.ext4": 'echo "mkfs.ext4 $*" >> "$STATE/calls.log"; echo ext4 > "$STATE/fs"',
    "mountpoint": '[ -e "$STATE/mounted" ]',
    "mount": 'echo "mount $*" >> "$STATE/calls.log"; touch "$STATE/mounted"',
}


@pytest.fixture
def vm(tmp_path: Path) -> FakeHost:
    fake = FakeHost(tmp_path)
    for name, body in STUBS.items():
        fake.stub(name, body)
    disk = fake.root / DEVICE.lstrip("/")
    disk.parent.mkdir(parents=True)
    disk.write_text("")  # attached
    (fake.root / "etc").mkdir()
    (fake.root / "etc/fstab").write_text(ROOT_FSTAB)
    return fake


def test_nfs_vm_script_golden(golden) -> None:  # type: ignore[no-untyped-def]
    golden("scripts/nfs-vm-aws.sh", SCRIPT)


def test_nfs_vm_script_is_shellcheck_clean(tmp_path: Path) -> None:
    path = tmp_path / "script.sh"
    path.write_text(SCRIPT)
    assert shellcheck_problems(path) == ""


# The Compute Engine twin: the same script, the disk found by its device name, the subnet's range.
GCE_DEVICE = gce_device_path("gpukit-data")
GCE_SCRIPT = nfs_vm_script("checkpoints", GCE_DEVICE, ["10.70.0.0/20"])


def test_nfs_vm_script_on_gce_golden_and_shellcheck_clean(golden, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    golden("scripts/nfs-vm-gcp.sh", GCE_SCRIPT)
    path = tmp_path / "script.sh"
    path.write_text(GCE_SCRIPT)
    assert shellcheck_problems(path) == ""


def test_on_gce_a_new_disk_is_formatted_and_mounted_by_its_device_name(tmp_path: Path) -> None:
    fake = FakeHost(tmp_path)
    for name, body in STUBS.items():
        fake.stub(name, body)
    disk = fake.root / GCE_DEVICE.lstrip("/")
    disk.parent.mkdir(parents=True)
    disk.write_text("")  # attached
    (fake.root / "etc").mkdir()
    (fake.root / "etc/fstab").write_text(ROOT_FSTAB)
    result = fake.run(GCE_SCRIPT)
    assert result.code == 0, result.stderr
    assert "mkfs.ext4 -q -L gpukit-checkpoin " + str(disk) in result.calls
    assert (fake.root / "etc/fstab").read_text().splitlines()[1].startswith(f"{GCE_DEVICE} {MOUNT} ext4 ")
    exports = (fake.root / EXPORTS_FILE.lstrip("/")).read_text().splitlines()[1:]
    assert exports == [f"{MOUNT} 10.70.0.0/20({EXPORT_OPTIONS})"]


def test_user_data_is_valid_cloud_config_that_enables_the_unit(tmp_path: Path) -> None:
    text = nfs_vm_user_data(SCRIPT)
    path = tmp_path / "user-data"
    path.write_text(text)
    assert cloud_init_schema_problems(path) == ""
    document = yaml.safe_load(text)
    files = {f["path"]: f for f in document["write_files"]}
    assert files[SCRIPT_PATH]["content"] == SCRIPT
    assert files[SCRIPT_PATH]["permissions"] == "0700"
    assert "Restart=on-failure" in files[f"/etc/systemd/system/{UNIT_NAME}"]["content"]
    assert ["systemctl", "enable", "--now", "--no-block", UNIT_NAME] in document["runcmd"]


@pytest.mark.parametrize("script", [SCRIPT, GCE_SCRIPT], ids=["ebs", "gce"])
def test_user_data_is_the_same_from_either_yaml_emitter(script: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """libyaml's emitter writes it where PyYAML has one (components/k3s/cloud_config.py): the bytes
    PyYAML's own emitter writes, so a PyYAML without libyaml renders the same user data."""
    text = nfs_vm_user_data(script)
    monkeypatch.setattr(cloud_config, "DUMPER", cloud_config.PythonDumper)
    assert nfs_vm_user_data(script) == text


def test_a_new_disk_is_formatted_mounted_by_its_stable_path_and_required_by_nfs(vm: FakeHost) -> None:
    result = vm.run(SCRIPT)
    assert result.code == 0, result.stderr
    assert "mkfs.ext4 -q -L gpukit-checkpoin " + str(vm.root / DEVICE.lstrip("/")) in result.calls
    fstab = (vm.root / "etc/fstab").read_text().splitlines()
    assert fstab == [
        ROOT_FSTAB.strip(),
        f"{DEVICE} {MOUNT} ext4 defaults,nofail,x-systemd.device-timeout=5min 0 2",
    ]
    assert f"mount {vm.root}{MOUNT}" in result.calls
    drop_in = (vm.root / NFS_DROP_IN.lstrip("/")).read_text()
    assert drop_in == f"[Unit]\nRequiresMountsFor={MOUNT}\n"
    # Mounted and required before the server starts and exports.
    assert result.calls.index(f"mount {vm.root}{MOUNT}") < result.calls.index("systemctl restart nfs-server")
    assert (vm.root / "proc/fs/nfsd/versions").read_text().startswith("-2 -3 +4")
    exports = (vm.root / EXPORTS_FILE.lstrip("/")).read_text().splitlines()[1:]
    assert exports == [f"{MOUNT} " + " ".join(f"{n}({EXPORT_OPTIONS})" for n in NETWORKS)]


def test_a_disk_holding_a_filesystem_is_never_formatted_and_a_reboot_changes_nothing(vm: FakeHost) -> None:
    (vm.state / "fs").write_text("ext4\n")  # a disk that outlived an earlier VM
    first = vm.run(SCRIPT)
    assert first.code == 0, first.stderr
    assert not any(c.startswith("mkfs") for c in first.calls)
    again = vm.run(SCRIPT)  # the next boot
    assert again.code == 0, again.stderr
    assert not any(c.startswith(("mkfs", "mount ", "apt-get")) for c in again.calls)
    assert len((vm.root / "etc/fstab").read_text().splitlines()) == 2  # the root's line and gpukit's


def test_a_disk_that_never_attaches_fails_so_the_unit_retries(vm: FakeHost) -> None:
    (vm.root / DEVICE.lstrip("/")).unlink()
    script = SCRIPT.replace("set -euo pipefail\n", "set -euo pipefail\nGPUKIT_DISK_WAIT=0\n", 1)
    result = vm.run(script)
    assert result.code == 1
    assert f"data disk {DEVICE} not attached" in result.stderr
    assert not any(
        c.startswith(("mkfs", "mount", "systemctl enable", "systemctl mask")) for c in result.calls
    )


def test_stable_device_paths() -> None:
    assert ebs_device_path("vol-0abc") == "/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0abc"
    assert gce_device_path("gpukit-data") == "/dev/disk/by-id/google-gpukit-data"

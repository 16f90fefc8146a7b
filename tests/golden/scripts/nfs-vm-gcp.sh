#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
DEVICE=/dev/disk/by-id/google-gpukit-data
MOUNT=/srv/gpukit-nfs/checkpoints
FS_LABEL=gpukit-checkpoin
NFS_DROP_IN=/etc/systemd/system/nfs-server.service.d/gpukit-data-disk.conf
EXPORT_DIRS=/srv/gpukit-nfs/checkpoints
EXPORTS='# Written by gpukit: shared volumes of this k3s cluster, exported to its nodes only.
/srv/gpukit-nfs/checkpoints 10.70.0.0/20(rw,sync,root_squash,sec=sys,no_subtree_check)
'
EXPORTS_FILE=/etc/exports.d/gpukit.exports
SQUASHED_OWNER=65534:65534
V4_ONLY_MARK='# gpukit: NFSv4 only (the nodes mount nfsvers=4.1): no NFSv2/v3, MOUNT or rpcbind listeners'
# --- gpukit NFS VM: the volume's own data disk, mounted where the volume is exported from, before the
# NFS server may start. The disk is a cloud resource of its own (it outlives this VM): it is formatted
# only when it holds no filesystem at all (a new disk), never otherwise.
# Inputs (set above by the renderer): DEVICE (the disk's stable path, /dev/disk/by-id/...: a name the
# cloud derives from the disk itself, not from the order devices appear in), MOUNT (the directory the
# volume is exported from), FS_LABEL, NFS_DROP_IN (a systemd drop-in of nfs-server.service).
ROOT="${GPUKIT_ROOT:-}"  # empty on a real VM; a temporary root in gpukit's tests
WAIT_SECONDS="${GPUKIT_DISK_WAIT:-600}"

# The disk may be attached a little after boot (EC2 attaches a volume once the instance runs).
waited=0
until [ -e "$ROOT$DEVICE" ]; do
  if [ "$waited" -ge "$WAIT_SECONDS" ]; then
    echo "gpukit: data disk $DEVICE not attached after ${WAIT_SECONDS}s" >&2
    exit 1
  fi
  sleep 5
  waited=$((waited + 5))
done

if [ -z "$(blkid -o value -s TYPE "$ROOT$DEVICE" || true)" ]; then
  echo "gpukit: $DEVICE holds no filesystem: formatting it (a new disk)"
  mkfs.ext4 -q -L "$FS_LABEL" "$ROOT$DEVICE"
fi

mkdir -p "$ROOT$MOUNT"
# By the stable device path, with nofail: a VM whose disk is missing still boots (and the NFS server,
# which requires the mount, stays down rather than exporting the empty directory beneath it).
fstab_line="$DEVICE $MOUNT ext4 defaults,nofail,x-systemd.device-timeout=5min 0 2"
if ! grep -qxF "$fstab_line" "$ROOT/etc/fstab" 2> /dev/null; then
  echo "$fstab_line" >> "$ROOT/etc/fstab"
  systemctl daemon-reload
fi
if ! mountpoint -q "$ROOT$MOUNT"; then
  mount "$ROOT$MOUNT"
fi

drop_in="$ROOT$NFS_DROP_IN"
mkdir -p "$(dirname "$drop_in")"
printf '[Unit]\nRequiresMountsFor=%s\n' "$MOUNT" > "$drop_in.gpukit-new"
mv "$drop_in.gpukit-new" "$drop_in"
systemctl daemon-reload

# --- gpukit NFS server: the distribution's own NFS server, NFSv4 only, one directory per shared
# volume, exported to the cluster's nodes only.
# Inputs (set above by the renderer): EXPORT_DIRS (space-separated absolute directories, plain
# characters only), EXPORTS (the text of EXPORTS_FILE), EXPORTS_FILE, SQUASHED_OWNER (uid:gid a
# client's root becomes under root_squash: it owns each directory, so the CSI controller can create
# the claims' subdirectories there), V4_ONLY_MARK (the line that starts gpukit's block in
# /etc/nfs.conf).
# Packages come from the distribution's own signed repositories (apt and dnf check their signatures;
# nothing is downloaded from anywhere else). Running it again changes nothing but what changed;
# existing data is never touched: only each directory itself is (re)owned, never what is inside.
ROOT="${GPUKIT_ROOT:-}"  # empty on a real host; a temporary root in gpukit's tests
fail() {
  echo "gpukit: $*" >&2
  exit 1
}

if ! command -v exportfs > /dev/null 2>&1; then
  if command -v apt-get > /dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends nfs-kernel-server
  elif command -v dnf > /dev/null 2>&1; then
    dnf install -y -q nfs-utils
  else
    fail "no apt-get or dnf on this host: install its NFS server (nfs-kernel-server or nfs-utils), then run gpukit again"
  fi
fi

read -r -a dirs <<< "$EXPORT_DIRS"
for dir in "${dirs[@]}"; do
  case "$dir" in
    /*) ;;
    *) fail "export directory $dir is not an absolute path" ;;
  esac
  mkdir -p "$ROOT$dir"
  chown "$SQUASHED_OWNER" "$ROOT$dir"
  chmod 0755 "$ROOT$dir"
done

exports_file="$ROOT$EXPORTS_FILE"
mkdir -p "$(dirname "$exports_file")"
if [ ! -f "$exports_file" ] || [ "$(cat "$exports_file")" != "${EXPORTS%$'\n'}" ]; then
  printf '%s' "$EXPORTS" > "$exports_file.gpukit-new"
  chmod 0644 "$exports_file.gpukit-new"
  mv "$exports_file.gpukit-new" "$exports_file"
  echo "gpukit: exports written to $EXPORTS_FILE"
fi

# NFSv4 only: the nodes mount with nfsvers=4.1, which needs nothing but TCP 2049 (RFC 7530 section
# 3.1). With vers2=n and vers3=n in [nfsd], rpc.nfsd offers only v4 and rpc.mountd opens no MOUNT
# listener (both read these keys: nfs.conf(5); nfs-utils utils/nfsd/nfsd.c, utils/mountd/mountd.c);
# rpcbind (port 111) and rpc-statd (NSM, NFSv3 locking) are then not needed and are masked, as Red
# Hat's "Configuring an NFSv4-only server" does (RHEL 8 "Managing file systems"). The three units
# exist on both families: nfs-kernel-server depends on nfs-common, which depends on rpcbind (Debian,
# Ubuntu); nfs-utils requires rpcbind (RHEL family). A vers2/vers3 the host's owner set earlier in
# /etc/nfs.conf may win over gpukit's block, so what the running server offers is checked in
# /proc/fs/nfsd/versions (nfsd(7)).
conf="$ROOT/etc/nfs.conf"
restart=0
if ! grep -qxF "$V4_ONLY_MARK" "$conf" 2> /dev/null; then
  printf '\n%s\n[nfsd]\nvers2=n\nvers3=n\n' "$V4_ONLY_MARK" >> "$conf"
  echo "gpukit: NFSv2 and NFSv3 turned off in /etc/nfs.conf"
  restart=1
fi
systemctl mask --now rpcbind.service rpcbind.socket rpc-statd.service

systemctl enable nfs-server
if [ "$restart" = 1 ]; then
  systemctl restart nfs-server
else
  systemctl start nfs-server
fi
versions="$(cat "$ROOT/proc/fs/nfsd/versions" 2> /dev/null || true)"
case " $versions " in
  "  ") fail "cannot read /proc/fs/nfsd/versions: nfs-server did not start (journalctl -u nfs-server)" ;;
  *" +2 "* | *" +3 "*)
    fail "the NFS server still offers NFSv2/v3 ($versions): another vers2 or vers3 line in /etc/nfs.conf wins over gpukit's; set vers2=n and vers3=n in its [nfsd] section" ;;
esac
# Re-export everything: drops what gpukit's file no longer lists, adds what it does.
exportfs -ra
echo "gpukit: NFS server ready; exports:"
exportfs -v

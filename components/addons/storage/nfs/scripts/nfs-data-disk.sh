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


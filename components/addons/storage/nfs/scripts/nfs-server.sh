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

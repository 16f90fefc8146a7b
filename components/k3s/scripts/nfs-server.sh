# --- gpukit NFS server: the distribution's own NFS server, one directory per shared volume, exported
# to the cluster's nodes only.
# Inputs (set above by the renderer): EXPORT_DIRS (space-separated absolute directories, plain
# characters only), EXPORTS (the text of EXPORTS_FILE), EXPORTS_FILE, SQUASHED_OWNER (uid:gid a
# client's root becomes under root_squash: it owns each directory, so the CSI controller can create
# the claims' subdirectories there).
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

systemctl enable --now nfs-server
# Re-export everything: drops what gpukit's file no longer lists, adds what it does.
exportfs -ra
echo "gpukit: NFS server ready; exports:"
exportfs -v

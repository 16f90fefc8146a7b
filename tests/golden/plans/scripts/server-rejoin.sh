# --- gpukit server rejoin: runs before every start of k3s on a server (ExecStartPre, a drop-in for
# k3s.service). A server whose etcd member was removed (its Node deleted while it was down) is told by
# etcd "the member has been permanently removed from the cluster"; k3s then exits, and systemd's
# restarts never bring it back until its etcd data is gone (k3s-io/k3s#13498). This moves that data
# aside and joins again through another server that answers, as a new member, with the same CA,
# token and config. It never starts a new cluster: without another server that answers it leaves
# everything as it is (and k3s fails on, as it would have).
# Only what k3s logged since the previous start counts: an old "removed" line from an incident fixed
# by hand must not move a healthy member's data aside (it would then join as a second member with the
# same peer address, which etcd refuses). The first start this script sees only records the time; if
# k3s then fails on a removed member, systemd restarts it and the next run finds the line.
# Inputs (set above by the renderer): JOIN_URLS (the other servers), TLS_DIR, JOIN_FILE, ETCD_DIR,
# START_MARKER (when the previous start began), REJOIN_MARKER (when this last moved the data aside),
# REMOVED_MESSAGE
ROOT="${GPUKIT_ROOT:-}"  # empty on a real host; a temporary root in gpukit's tests
etcd="$ROOT$ETCD_DIR"
marker="$ROOT$REJOIN_MARKER"
started="$ROOT$START_MARKER"
previous=$(cat "$started" 2>/dev/null || true)
mkdir -p "$(dirname "$started")"
date +%s > "$started"
[ -d "$etcd" ] || exit 0  # SQLite, or not joined yet: nothing to rejoin
[[ "$previous" =~ ^[0-9]+$ ]] || exit 0  # the first start seen: nothing logged since one yet
since=$previous
rejoined=$(cat "$marker" 2>/dev/null || echo 0)
if [[ "$rejoined" =~ ^[0-9]+$ ]] && [ "$rejoined" -gt "$since" ]; then
  since=$rejoined
fi
# grep reads the whole journal (no -q): with -q it stops at the first match, journalctl then fails
# writing to the closed pipe, and under pipefail the match would count as none (systemd/systemd#38114).
if ! journalctl -u k3s --since "@$since" -o cat --no-pager 2>/dev/null | grep -F -- "$REMOVED_MESSAGE" >/dev/null; then
  exit 0
fi
joined=""
for url in $JOIN_URLS; do
  if ping "$url"; then
    joined=$url
    break
  fi
done
if [ -z "$joined" ]; then
  echo "gpukit: this server's etcd member was removed and no other server answers at $JOIN_URLS: keeping its data" >&2
  exit 0
fi
# One earlier copy is kept, the newest; older ones go (each is a whole etcd data folder).
rm -rf "$etcd".removed-*
mv "$etcd" "$etcd.removed-$(date +%Y%m%dT%H%M%S)"
mkdir -p "$(dirname "$ROOT$JOIN_FILE")"
printf 'server: %s\n' "$joined" > "$ROOT$JOIN_FILE"
mkdir -p "$(dirname "$marker")"
date +%s > "$marker"
echo "gpukit: this server's etcd member was removed: its etcd data moved aside; joining again through $joined"

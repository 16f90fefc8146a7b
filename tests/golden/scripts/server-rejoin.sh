#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
JOIN_URLS=https://192.0.2.10:6443
TLS_DIR=/var/lib/rancher/k3s/server/tls
JOIN_FILE=/etc/rancher/k3s/config.yaml.d/50-gpukit-join.yaml
ETCD_DIR=/var/lib/rancher/k3s/server/db/etcd
REJOIN_MARKER=/var/lib/gpukit/rejoined-at
START_MARKER=/var/lib/gpukit/k3s-started-at
REMOVED_MESSAGE='the member has been permanently removed from the cluster'
# --- gpukit: ping URL, true when the k3s server at URL answers /ping with "pong"; checked against the
# cluster's CA once this machine holds it (agents' tokens carry the CA's hash, which k3s checks when
# it joins). Inputs (set above by the renderer): TLS_DIR; ROOT, set by the script that calls it.
ping() {
  if [ -e "$ROOT$TLS_DIR/server-ca.crt" ]; then
    answer=$(curl -s --cacert "$ROOT$TLS_DIR/server-ca.crt" --connect-timeout 5 --max-time 10 "$1/ping" 2>/dev/null)
  else
    answer=$(curl -sk --connect-timeout 5 --max-time 10 "$1/ping" 2>/dev/null)
  fi
  [ "$answer" = pong ]
}
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

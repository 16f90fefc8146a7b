# --- gpukit k3s install: place secrets and config, keep pods off the metadata server, decide whether
# this machine starts the cluster or joins it, install a checked k3s at a pinned version, wait until
# it is ready.
# Inputs (set above by the renderer): ROLE (server|agent), K3S_VERSION, K3S_CONFIG, KUBELET_CONFIG,
# TOKEN_FILE, AGENT_TOKEN_FILE, TLS_DIR, JOIN_URLS (space-separated https URLs of the servers to join
# through), MAY_INIT (true: the one server that starts the cluster when no other server answers),
# CLUSTER_INIT (true: start it with embedded etcd), JOIN_PROBES, JOIN_WAIT_SECONDS,
# INSTALLER_URL, INSTALLER_SHA256, BINARY_URL_AMD64, BINARY_SHA256_AMD64, BINARY_URL_ARM64,
# BINARY_SHA256_ARM64 (empty: no sum pinned for that architecture), GUARD_SCRIPT, GUARD_UNIT,
# GUARD_DROP_IN, POD_SECURITY_CONFIG, ADMIN_BINDING, SERVER_POLICY, NODE_SYNC_SCRIPT,
# NODE_SYNC_SERVICE, NODE_SYNC_TIMER, REJOIN_SCRIPT, REJOIN_DROP_IN (the last eight on servers only;
# empty on agents; SERVER_POLICY empty where servers are not tainted); `ping` (server-ping.sh, above)
# Stdin: the secrets bundle, one "path<TAB>base64 content" line per file: the token file, and on
# servers the agent token file and the cluster CAs. Any other path is refused before anything is written.
# Running it again with the same inputs changes nothing; a changed config restarts k3s with it.
ROOT="${GPUKIT_ROOT:-}"  # empty on a real host; a temporary root in gpukit's tests
fail() {
  echo "gpukit: $*" >&2
  exit 1
}

config_dir="$ROOT/etc/rancher/k3s"
join_file="$config_dir/config.yaml.d/50-gpukit-join.yaml"
service=k3s
if [ "$ROLE" = agent ]; then
  service=k3s-agent
fi
changed=false
umask 077
kubelet_drop_in="$ROOT/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/50-gpukit-shutdown.conf"
guard="$ROOT/usr/local/lib/gpukit/metadata-guard.sh"
guard_unit="$ROOT/etc/systemd/system/gpukit-metadata-guard.service"
guard_drop_in="$ROOT/etc/systemd/system/$service.service.d/50-gpukit-metadata-guard.conf"
pod_security="$ROOT/var/lib/rancher/k3s/server/gpukit-pod-security.yaml"
admin_binding="$ROOT/var/lib/rancher/k3s/server/manifests/gpukit-admin.yaml"
server_policy="$ROOT/var/lib/rancher/k3s/server/manifests/gpukit-server-policy.yaml"
node_sync="$ROOT/usr/local/lib/gpukit/node-sync.sh"
node_sync_unit="$ROOT/etc/systemd/system/gpukit-node-sync"
rejoin="$ROOT/usr/local/lib/gpukit/server-rejoin.sh"
rejoin_drop_in="$ROOT/etc/systemd/system/k3s.service.d/50-gpukit-rejoin.conf"
# Secrets stay in memory-backed /run while they are read (never on a disk outside k3s's own files).
mkdir -p "$ROOT/run"
secrets=$(mktemp -d -p "$ROOT/run" gpukit.XXXXXX)
work=$(mktemp -d)
trap 'rm -rf "$secrets" "$work"' EXIT
mkdir -p "$config_dir" "$(dirname "$join_file")" "$(dirname "$kubelet_drop_in")" "$(dirname "$guard")" \
  "$(dirname "$guard_unit")" "$(dirname "$guard_drop_in")"

# Secrets: every line checked before anything is written: the bundle may name the token files and
# the TLS folder only, and a cluster CA that differs from the one already on the host means the host
# belongs to another cluster (refused, and left as it is). Then written 0600, never echoed.
cat > "$secrets/bundle"
while IFS="$(printf '\t')" read -r path content; do
  [ -n "$path" ] || continue
  case "$path" in
    *..*) fail "the secrets bundle names $path, outside the files gpukit writes: refusing it" ;;
    "$TOKEN_FILE") ;;
    "$AGENT_TOKEN_FILE" | "$TLS_DIR"/*)
      [ "$ROLE" = server ] || fail "the secrets bundle names $path, a server's file, on an agent: refusing it"
      ;;
    *) fail "the secrets bundle names $path, outside the files gpukit writes: refusing it" ;;
  esac
  case "$path" in
    "$TLS_DIR"/*)
      if [ -e "$ROOT$path" ] && ! printf '%s' "$content" | base64 -d | cmp -s - "$ROOT$path"; then
        fail "$path differs from the cluster CA gpukit manages: this host already runs another k3s cluster; uninstall it first (k3s-uninstall.sh)"
      fi
      ;;
  esac
done < "$secrets/bundle"
while IFS="$(printf '\t')" read -r path content; do
  [ -n "$path" ] || continue
  target="$ROOT$path"
  mkdir -p "$(dirname "$target")"
  tmp="$target.gpukit-new"
  printf '%s' "$content" | base64 -d > "$tmp"
  if [ -e "$target" ] && cmp -s "$tmp" "$target"; then
    rm -f "$tmp"
  else
    mv "$tmp" "$target"
    chmod 600 "$target"
    changed=true
  fi
done < "$secrets/bundle"
rm -f "$secrets/bundle"

write_if_changed() {
  # Both sides through $(...), which drops trailing newlines the same way.
  if [ -e "$1" ] && [ "$(cat "$1")" = "$(printf '%s' "$2")" ]; then
    return 0
  fi
  mkdir -p "$(dirname "$1")"
  printf '%s\n' "$2" > "$1"
  chmod "${3:-600}" "$1"
  changed=true
}
write_if_changed "$config_dir/config.yaml" "$K3S_CONFIG"
write_if_changed "$kubelet_drop_in" "$KUBELET_CONFIG"
if [ "$ROLE" = server ]; then
  write_if_changed "$pod_security" "$POD_SECURITY_CONFIG"
  write_if_changed "$admin_binding" "$ADMIN_BINDING"
  if [ -n "$SERVER_POLICY" ]; then
    write_if_changed "$server_policy" "$SERVER_POLICY"
  elif [ -e "$server_policy" ]; then
    rm -f "$server_policy"  # servers made schedulable: k3s keeps what it applied; kubectl delete removes it
    changed=true
  fi
  write_if_changed "$node_sync" "$NODE_SYNC_SCRIPT" 700
  write_if_changed "$node_sync_unit.service" "$NODE_SYNC_SERVICE" 644
  write_if_changed "$node_sync_unit.timer" "$NODE_SYNC_TIMER" 644
  write_if_changed "$rejoin" "$REJOIN_SCRIPT" 700
  write_if_changed "$rejoin_drop_in" "$REJOIN_DROP_IN" 644
fi

# Pods never reach the cloud's metadata server: the rules go in before k3s starts, and k3s's unit
# requires the guard's, so no boot runs k3s without them.
write_if_changed "$guard" "$GUARD_SCRIPT" 700
write_if_changed "$guard_unit" "$GUARD_UNIT" 644
write_if_changed "$guard_drop_in" "$GUARD_DROP_IN" 644
systemctl daemon-reload
systemctl enable gpukit-metadata-guard.service
systemctl start gpukit-metadata-guard.service \
  || fail "could not block pod traffic to the metadata server: see journalctl -u gpukit-metadata-guard"

# Start the cluster or join it, decided once per machine (a replaced machine decides again, with an
# empty disk): join the first server that answers; only the server allowed to start the cluster does
# so, and only when none of the others answers (a new cluster, or one whose servers are all gone).
# A server answers /ping with "pong"; servers also check it holds the cluster's CA (agents' tokens
# carry the CA's hash, which k3s checks when it joins).
# A single server that became the first of three (SQLite): starting with embedded etcd converts it.
if [ "$MAY_INIT" = true ] && [ "$CLUSTER_INIT" = true ] && [ -e "$join_file" ] \
  && [ "$(cat "$join_file")" = "cluster-init: false" ]; then
  write_if_changed "$join_file" "cluster-init: true"
fi
if [ ! -e "$join_file" ]; then
  joined=""
  waited=0
  probes=0
  while [ -z "$joined" ]; do
    for url in $JOIN_URLS; do
      if ping "$url"; then
        joined=$url
        break
      fi
    done
    [ -z "$joined" ] || break
    probes=$((probes + 1))
    if [ "$MAY_INIT" = true ] && { [ -z "$JOIN_URLS" ] || [ "$probes" -ge "$JOIN_PROBES" ]; }; then
      break
    fi
    if [ "$waited" -ge "$JOIN_WAIT_SECONDS" ]; then
      fail "no server answered at $JOIN_URLS within ${JOIN_WAIT_SECONDS}s: this machine cannot join"
    fi
    sleep 10
    waited=$((waited + 10))
  done
  if [ -n "$joined" ]; then
    echo "gpukit: joining the cluster through $joined"
    write_if_changed "$join_file" "server: $joined"
  else
    echo "gpukit: no other server answers: starting the cluster"
    write_if_changed "$join_file" "cluster-init: $CLUSTER_INIT"
  fi
fi

installed=none
if command -v k3s >/dev/null 2>&1; then
  installed=$(k3s --version 2>/dev/null | head -n 1 | cut -d' ' -f3)
fi
if [ "$installed" = "$K3S_VERSION" ] && [ "$changed" = false ] && systemctl is-active --quiet "$service"; then
  echo "gpukit: k3s $K3S_VERSION ($ROLE) already installed and up to date"
  exit 0
fi

# Download with retries, then check against the SHA-256 gpukit pins before anything runs.
fetch_checked() {
  attempt=1
  until curl -sfL --connect-timeout 10 --max-time 300 "$1" -o "$2"; do
    if [ "$attempt" -ge 5 ]; then
      fail "could not download $1 after $attempt attempts: check the host's internet access or proxy"
    fi
    sleep $((attempt * attempt))
    attempt=$((attempt + 1))
  done
  if ! printf '%s  %s\n' "$3" "$2" | sha256sum -c --status -; then
    fail "$1 does not have the SHA-256 gpukit pins ($3): refusing to run it"
  fi
}
case "$(uname -m)" in
  x86_64 | amd64) binary_url=$BINARY_URL_AMD64 binary_sha256=$BINARY_SHA256_AMD64 ;;
  aarch64 | arm64) binary_url=$BINARY_URL_ARM64 binary_sha256=$BINARY_SHA256_ARM64 ;;
  *) fail "k3s runs on amd64 and arm64 here; this host is $(uname -m)" ;;
esac
[ -n "$binary_sha256" ] || fail "no SHA-256 pinned for k3s $K3S_VERSION on $(uname -m): set gpukit:cluster.k3sSha256"
fetch_checked "$binary_url" "$work/k3s" "$binary_sha256"
fetch_checked "$INSTALLER_URL" "$work/install.sh" "$INSTALLER_SHA256"
mkdir -p "$ROOT/usr/local/bin"
install -m 755 "$work/k3s" "$ROOT/usr/local/bin/k3s"
# The installer restarts k3s only when its binary or unit changed: a new config needs a forced restart.
INSTALL_K3S_SKIP_DOWNLOAD=true INSTALL_K3S_VERSION="$K3S_VERSION" INSTALL_K3S_EXEC="$ROLE" \
  INSTALL_K3S_FORCE_RESTART="$changed" sh "$work/install.sh" \
  || fail "the k3s installer failed: see its output above (journalctl -u $service on the host)"

waited=0
until systemctl is-active --quiet "$service"; do
  if [ "$waited" -ge 300 ]; then
    fail "$service did not become active within 300s: see journalctl -u $service on the host"
  fi
  sleep 5
  waited=$((waited + 5))
done
# Servers: wait for the API, and for the admin binding k3s applies from its manifests folder, so what
# Pulumi installs next (the GPU Operator) finds it answering and may.
if [ "$ROLE" = server ]; then
  until k3s kubectl get --raw=/readyz >/dev/null 2>&1 \
    && k3s kubectl get clusterrolebinding gpukit-admin >/dev/null 2>&1; do
    if [ "$waited" -ge 300 ]; then
      fail "the Kubernetes API on this server did not become ready within 300s: see journalctl -u k3s"
    fi
    sleep 5
    waited=$((waited + 5))
  done
fi
if [ "$ROLE" = server ]; then
  systemctl enable --now gpukit-node-sync.timer || fail "could not start gpukit-node-sync.timer"
fi
echo "gpukit: k3s $K3S_VERSION ($ROLE) installed and running"

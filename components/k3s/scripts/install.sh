# --- gpukit k3s install: place secrets and config, install k3s at a pinned version, wait until ready.
# Inputs (set above by the renderer): ROLE (server|agent), K3S_VERSION, K3S_CONFIG, KUBELET_CONFIG
# Stdin: the secrets bundle, one "path<TAB>base64 content" line per file (token; CAs on servers).
# Running it again with the same inputs changes nothing; a changed config restarts k3s with it.
ROOT="${GPUKIT_ROOT:-}"  # empty on a real host; a temporary root in gpukit's tests
fail() {
  echo "gpukit: $*" >&2
  exit 1
}

config_dir="$ROOT/etc/rancher/k3s"
service=k3s
if [ "$ROLE" = agent ]; then
  service=k3s-agent
fi
changed=false
umask 077
kubelet_drop_in="$ROOT/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/50-gpukit-shutdown.conf"
mkdir -p "$config_dir" "$(dirname "$kubelet_drop_in")"

# Secrets: written 0600 and never echoed. A cluster CA that differs from the one already on the
# host means the host belongs to another cluster: refuse rather than break it.
while IFS="$(printf '\t')" read -r path content; do
  [ -n "$path" ] || continue
  target="$ROOT$path"
  mkdir -p "$(dirname "$target")"
  tmp="$target.gpukit-new"
  printf '%s' "$content" | base64 -d > "$tmp"
  if [ -e "$target" ] && ! cmp -s "$tmp" "$target"; then
    case "$path" in
      */tls/*)
        rm -f "$tmp"
        fail "$path differs from the cluster CA gpukit manages: this host already runs another k3s cluster; uninstall it first (k3s-uninstall.sh)"
        ;;
    esac
  fi
  if [ -e "$target" ] && cmp -s "$tmp" "$target"; then
    rm -f "$tmp"
  else
    mv "$tmp" "$target"
    chmod 600 "$target"
    changed=true
  fi
done

write_if_changed() {
  # Both sides through $(...), which drops trailing newlines the same way.
  if [ -e "$1" ] && [ "$(cat "$1")" = "$(printf '%s' "$2")" ]; then
    return 0
  fi
  printf '%s\n' "$2" > "$1"
  chmod 600 "$1"
  changed=true
}
write_if_changed "$config_dir/config.yaml" "$K3S_CONFIG"
write_if_changed "$kubelet_drop_in" "$KUBELET_CONFIG"

installed=none
if command -v k3s >/dev/null 2>&1; then
  installed=$(k3s --version 2>/dev/null | head -n 1 | cut -d' ' -f3)
fi
if [ "$installed" = "$K3S_VERSION" ] && [ "$changed" = false ] && systemctl is-active --quiet "$service"; then
  echo "gpukit: k3s $K3S_VERSION ($ROLE) already installed and up to date"
  exit 0
fi

installer=$(mktemp)
trap 'rm -f "$installer"' EXIT
attempt=1
until curl -sfL --connect-timeout 10 --max-time 120 https://get.k3s.io -o "$installer"; do
  if [ "$attempt" -ge 5 ]; then
    fail "could not download the k3s installer from https://get.k3s.io after $attempt attempts: check the host's internet access or proxy"
  fi
  sleep $((attempt * attempt))
  attempt=$((attempt + 1))
done
# The installer restarts k3s only when its binary or unit changed: a new config needs a forced restart.
INSTALL_K3S_VERSION="$K3S_VERSION" INSTALL_K3S_EXEC="$ROLE" INSTALL_K3S_FORCE_RESTART="$changed" sh "$installer" \
  || fail "the k3s installer failed: see its output above (journalctl -u $service on the host)"

waited=0
until systemctl is-active --quiet "$service"; do
  if [ "$waited" -ge 300 ]; then
    fail "$service did not become active within 300s: see journalctl -u $service on the host"
  fi
  sleep 5
  waited=$((waited + 5))
done
# Servers: wait for the API too, so what Pulumi installs next (the GPU Operator) finds it answering.
if [ "$ROLE" = server ]; then
  until k3s kubectl get --raw=/readyz >/dev/null 2>&1; do
    if [ "$waited" -ge 300 ]; then
      fail "the Kubernetes API on this server did not become ready within 300s: see journalctl -u k3s"
    fi
    sleep 5
    waited=$((waited + 5))
  done
fi
echo "gpukit: k3s $K3S_VERSION ($ROLE) installed and running"

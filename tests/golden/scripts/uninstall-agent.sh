#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
ROLE=agent
# --- gpukit k3s uninstall: remove k3s and gpukit's files from this host. Safe to run again.
# Inputs (set above by the renderer): ROLE (server|agent)
ROOT="${GPUKIT_ROOT:-}"  # empty on a real host; a temporary root in gpukit's tests
fail() {
  echo "gpukit: $*" >&2
  exit 1
}

script="$ROOT/usr/local/bin/k3s-uninstall.sh"
if [ "$ROLE" = agent ]; then
  script="$ROOT/usr/local/bin/k3s-agent-uninstall.sh"
fi
if [ -x "$script" ]; then
  "$script" || fail "$script failed: see its output above"
  echo "gpukit: k3s removed"
else
  echo "gpukit: k3s is not installed here; nothing to remove"
fi
# The metadata guard's rules stay until the next boot; its unit, which would add them again, goes.
if [ -e "$ROOT/etc/systemd/system/gpukit-metadata-guard.service" ]; then
  systemctl disable gpukit-metadata-guard.service || true
fi
if [ -e "$ROOT/etc/systemd/system/gpukit-node-sync.timer" ]; then
  systemctl disable --now gpukit-node-sync.timer || true
fi
rm -f "$ROOT/etc/rancher/k3s/config.yaml" "$ROOT/etc/rancher/k3s/gpukit-token" \
  "$ROOT/etc/rancher/k3s/gpukit-agent-token" "$ROOT/etc/rancher/k3s/config.yaml.d/50-gpukit-join.yaml" \
  "$ROOT/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/50-gpukit-shutdown.conf" \
  "$ROOT/etc/systemd/system/gpukit-metadata-guard.service" "$ROOT/usr/local/lib/gpukit/metadata-guard.sh" \
  "$ROOT/etc/systemd/system/k3s.service.d/50-gpukit-metadata-guard.conf" \
  "$ROOT/etc/systemd/system/k3s-agent.service.d/50-gpukit-metadata-guard.conf" \
  "$ROOT/etc/systemd/system/gpukit-node-sync.service" "$ROOT/etc/systemd/system/gpukit-node-sync.timer" \
  "$ROOT/usr/local/lib/gpukit/node-sync.sh"

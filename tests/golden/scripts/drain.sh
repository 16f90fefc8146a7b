#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
NODE_NAME=l40s-192-0-2-11
# --- gpukit drain: runs on a server before a node leaves the cluster, so its pods move elsewhere.
# Inputs (set above by the renderer): NODE_NAME

if ! command -v k3s >/dev/null 2>&1; then
  echo "gpukit: no k3s on this server (the cluster is being removed); nothing to drain"
  exit 0
fi
if ! k3s kubectl get node "$NODE_NAME" >/dev/null 2>&1; then
  echo "gpukit: node $NODE_NAME is not in the cluster; nothing to drain"
  exit 0
fi
k3s kubectl drain "$NODE_NAME" --ignore-daemonsets --delete-emptydir-data --timeout=300s \
  || echo "gpukit: warning: $NODE_NAME did not drain within 300s; removing it anyway" >&2
k3s kubectl delete node "$NODE_NAME" --ignore-not-found
echo "gpukit: node $NODE_NAME drained and removed"

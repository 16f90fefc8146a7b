# --- gpukit: register this machine's Kubernetes node under its cloud provider ID, the key the Cluster
# Autoscaler finds a node's machine and group by. k3s runs no cloud controller that would set it, so
# the kubelet sets it when the node registers (`--kubelet-arg=provider-id=...`). Written as a k3s
# config drop-in that appends (`kubelet-arg+`) to whatever kubelet arguments other files set.
# Inputs (set above by the renderer): PROVIDER_ID_FILE, and the cloud's provider_id function below.
ROOT="${GPUKIT_ROOT:-}"  # empty on a real host; a temporary root in gpukit's tests
fail() {
  echo "gpukit: $*" >&2
  exit 1
}
write_provider_id() {  # write_provider_id ID: the drop-in k3s reads before it registers the node
  file="$ROOT$PROVIDER_ID_FILE"
  mkdir -p "$(dirname "$file")"
  umask 077
  printf 'kubelet-arg+:\n  - "provider-id=%s"\n' "$1" > "$file.tmp"
  mv "$file.tmp" "$file"
  echo "gpukit: this node registers as $1"
}

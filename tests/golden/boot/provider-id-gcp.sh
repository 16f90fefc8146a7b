#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
PROVIDER_ID_FILE=/etc/rancher/k3s/config.yaml.d/40-gpukit-provider-id.yaml
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
# --- gpukit: the provider ID of a Compute Engine machine, gce://<project id>/<zone>/<instance name>,
# the form the Cluster Autoscaler's GCE provider parses (kubernetes/autoscaler cloudprovider/gce/
# gce_cloud_provider.go, GceRefFromProviderId), from the metadata server.
metadata=http://metadata.google.internal/computeMetadata/v1
meta() {  # meta PATH: one metadata value
  curl -sf -H 'Metadata-Flavor: Google' "$metadata/$1"
}
project=$(meta project/project-id) || fail "the metadata server gave no project id"
zone=$(meta instance/zone) || fail "the metadata server gave no zone"
zone=${zone##*/}  # projects/<number>/zones/<zone>
name=$(meta instance/name) || fail "the metadata server gave no instance name"
[[ "$project" =~ ^[a-z][-a-z0-9.:]{4,62}$ ]] || fail "unexpected project id: $project"
[[ "$zone" =~ ^[a-z]+-[a-z]+[0-9]+-[a-z]$ ]] || fail "unexpected zone: $zone"
[[ "$name" =~ ^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$ ]] || fail "unexpected instance name: $name"
write_provider_id "gce://$project/$zone/$name"

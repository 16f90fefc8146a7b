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
# --- gpukit: the provider ID of an EC2 machine, aws:///<availability zone>/<instance id>, the form
# the Cluster Autoscaler's AWS provider parses (kubernetes/autoscaler cloudprovider/aws/
# aws_cloud_provider.go, validAwsRefIdRegex and AwsRefFromProviderId), from the metadata service
# (IMDSv2: a session token first; the launch template refuses IMDSv1). Needs curl only.
imds=http://169.254.169.254/latest
imds_token() {
  curl -sf -X PUT "$imds/api/token" -H 'X-aws-ec2-metadata-token-ttl-seconds: 300'
}
meta() {  # meta PATH: a metadata value, with the session token in $token
  curl -sf -H "X-aws-ec2-metadata-token: $token" "$imds/meta-data/$1"
}
token=$(imds_token) || fail "the instance metadata service did not answer"
zone=$(meta placement/availability-zone) || fail "no availability zone in the instance metadata"
instance=$(meta instance-id) || fail "no instance id in the instance metadata"
[[ "$zone" =~ ^[a-z]{2}(-[a-z]+)+-[0-9]+[a-z]$ ]] || fail "unexpected availability zone: $zone"
[[ "$instance" =~ ^i-[0-9a-f]{8,17}$ ]] || fail "unexpected instance id: $instance"
write_provider_id "aws:///$zone/$instance"

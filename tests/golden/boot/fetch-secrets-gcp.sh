#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
SECRET_VERSION=projects/acme-ml-dev/secrets/k3s-gcp-agents/versions/3
# --- gpukit: print the join secrets bundle from Secret Manager, read with the VM's service account.
# Inputs (set above by the renderer): SECRET_VERSION (projects/P/secrets/S/versions/N)
# Needs only curl and python3 (both on Ubuntu and the Deep Learning VM images): no gcloud. The
# access token goes to curl on stdin (-K -), never on a command line other users can read.
fail() {
  echo "gpukit: $*" >&2
  exit 1
}
metadata=http://metadata.google.internal/computeMetadata/v1
token_json=$(curl -sf -H 'Metadata-Flavor: Google' "$metadata/instance/service-accounts/default/token") \
  || fail "the metadata server gave no access token: the VM has no service account"
access_token=$(printf '%s' "$token_json" | python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')
response=$(printf 'header = "Authorization: Bearer %s"\n' "$access_token" \
  | curl -sf -K - "https://secretmanager.googleapis.com/v1/$SECRET_VERSION:access") \
  || fail "Secret Manager refused to return $SECRET_VERSION"
printf '%s' "$response" \
  | python3 -c 'import base64, json, sys; print(base64.b64decode(json.load(sys.stdin)["payload"]["data"]).decode())'

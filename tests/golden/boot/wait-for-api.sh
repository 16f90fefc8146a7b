#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
API_URL=https://k3s.example.com:6443
TIMEOUT_SECONDS=900
# --- gpukit: wait until a new k3s API server answers, before Pulumi installs into the cluster.
# Runs where `pulumi up` runs (pulumi-command local). Cloud machines install k3s at first boot,
# minutes after the cloud reports them created.
# Inputs (set above by the renderer): API_URL, TIMEOUT_SECONDS
# Any HTTP answer from /readyz means the API serves TLS (200, or 401: k3s refuses anonymous requests);
# no credential is sent, so none can leak here.
waited=0
while :; do
  code=$(curl -sk -o /dev/null -w '%{http_code}' --connect-timeout 5 --max-time 10 "$API_URL/readyz" || true)
  case "$code" in
    200|401|403)
      echo "gpukit: the Kubernetes API at $API_URL answers (HTTP $code)"
      exit 0
      ;;
  esac
  if [ "$waited" -ge "$TIMEOUT_SECONDS" ]; then
    echo "gpukit: the Kubernetes API at $API_URL did not answer within ${TIMEOUT_SECONDS}s: is this machine allowed by apiAccessCidrs, and did the servers boot (see their serial console)?" >&2
    exit 1
  fi
  sleep 10
  waited=$((waited + 10))
done

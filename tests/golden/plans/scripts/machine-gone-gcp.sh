# --- gpukit: machine_gone PROVIDER_ID, for the node sync on Compute Engine servers: true when Compute
# Engine answers 404 for the instance behind gce://<project>/<zone>/<name> (a preempted Spot VM is
# deleted, as is a machine its group scaled in); false while it exists, in any state, and whenever the
# API cannot be asked (the 30-minute rule then applies). Asked with the servers' service account
# (compute.instances.get: providers/gcp/k3s/autoscaler_iam.py).
machine_gone() {
  [[ "$1" =~ ^gce://([a-z][-a-z0-9.:]*)/([a-z]+-[a-z]+[0-9]+-[a-z])/([a-z]([-a-z0-9]*[a-z0-9])?)$ ]] || return 1
  url="https://compute.googleapis.com/compute/v1/projects/${BASH_REMATCH[1]}/zones/${BASH_REMATCH[2]}/instances/${BASH_REMATCH[3]}"
  token_json=$(curl -sf -H 'Metadata-Flavor: Google' \
    http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/token) || return 1
  access_token=$(printf '%s' "$token_json" | python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])') \
    || return 1
  # The token on curl's stdin, never on a command line other users can read.
  code=$(printf 'header = "Authorization: Bearer %s"\n' "$access_token" \
    | curl -s -o /dev/null -w '%{http_code}' -K - "$url") || return 1
  [ "$code" = 404 ]
}

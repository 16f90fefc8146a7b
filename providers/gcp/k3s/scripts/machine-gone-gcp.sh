# --- gpukit: machine_gone PROVIDER_ID NODE_CREATED, for the node sync on Compute Engine servers: true
# when Compute Engine answers 404 for the instance behind gce://<project>/<zone>/<name> (a preempted
# Spot VM is deleted, as is a machine its group scaled in), or when the instance of that name was
# created after the node registered (NODE_CREATED, the Node's creationTimestamp): a recreated server or
# a group's repaired machine keeps its name, and so its provider ID, but it is another machine. False
# while the node's own machine exists, in any state, and whenever the API cannot be asked (an agent's
# node then goes after the 30-minute rule; a server's stays). Asked with the servers' service account
# (compute.instances.get on this cluster's machines only: providers/gcp/k3s/machine_read_iam.py).
machine_gone() {
  [[ "$1" =~ ^gce://([a-z][-a-z0-9.:]*)/([a-z]+-[a-z]+[0-9]+-[a-z])/([a-z]([-a-z0-9]*[a-z0-9])?)$ ]] || return 1
  url="https://compute.googleapis.com/compute/v1/projects/${BASH_REMATCH[1]}/zones/${BASH_REMATCH[2]}/instances/${BASH_REMATCH[3]}"
  token_json=$(curl -sf --connect-timeout 5 --max-time 20 -H 'Metadata-Flavor: Google' \
    http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/token) || return 1
  access_token=$(printf '%s' "$token_json" | python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])') \
    || return 1
  # The token on curl's stdin, never on a command line other users can read.
  answer=$(printf 'header = "Authorization: Bearer %s"\n' "$access_token" \
    | curl -s --connect-timeout 5 --max-time 30 -w '\n%{http_code}' -K - "$url") || return 1
  code=${answer##*$'\n'}
  [ "$code" != 404 ] || return 0
  [ "$code" = 200 ] && [ -n "${2:-}" ] || return 1
  instance_created=$(printf '%s' "${answer%$'\n'*}" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["creationTimestamp"])') || return 1
  node_created=$(date -d "$2" +%s) && machine_created=$(date -d "$instance_created" +%s) || return 1
  [ "$machine_created" -gt "$node_created" ]
}

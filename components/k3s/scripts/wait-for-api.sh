# --- gpukit: wait until a new k3s API server answers gpukit's admin, before Pulumi installs into it.
# Runs where `pulumi up` runs (pulumi-command local). Cloud machines install k3s at first boot,
# minutes after the cloud reports them created; the admin's ClusterRoleBinding follows a few seconds
# after the API (k3s applies it from its manifests folder).
# Inputs (set above by the renderer): API_URL, TIMEOUT_SECONDS
# Stdin: "name<TAB>base64 PEM" lines for ca.crt (the cluster's server CA), admin.crt and admin.key.
# They go to files only this user can read, in a folder removed on exit; the server is checked
# against the cluster's own CA, so the key is shown to no other server.
umask 077
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
while IFS="$(printf '\t')" read -r name content; do
  case "$name" in
    ca.crt | admin.crt | admin.key) printf '%s' "$content" | base64 --decode > "$dir/$name" ;;
    "") ;;
    *) echo "gpukit: unexpected credential $name on stdin" >&2; exit 1 ;;
  esac
done
binding="$API_URL/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/gpukit-admin"
waited=0
while :; do
  code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$dir/ca.crt" --cert "$dir/admin.crt" \
    --key "$dir/admin.key" --connect-timeout 5 --max-time 10 "$binding" || true)
  if [ "$code" = 200 ]; then
    echo "gpukit: the Kubernetes API at $API_URL answers, and gpukit's admin may use it"
    exit 0
  fi
  if [ "$waited" -ge "$TIMEOUT_SECONDS" ]; then
    echo "gpukit: the Kubernetes API at $API_URL did not let gpukit's admin in within ${TIMEOUT_SECONDS}s (last answer: HTTP $code): is this machine allowed by apiAccessCidrs, and did the servers boot (see their serial console)?" >&2
    exit 1
  fi
  sleep 10
  waited=$((waited + 10))
done

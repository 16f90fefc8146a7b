# --- gpukit node sync: runs on every server every two minutes (gpukit-node-sync.timer).
# 1. Puts each pool's current labels and taints on its existing nodes: k3s applies `node-label` and
#    `node-taint` only when a node registers, and kubelets may not change their own taints.
# 2. Where REAP_AFTER_SECONDS > 0 (machines on clouds), deletes nodes that have not been Ready for that
#    long: their machine is gone (a spot reclaim, a scale-in, a replacement), and a group never brings
#    the same machine back. A server's node only while two other servers are Ready (etcd's majority).
#    An agent node not Ready for MACHINE_CHECK_AFTER_SECONDS goes at once when `machine_gone` (the
#    cloud's part, rendered above this script) says the machine behind its provider ID is gone.
# Inputs (set above by the renderer): REAP_AFTER_SECONDS, MACHINE_CHECK_AFTER_SECONDS, POOL_LABEL
# Desired state: the ConfigMap kube-system/gpukit-pools that Pulumi writes, key `pools`, one line per
# pool: "<pool><TAB><k=v,k=v><TAB><key=value:Effect,...>". What it set before is kept in each node's
# annotations gpukit.dev/labels and gpukit.dev/taints, so a label or taint taken out of a pool goes too.
# Lists are split on spaces below, and the annotations come from the nodes (a kubelet may write its
# own): no word may expand into the names of files on this server.
set -f
kubectl() { k3s kubectl "$@"; }

if ! pools=$(kubectl -n kube-system get configmap gpukit-pools -o 'jsonpath={.data.pools}' 2>/dev/null); then
  echo "gpukit: no kube-system/gpukit-pools yet; nothing to sync"
  pools=""
fi

not_in() {  # not_in ITEM LIST(comma-separated)
  case ",$2," in *",$1,"*) return 1 ;; *) return 0 ;; esac
}

sync_node() {  # sync_node NODE LABELS TAINTS
  node=$1 labels=$2 taints=$3
  old_labels=$(kubectl get node "$node" -o 'jsonpath={.metadata.annotations.gpukit\.dev/labels}')
  old_taints=$(kubectl get node "$node" -o 'jsonpath={.metadata.annotations.gpukit\.dev/taints}')
  args=()
  for pair in ${old_labels//,/ }; do
    key=${pair%%=*}
    if [ "$key" != "$POOL_LABEL" ] && not_in "$key" "$(printf '%s' "$labels" | sed 's/=[^,]*//g')"; then
      args+=("$key-")
    fi
  done
  for pair in ${labels//,/ }; do
    args+=("$pair")
  done
  if [ "${#args[@]}" -gt 0 ]; then
    kubectl label node "$node" --overwrite "${args[@]}" >/dev/null
  fi
  for taint in ${old_taints//,/ }; do
    if not_in "$taint" "$taints"; then
      kubectl taint node "$node" "${taint%%=*}:${taint##*:}-" >/dev/null 2>&1 || true
    fi
  done
  for taint in ${taints//,/ }; do
    kubectl taint node "$node" --overwrite "$taint" >/dev/null
  done
  kubectl annotate node "$node" --overwrite "gpukit.dev/labels=$labels" "gpukit.dev/taints=$taints" >/dev/null
}

while IFS="$(printf '\t')" read -r pool labels taints; do
  [ -n "$pool" ] || continue
  for node in $(kubectl get nodes -l "$POOL_LABEL=$pool" -o 'jsonpath={.items[*].metadata.name}'); do
    sync_node "$node" "$labels" "$taints" || echo "gpukit: warning: could not sync node $node" >&2
  done
done <<< "$pools"

readiness() {  # readiness SELECTOR: "name<TAB>Ready status<TAB>since<TAB>provider ID" per node
  kubectl get nodes -l "$1" -o \
    'jsonpath={range .items[*]}{.metadata.name}{"\t"}{.status.conditions[?(@.type=="Ready")].status}{"\t"}{.status.conditions[?(@.type=="Ready")].lastTransitionTime}{"\t"}{.spec.providerID}{"\n"}{end}'
}

not_ready_for() {  # not_ready_for SECONDS READY SINCE
  [ "$2" != True ] && [ -n "$3" ] && [ $((now - $(date -d "$3" +%s))) -ge "$1" ]
}

gone() {  # gone READY SINCE: not Ready for REAP_AFTER_SECONDS
  not_ready_for "$REAP_AFTER_SECONDS" "$1" "$2"
}

if ! declare -F machine_gone >/dev/null; then
  machine_gone() {  # machine_gone PROVIDER_ID: no cloud to ask here, so never known gone
    return 1
  }
fi

if [ "$REAP_AFTER_SECONDS" -gt 0 ]; then
  now=$(date +%s)
  readiness "$POOL_LABEL,!node-role.kubernetes.io/control-plane" | while IFS="$(printf '\t')" read -r node ready since provider; do
    if [ -n "$node" ] && gone "$ready" "$since"; then
      echo "gpukit: node $node has not been Ready since $since: its machine is gone; deleting the node"
      kubectl delete node "$node" --ignore-not-found >/dev/null
    elif [ -n "$node" ] && [ -n "$provider" ] && not_ready_for "$MACHINE_CHECK_AFTER_SECONDS" "$ready" "$since" \
      && machine_gone "$provider"; then
      echo "gpukit: node $node is not Ready and its machine $provider is gone; deleting the node"
      kubectl delete node "$node" --ignore-not-found >/dev/null
    fi
  done
  # A server's Node goes too, which makes k3s remove its etcd member, so that its replacement (at the
  # same address, under a new node name) can join etcd: but only while two other servers are Ready,
  # so that etcd keeps its majority whatever this decides.
  servers=$(readiness "$POOL_LABEL,node-role.kubernetes.io/control-plane")
  ready_servers=$(printf '%s\n' "$servers" | awk -F '\t' '$2 == "True"' | grep -c . || true)
  printf '%s\n' "$servers" | while IFS="$(printf '\t')" read -r node ready since _; do
    if [ -n "$node" ] && [ "$ready_servers" -ge 2 ] && gone "$ready" "$since"; then
      echo "gpukit: server $node has not been Ready since $since and $ready_servers others are: removing it (and its etcd member)"
      kubectl delete node "$node" --ignore-not-found >/dev/null
    fi
  done
fi

# --- gpukit node sync: runs on every server every two minutes (gpukit-node-sync.timer).
# 1. Puts each pool's current labels and taints on its existing nodes: k3s applies `node-label` and
#    `node-taint` only when a node registers, and kubelets may not change their own taints.
# 2. Where REAP_AFTER_SECONDS > 0 (machines on clouds), deletes nodes whose machines are gone (a spot
#    reclaim, a scale-in, a replacement): a group never brings the same machine back.
#    - An agent node not Ready for MACHINE_CHECK_AFTER_SECONDS goes at once when `machine_gone` (the
#      cloud's part, rendered above this script) says the machine behind its provider ID is gone or
#      was recreated since the node registered; one not Ready for REAP_AFTER_SECONDS goes anyway.
#    - A server's node only when `machine_gone` says so, never on time alone: deleting it removes its
#      etcd member, and k3s never lets a removed member back in by itself (k3s-io/k3s#13498); and only
#      while two other servers are Ready (etcd's majority).
# Inputs (set above by the renderer): REAP_AFTER_SECONDS, MACHINE_CHECK_AFTER_SECONDS, POOL_LABEL,
# MANAGED_KEYS (comma-separated label and taint keys, or prefixes ending in "/", that gpukit sets).
# Desired state: the ConfigMap kube-system/gpukit-pools that Pulumi writes, key `pools`, one line per
# pool: "<pool><TAB><k=v,k=v><TAB><key=value:Effect,...>".
# What the sync set before is kept in the ConfigMap kube-system/gpukit-node-sync (keys
# labels.<node>, taints.<node> and pool.<node>), which only the servers and cluster admins can write: a kubelet
# may write its own Node's annotations and labels, so nothing on the Node decides what is removed.
# A label or taint taken out of a pool goes from its nodes only when that record says the sync set it
# and its key is one gpukit manages (MANAGED_KEYS): never node-restriction.kubernetes.io/ labels or
# taints that others put on (a quarantine).
# Lists are split on spaces below: no word may expand into the names of files on this server.
set -f
kubectl() { k3s kubectl "$@"; }

if pools=$(kubectl -n kube-system get configmap gpukit-pools -o 'jsonpath={.data.pools}' 2>/dev/null); then
  pools_read=true
else
  echo "gpukit: no kube-system/gpukit-pools yet; nothing to sync"
  pools="" pools_read=false
fi

# The record: "labels.<node>", "taints.<node>" -> what the last sync set on that node, and
# "pool.<node>" -> the pool it was first seen in. Only a missing record counts as empty: on any other
# error this run writes no record, so a passing API error never forgets what a sync set.
declare -A record=()
record_read=true
# shellcheck disable=SC2016  # a Go template for kubectl, not shell
if record_lines=$(kubectl -n kube-system get configmap gpukit-node-sync --ignore-not-found \
  -o 'go-template={{range $k, $v := .data}}{{$k}}{{"\t"}}{{$v}}{{"\n"}}{{end}}' 2>/dev/null); then
  while IFS="$(printf '\t')" read -r key value; do
    [ -n "$key" ] && record[$key]=$value
  done <<< "$record_lines"
else
  echo "gpukit: warning: could not read kube-system/gpukit-node-sync; its record is left as it is" >&2
  record_read=false
fi
synced=()  # --from-literal arguments: the record this run writes

not_in() {  # not_in ITEM LIST(comma-separated)
  case ",$2," in *",$1,"*) return 1 ;; *) return 0 ;; esac
}

managed() {  # managed KEY: a label or taint key gpukit sets (MANAGED_KEYS)
  for entry in ${MANAGED_KEYS//,/ }; do
    case "$entry" in
      */) [ "${1#"$entry"}" = "$1" ] || return 0 ;;
      *) [ "$1" != "$entry" ] || return 0 ;;
    esac
  done
  return 1
}

sync_node() {  # sync_node NODE LABELS TAINTS; fails when any change fails (called where set -e is off)
  node=$1 labels=$2 taints=$3
  old_labels=${record[labels.$node]:-}
  old_taints=${record[taints.$node]:-}
  args=()
  for pair in ${old_labels//,/ }; do
    key=${pair%%=*}
    if [ "$key" != "$POOL_LABEL" ] && managed "$key" \
      && not_in "$key" "$(printf '%s' "$labels" | sed 's/=[^,]*//g')"; then
      args+=("$key-")
    fi
  done
  for pair in ${labels//,/ }; do
    args+=("$pair")
  done
  if [ "${#args[@]}" -gt 0 ]; then
    kubectl label node "$node" --overwrite "${args[@]}" >/dev/null || return 1
  fi
  for taint in ${old_taints//,/ }; do
    if managed "${taint%%=*}" && not_in "$taint" "$taints"; then
      kubectl taint node "$node" "${taint%%=*}:${taint##*:}-" >/dev/null 2>&1 || true
    fi
  done
  for taint in ${taints//,/ }; do
    kubectl taint node "$node" --overwrite "$taint" >/dev/null || return 1
  done
}

keep_record() {  # keep_record NODE: what the record held for NODE stays, so a later sync still acts on it
  synced+=("--from-literal=labels.$1=${record[labels.$1]:-}" "--from-literal=taints.$1=${record[taints.$1]:-}")
  [ -z "${record[pool.$1]:-}" ] || synced+=("--from-literal=pool.$1=${record[pool.$1]}")
}

while IFS="$(printf '\t')" read -r pool labels taints; do
  [ -n "$pool" ] || continue
  if ! nodes=$(kubectl get nodes -l "$POOL_LABEL=$pool" -o 'jsonpath={.items[*].metadata.name}'); then
    echo "gpukit: warning: could not list the nodes of pool $pool; the record is left as it is" >&2
    record_read=false
    continue
  fi
  for node in $nodes; do
    # A kubelet may relabel its own Node, pool label included: a node that says it moved pools is not
    # synced (that would take off its own pool's taints), and its record stays.
    first_pool=${record[pool.$node]:-$pool}
    if [ "$first_pool" != "$pool" ]; then
      echo "gpukit: warning: node $node was in pool $first_pool and now says $pool: not synced" >&2
      keep_record "$node"
      continue
    fi
    if sync_node "$node" "$labels" "$taints"; then
      synced+=("--from-literal=labels.$node=$labels" "--from-literal=taints.$node=$taints")
      synced+=("--from-literal=pool.$node=$pool")
    else
      echo "gpukit: warning: could not sync node $node" >&2
      keep_record "$node"
    fi
  done
done <<< "$pools"

# The record of this run, for nodes that exist: server-side apply drops the entries of nodes that
# are gone. Not written when the desired state, the record or a pool's nodes could not be read (the
# record stays as it was).
if [ "$pools_read" = true ] && [ "$record_read" = true ]; then
  kubectl -n kube-system create configmap gpukit-node-sync "${synced[@]}" --dry-run=client -o yaml \
    | kubectl apply --server-side --force-conflicts --field-manager=gpukit-node-sync -f - >/dev/null \
    || echo "gpukit: warning: could not write kube-system/gpukit-node-sync" >&2
fi

readiness() {  # readiness SELECTOR: "name<TAB>Ready status<TAB>since<TAB>provider ID<TAB>created" per node
  kubectl get nodes -l "$1" -o \
    'jsonpath={range .items[*]}{.metadata.name}{"\t"}{.status.conditions[?(@.type=="Ready")].status}{"\t"}{.status.conditions[?(@.type=="Ready")].lastTransitionTime}{"\t"}{.spec.providerID}{"\t"}{.metadata.creationTimestamp}{"\n"}{end}'
}

not_ready_for() {  # not_ready_for SECONDS READY SINCE
  [ "$2" != True ] && [ -n "$3" ] && [ $((now - $(date -d "$3" +%s))) -ge "$1" ]
}

gone() {  # gone READY SINCE: not Ready for REAP_AFTER_SECONDS
  not_ready_for "$REAP_AFTER_SECONDS" "$1" "$2"
}

if ! declare -F machine_gone >/dev/null; then
  machine_gone() {  # machine_gone PROVIDER_ID NODE_CREATED: no cloud to ask here, so never known gone
    return 1
  }
fi

if [ "$REAP_AFTER_SECONDS" -gt 0 ]; then
  now=$(date +%s)
  readiness "$POOL_LABEL,!node-role.kubernetes.io/control-plane" | while IFS="$(printf '\t')" read -r node ready since provider created; do
    if [ -n "$node" ] && gone "$ready" "$since"; then
      echo "gpukit: node $node has not been Ready since $since: its machine is gone; deleting the node"
      kubectl delete node "$node" --ignore-not-found >/dev/null || echo "gpukit: warning: could not delete node $node" >&2
    elif [ -n "$node" ] && [ -n "$provider" ] && not_ready_for "$MACHINE_CHECK_AFTER_SECONDS" "$ready" "$since" \
      && machine_gone "$provider" "$created"; then
      echo "gpukit: node $node is not Ready and its machine $provider is gone; deleting the node"
      kubectl delete node "$node" --ignore-not-found >/dev/null || echo "gpukit: warning: could not delete node $node" >&2
    fi
  done
  # A server's Node goes when the cloud says its machine is gone or was recreated, which makes k3s
  # remove its etcd member, so that its replacement (at the same address, under a new node name) can
  # join etcd; a server that is only down (stopped, rebooting, cut off) keeps its member however long
  # it takes. Only while two other servers are Ready, so that etcd keeps its majority.
  servers=$(readiness "$POOL_LABEL,node-role.kubernetes.io/control-plane")
  ready_servers=$(printf '%s\n' "$servers" | awk -F '\t' '$2 == "True"' | grep -c . || true)
  printf '%s\n' "$servers" | while IFS="$(printf '\t')" read -r node ready since provider created; do
    if [ -n "$node" ] && [ -n "$provider" ] && [ "$ready_servers" -ge 2 ] \
      && not_ready_for "$MACHINE_CHECK_AFTER_SECONDS" "$ready" "$since" && machine_gone "$provider" "$created"; then
      echo "gpukit: server $node is not Ready, its machine $provider is gone and $ready_servers others are Ready: removing it (and its etcd member)"
      kubectl delete node "$node" --ignore-not-found >/dev/null || echo "gpukit: warning: could not delete server $node" >&2
    fi
  done
fi

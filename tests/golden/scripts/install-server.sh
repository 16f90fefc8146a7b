#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
ROLE=server
K3S_VERSION=v1.36.4+k3s1
K3S_CONFIG='node-name: n1
token-file: /etc/rancher/k3s/gpukit-token
agent-token-file: /etc/rancher/k3s/gpukit-agent-token
tls-san:
- 192.0.2.10
disable:
- traefik
- servicelb
write-kubeconfig-mode: '"'"'0600'"'"'
secrets-encryption: true
kube-apiserver-arg:
- admission-control-config-file=/var/lib/rancher/k3s/server/gpukit-pod-security.yaml
node-label:
- gpukit.dev/pool=control
node-taint: []
'
KUBELET_CONFIG='apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
shutdownGracePeriod: 60s
shutdownGracePeriodCriticalPods: 20s
'
TOKEN_FILE=/etc/rancher/k3s/gpukit-token
AGENT_TOKEN_FILE=/etc/rancher/k3s/gpukit-agent-token
TLS_DIR=/var/lib/rancher/k3s/server/tls
JOIN_URLS=''
MAY_INIT=true
CLUSTER_INIT=false
JOIN_PROBES=6
JOIN_WAIT_SECONDS=1800
INSTALLER_URL=https://raw.githubusercontent.com/k3s-io/k3s/v1.36.4+k3s1/install.sh
INSTALLER_SHA256=46720556673bfeb53f5c27741c482cf5166fddd02031be546a86ca2c2d3e2510
BINARY_URL_AMD64=https://github.com/k3s-io/k3s/releases/download/v1.36.4+k3s1/k3s
BINARY_SHA256_AMD64=a356bb9b16bd4707c5fb4d119cf68645f31061799eefb668012720ced710f2cd
BINARY_URL_ARM64=https://github.com/k3s-io/k3s/releases/download/v1.36.4+k3s1/k3s-arm64
BINARY_SHA256_ARM64=a356bb9b16bd4707c5fb4d119cf68645f31061799eefb668012720ced710f2cd
# shellcheck disable=SC2016
GUARD_SCRIPT='#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
POD_CIDR=10.42.0.0/16
METADATA_ADDRESSES=169.254.169.254
# --- gpukit metadata guard: pods may not reach the cloud'"'"'s metadata server. Run by systemd
# (gpukit-metadata-guard.service) at every boot, before k3s; safe to run again (a rule is added once).
# Inputs (set above by the renderer): POD_CIDR, METADATA_ADDRESSES (space-separated IPv4 addresses)
# Pod traffic leaves through the host'"'"'s PREROUTING; the raw table sees it before any chain k3s,
# flannel or kube-router manage, so none of their ACCEPT rules can come first. Host-network pods are
# the host to the kernel: Pod Security Admission (baseline and up) refuses them outside the
# namespaces gpukit exempts, which hold only system components that may need the metadata server.
# Only TCP other than port 53 is dropped: the metadata service speaks HTTP, and on Compute Engine the
# same address is the network'"'"'s DNS resolver, which CoreDNS (a pod) forwards to.
# Pods get IPv4 addresses only (gpukit keeps k3s'"'"'s single-stack default), so an IPv6 metadata
# endpoint (EC2'"'"'s fd00:ec2::254) is out of their reach.
fail() {
  echo "gpukit: $*" >&2
  exit 1
}


command -v iptables >/dev/null 2>&1 || fail "iptables not found: it is needed to keep pods off the metadata server"
for address in $METADATA_ADDRESSES; do
  rule=(-s "$POD_CIDR" -d "$address" -p tcp '"'"'!'"'"' --dport 53 -j DROP)
  if ! iptables -w -t raw -C PREROUTING "${rule[@]}" 2>/dev/null; then
    iptables -w -t raw -I PREROUTING "${rule[@]}" \
      || fail "iptables could not add the rule that drops pod traffic to $address"
  fi
done
echo "gpukit: pod traffic from $POD_CIDR to $METADATA_ADDRESSES is dropped (all TCP but DNS)"
'
GUARD_UNIT='[Unit]
Description=gpukit: drop pod traffic to the cloud metadata server
DefaultDependencies=no
After=network-pre.target
Before=network.target k3s.service k3s-agent.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/lib/gpukit/metadata-guard.sh

[Install]
WantedBy=multi-user.target'
GUARD_DROP_IN='[Unit]
Requires=gpukit-metadata-guard.service
After=gpukit-metadata-guard.service'
POD_SECURITY_CONFIG='apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodSecurity
  configuration:
    apiVersion: pod-security.admission.config.k8s.io/v1
    kind: PodSecurityConfiguration
    defaults:
      enforce: baseline
      enforce-version: latest
      audit: restricted
      audit-version: latest
      warn: restricted
      warn-version: latest
    exemptions:
      usernames: []
      runtimeClasses: []
      namespaces:
      - kube-system
'
ADMIN_BINDING='apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: gpukit-admin
  labels:
    app.kubernetes.io/managed-by: gpukit
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-admin
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: User
  name: gpukit-admin
'
SERVER_POLICY=''
# shellcheck disable=SC2016
NODE_SYNC_SCRIPT='#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
REAP_AFTER_SECONDS=0
MACHINE_CHECK_AFTER_SECONDS=120
POOL_LABEL=gpukit.dev/pool
MANAGED_KEYS=gpukit.dev/,nvidia.com/,CriticalAddonsOnly,k8s.amazonaws.com/accelerator,cloud.google.com/gke-accelerator
# --- gpukit node sync: runs on every server every two minutes (gpukit-node-sync.timer).
# 1. Puts each pool'"'"'s current labels and taints on its existing nodes: k3s applies `node-label` and
#    `node-taint` only when a node registers, and kubelets may not change their own taints.
# 2. Where REAP_AFTER_SECONDS > 0 (machines on clouds), deletes nodes whose machines are gone (a spot
#    reclaim, a scale-in, a replacement): a group never brings the same machine back.
#    - An agent node not Ready for MACHINE_CHECK_AFTER_SECONDS goes at once when `machine_gone` (the
#      cloud'"'"'s part, rendered above this script) says the machine behind its provider ID is gone or
#      was recreated since the node registered; one not Ready for REAP_AFTER_SECONDS goes anyway.
#    - A server'"'"'s node only when `machine_gone` says so, never on time alone: deleting it removes its
#      etcd member, and k3s never lets a removed member back in by itself (k3s-io/k3s#13498); and only
#      while two other servers are Ready (etcd'"'"'s majority).
# Inputs (set above by the renderer): REAP_AFTER_SECONDS, MACHINE_CHECK_AFTER_SECONDS, POOL_LABEL,
# MANAGED_KEYS (comma-separated label and taint keys, or prefixes ending in "/", that gpukit sets).
# Desired state: the ConfigMap kube-system/gpukit-pools that Pulumi writes, key `pools`, one line per
# pool: "<pool><TAB><k=v,k=v><TAB><key=value:Effect,...>".
# What the sync set before is kept in the ConfigMap kube-system/gpukit-node-sync (keys
# labels.<node>, taints.<node> and pool.<node>), which only the servers and cluster admins can write: a kubelet
# may write its own Node'"'"'s annotations and labels, so nothing on the Node decides what is removed.
# A label or taint taken out of a pool goes from its nodes only when that record says the sync set it
# and its key is one gpukit manages (MANAGED_KEYS): never node-restriction.kubernetes.io/ labels or
# taints that others put on (a quarantine).
# Lists are split on spaces below: no word may expand into the names of files on this server.
set -f
kubectl() { k3s kubectl "$@"; }

if pools=$(kubectl -n kube-system get configmap gpukit-pools -o '"'"'jsonpath={.data.pools}'"'"' 2>/dev/null); then
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
  -o '"'"'go-template={{range $k, $v := .data}}{{$k}}{{"\t"}}{{$v}}{{"\n"}}{{end}}'"'"' 2>/dev/null); then
  while IFS="$(printf '"'"'\t'"'"')" read -r key value; do
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
      && not_in "$key" "$(printf '"'"'%s'"'"' "$labels" | sed '"'"'s/=[^,]*//g'"'"')"; then
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

while IFS="$(printf '"'"'\t'"'"')" read -r pool labels taints; do
  [ -n "$pool" ] || continue
  if ! nodes=$(kubectl get nodes -l "$POOL_LABEL=$pool" -o '"'"'jsonpath={.items[*].metadata.name}'"'"'); then
    echo "gpukit: warning: could not list the nodes of pool $pool; the record is left as it is" >&2
    record_read=false
    continue
  fi
  for node in $nodes; do
    # A kubelet may relabel its own Node, pool label included: a node that says it moved pools is not
    # synced (that would take off its own pool'"'"'s taints), and its record stays.
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
# are gone. Not written when the desired state, the record or a pool'"'"'s nodes could not be read (the
# record stays as it was).
if [ "$pools_read" = true ] && [ "$record_read" = true ]; then
  kubectl -n kube-system create configmap gpukit-node-sync "${synced[@]}" --dry-run=client -o yaml \
    | kubectl apply --server-side --force-conflicts --field-manager=gpukit-node-sync -f - >/dev/null \
    || echo "gpukit: warning: could not write kube-system/gpukit-node-sync" >&2
fi

readiness() {  # readiness SELECTOR: "name<TAB>Ready status<TAB>since<TAB>provider ID<TAB>created" per node
  kubectl get nodes -l "$1" -o \
    '"'"'jsonpath={range .items[*]}{.metadata.name}{"\t"}{.status.conditions[?(@.type=="Ready")].status}{"\t"}{.status.conditions[?(@.type=="Ready")].lastTransitionTime}{"\t"}{.spec.providerID}{"\t"}{.metadata.creationTimestamp}{"\n"}{end}'"'"'
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
  readiness "$POOL_LABEL,!node-role.kubernetes.io/control-plane" | while IFS="$(printf '"'"'\t'"'"')" read -r node ready since provider created; do
    if [ -n "$node" ] && gone "$ready" "$since"; then
      echo "gpukit: node $node has not been Ready since $since: its machine is gone; deleting the node"
      kubectl delete node "$node" --ignore-not-found >/dev/null || echo "gpukit: warning: could not delete node $node" >&2
    elif [ -n "$node" ] && [ -n "$provider" ] && not_ready_for "$MACHINE_CHECK_AFTER_SECONDS" "$ready" "$since" \
      && machine_gone "$provider" "$created"; then
      echo "gpukit: node $node is not Ready and its machine $provider is gone; deleting the node"
      kubectl delete node "$node" --ignore-not-found >/dev/null || echo "gpukit: warning: could not delete node $node" >&2
    fi
  done
  # A server'"'"'s Node goes when the cloud says its machine is gone or was recreated, which makes k3s
  # remove its etcd member, so that its replacement (at the same address, under a new node name) can
  # join etcd; a server that is only down (stopped, rebooting, cut off) keeps its member however long
  # it takes. Only while two other servers are Ready, so that etcd keeps its majority.
  servers=$(readiness "$POOL_LABEL,node-role.kubernetes.io/control-plane")
  ready_servers=$(printf '"'"'%s\n'"'"' "$servers" | awk -F '"'"'\t'"'"' '"'"'$2 == "True"'"'"' | grep -c . || true)
  printf '"'"'%s\n'"'"' "$servers" | while IFS="$(printf '"'"'\t'"'"')" read -r node ready since provider created; do
    if [ -n "$node" ] && [ -n "$provider" ] && [ "$ready_servers" -ge 2 ] \
      && not_ready_for "$MACHINE_CHECK_AFTER_SECONDS" "$ready" "$since" && machine_gone "$provider" "$created"; then
      echo "gpukit: server $node is not Ready, its machine $provider is gone and $ready_servers others are Ready: removing it (and its etcd member)"
      kubectl delete node "$node" --ignore-not-found >/dev/null || echo "gpukit: warning: could not delete server $node" >&2
    fi
  done
fi
'
NODE_SYNC_SERVICE='[Unit]
Description=gpukit: pools'"'"' labels and taints onto their nodes; nodes of gone machines removed
After=k3s.service

[Service]
Type=oneshot
# A oneshot has no start timeout by default: one hung cloud or API call would stop every later run.
TimeoutStartSec=5min
ExecStart=/usr/local/lib/gpukit/node-sync.sh'
NODE_SYNC_TIMER='[Unit]
Description=gpukit node sync, every 2min

[Timer]
OnBootSec=2min
OnUnitActiveSec=2min

[Install]
WantedBy=timers.target'
# shellcheck disable=SC2016
REJOIN_SCRIPT='#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
JOIN_URLS='"'"''"'"'
TLS_DIR=/var/lib/rancher/k3s/server/tls
JOIN_FILE=/etc/rancher/k3s/config.yaml.d/50-gpukit-join.yaml
ETCD_DIR=/var/lib/rancher/k3s/server/db/etcd
REJOIN_MARKER=/var/lib/gpukit/rejoined-at
START_MARKER=/var/lib/gpukit/k3s-started-at
REMOVED_MESSAGE='"'"'the member has been permanently removed from the cluster'"'"'
# --- gpukit: ping URL, true when the k3s server at URL answers /ping with "pong"; checked against the
# cluster'"'"'s CA once this machine holds it (agents'"'"' tokens carry the CA'"'"'s hash, which k3s checks when
# it joins). Inputs (set above by the renderer): TLS_DIR; ROOT, set by the script that calls it.
ping() {
  if [ -e "$ROOT$TLS_DIR/server-ca.crt" ]; then
    answer=$(curl -s --cacert "$ROOT$TLS_DIR/server-ca.crt" --connect-timeout 5 --max-time 10 "$1/ping" 2>/dev/null)
  else
    answer=$(curl -sk --connect-timeout 5 --max-time 10 "$1/ping" 2>/dev/null)
  fi
  [ "$answer" = pong ]
}
# --- gpukit server rejoin: runs before every start of k3s on a server (ExecStartPre, a drop-in for
# k3s.service). A server whose etcd member was removed (its Node deleted while it was down) is told by
# etcd "the member has been permanently removed from the cluster"; k3s then exits, and systemd'"'"'s
# restarts never bring it back until its etcd data is gone (k3s-io/k3s#13498). This moves that data
# aside and joins again through another server that answers, as a new member, with the same CA,
# token and config. It never starts a new cluster: without another server that answers it leaves
# everything as it is (and k3s fails on, as it would have).
# Only what k3s logged since the previous start counts: an old "removed" line from an incident fixed
# by hand must not move a healthy member'"'"'s data aside (it would then join as a second member with the
# same peer address, which etcd refuses). The first start this script sees only records the time; if
# k3s then fails on a removed member, systemd restarts it and the next run finds the line.
# Inputs (set above by the renderer): JOIN_URLS (the other servers), TLS_DIR, JOIN_FILE, ETCD_DIR,
# START_MARKER (when the previous start began), REJOIN_MARKER (when this last moved the data aside),
# REMOVED_MESSAGE
ROOT="${GPUKIT_ROOT:-}"  # empty on a real host; a temporary root in gpukit'"'"'s tests
etcd="$ROOT$ETCD_DIR"
marker="$ROOT$REJOIN_MARKER"
started="$ROOT$START_MARKER"
previous=$(cat "$started" 2>/dev/null || true)
mkdir -p "$(dirname "$started")"
date +%s > "$started"
[ -d "$etcd" ] || exit 0  # SQLite, or not joined yet: nothing to rejoin
[[ "$previous" =~ ^[0-9]+$ ]] || exit 0  # the first start seen: nothing logged since one yet
since=$previous
rejoined=$(cat "$marker" 2>/dev/null || echo 0)
if [[ "$rejoined" =~ ^[0-9]+$ ]] && [ "$rejoined" -gt "$since" ]; then
  since=$rejoined
fi
# grep reads the whole journal (no -q): with -q it stops at the first match, journalctl then fails
# writing to the closed pipe, and under pipefail the match would count as none (systemd/systemd#38114).
if ! journalctl -u k3s --since "@$since" -o cat --no-pager 2>/dev/null | grep -F -- "$REMOVED_MESSAGE" >/dev/null; then
  exit 0
fi
joined=""
for url in $JOIN_URLS; do
  if ping "$url"; then
    joined=$url
    break
  fi
done
if [ -z "$joined" ]; then
  echo "gpukit: this server'"'"'s etcd member was removed and no other server answers at $JOIN_URLS: keeping its data" >&2
  exit 0
fi
# One earlier copy is kept, the newest; older ones go (each is a whole etcd data folder).
rm -rf "$etcd".removed-*
mv "$etcd" "$etcd.removed-$(date +%Y%m%dT%H%M%S)"
mkdir -p "$(dirname "$ROOT$JOIN_FILE")"
printf '"'"'server: %s\n'"'"' "$joined" > "$ROOT$JOIN_FILE"
mkdir -p "$(dirname "$marker")"
date +%s > "$marker"
echo "gpukit: this server'"'"'s etcd member was removed: its etcd data moved aside; joining again through $joined"
'
REJOIN_DROP_IN='[Service]
ExecStartPre=-/usr/local/lib/gpukit/server-rejoin.sh'
# --- gpukit: ping URL, true when the k3s server at URL answers /ping with "pong"; checked against the
# cluster's CA once this machine holds it (agents' tokens carry the CA's hash, which k3s checks when
# it joins). Inputs (set above by the renderer): TLS_DIR; ROOT, set by the script that calls it.
ping() {
  if [ -e "$ROOT$TLS_DIR/server-ca.crt" ]; then
    answer=$(curl -s --cacert "$ROOT$TLS_DIR/server-ca.crt" --connect-timeout 5 --max-time 10 "$1/ping" 2>/dev/null)
  else
    answer=$(curl -sk --connect-timeout 5 --max-time 10 "$1/ping" 2>/dev/null)
  fi
  [ "$answer" = pong ]
}
# --- gpukit k3s install: place secrets and config, keep pods off the metadata server, decide whether
# this machine starts the cluster or joins it, install a checked k3s at a pinned version, wait until
# it is ready.
# Inputs (set above by the renderer): ROLE (server|agent), K3S_VERSION, K3S_CONFIG, KUBELET_CONFIG,
# TOKEN_FILE, AGENT_TOKEN_FILE, TLS_DIR, JOIN_URLS (space-separated https URLs of the servers to join
# through), MAY_INIT (true: the one server that starts the cluster when no other server answers),
# CLUSTER_INIT (true: start it with embedded etcd), JOIN_PROBES, JOIN_WAIT_SECONDS,
# INSTALLER_URL, INSTALLER_SHA256, BINARY_URL_AMD64, BINARY_SHA256_AMD64, BINARY_URL_ARM64,
# BINARY_SHA256_ARM64 (empty: no sum pinned for that architecture), GUARD_SCRIPT, GUARD_UNIT,
# GUARD_DROP_IN, POD_SECURITY_CONFIG, ADMIN_BINDING, SERVER_POLICY, NODE_SYNC_SCRIPT,
# NODE_SYNC_SERVICE, NODE_SYNC_TIMER, REJOIN_SCRIPT, REJOIN_DROP_IN (the last eight on servers only;
# empty on agents; SERVER_POLICY empty where servers are not tainted); `ping` (server-ping.sh, above)
# Stdin: the secrets bundle, one "path<TAB>base64 content" line per file: the token file, and on
# servers the agent token file and the cluster CAs. Any other path is refused before anything is written.
# Running it again with the same inputs changes nothing; a changed config restarts k3s with it.
ROOT="${GPUKIT_ROOT:-}"  # empty on a real host; a temporary root in gpukit's tests
fail() {
  echo "gpukit: $*" >&2
  exit 1
}

config_dir="$ROOT/etc/rancher/k3s"
join_file="$config_dir/config.yaml.d/50-gpukit-join.yaml"
service=k3s
if [ "$ROLE" = agent ]; then
  service=k3s-agent
fi
changed=false
umask 077
kubelet_drop_in="$ROOT/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/50-gpukit-shutdown.conf"
guard="$ROOT/usr/local/lib/gpukit/metadata-guard.sh"
guard_unit="$ROOT/etc/systemd/system/gpukit-metadata-guard.service"
guard_drop_in="$ROOT/etc/systemd/system/$service.service.d/50-gpukit-metadata-guard.conf"
pod_security="$ROOT/var/lib/rancher/k3s/server/gpukit-pod-security.yaml"
admin_binding="$ROOT/var/lib/rancher/k3s/server/manifests/gpukit-admin.yaml"
server_policy="$ROOT/var/lib/rancher/k3s/server/manifests/gpukit-server-policy.yaml"
node_sync="$ROOT/usr/local/lib/gpukit/node-sync.sh"
node_sync_unit="$ROOT/etc/systemd/system/gpukit-node-sync"
rejoin="$ROOT/usr/local/lib/gpukit/server-rejoin.sh"
rejoin_drop_in="$ROOT/etc/systemd/system/k3s.service.d/50-gpukit-rejoin.conf"
# Secrets stay in memory-backed /run while they are read (never on a disk outside k3s's own files).
mkdir -p "$ROOT/run"
secrets=$(mktemp -d -p "$ROOT/run" gpukit.XXXXXX)
work=$(mktemp -d)
trap 'rm -rf "$secrets" "$work"' EXIT
mkdir -p "$config_dir" "$(dirname "$join_file")" "$(dirname "$kubelet_drop_in")" "$(dirname "$guard")" \
  "$(dirname "$guard_unit")" "$(dirname "$guard_drop_in")"

# Secrets: every line checked before anything is written: the bundle may name the token files and
# the TLS folder only, and a cluster CA that differs from the one already on the host means the host
# belongs to another cluster (refused, and left as it is). Then written 0600, never echoed.
cat > "$secrets/bundle"
while IFS="$(printf '\t')" read -r path content; do
  [ -n "$path" ] || continue
  case "$path" in
    *..*) fail "the secrets bundle names $path, outside the files gpukit writes: refusing it" ;;
    "$TOKEN_FILE") ;;
    "$AGENT_TOKEN_FILE" | "$TLS_DIR"/*)
      [ "$ROLE" = server ] || fail "the secrets bundle names $path, a server's file, on an agent: refusing it"
      ;;
    *) fail "the secrets bundle names $path, outside the files gpukit writes: refusing it" ;;
  esac
  case "$path" in
    "$TLS_DIR"/*)
      if [ -e "$ROOT$path" ] && ! printf '%s' "$content" | base64 -d | cmp -s - "$ROOT$path"; then
        fail "$path differs from the cluster CA gpukit manages: this host already runs another k3s cluster; uninstall it first (k3s-uninstall.sh)"
      fi
      ;;
  esac
done < "$secrets/bundle"
while IFS="$(printf '\t')" read -r path content; do
  [ -n "$path" ] || continue
  target="$ROOT$path"
  mkdir -p "$(dirname "$target")"
  tmp="$target.gpukit-new"
  printf '%s' "$content" | base64 -d > "$tmp"
  if [ -e "$target" ] && cmp -s "$tmp" "$target"; then
    rm -f "$tmp"
  else
    mv "$tmp" "$target"
    chmod 600 "$target"
    changed=true
  fi
done < "$secrets/bundle"
rm -f "$secrets/bundle"

write_if_changed() {
  # Both sides through $(...), which drops trailing newlines the same way.
  if [ -e "$1" ] && [ "$(cat "$1")" = "$(printf '%s' "$2")" ]; then
    return 0
  fi
  mkdir -p "$(dirname "$1")"
  printf '%s\n' "$2" > "$1"
  chmod "${3:-600}" "$1"
  changed=true
}
write_if_changed "$config_dir/config.yaml" "$K3S_CONFIG"
write_if_changed "$kubelet_drop_in" "$KUBELET_CONFIG"
if [ "$ROLE" = server ]; then
  write_if_changed "$pod_security" "$POD_SECURITY_CONFIG"
  write_if_changed "$admin_binding" "$ADMIN_BINDING"
  if [ -n "$SERVER_POLICY" ]; then
    write_if_changed "$server_policy" "$SERVER_POLICY"
  elif [ -e "$server_policy" ]; then
    rm -f "$server_policy"  # servers made schedulable: k3s keeps what it applied; kubectl delete removes it
    changed=true
  fi
  write_if_changed "$node_sync" "$NODE_SYNC_SCRIPT" 700
  write_if_changed "$node_sync_unit.service" "$NODE_SYNC_SERVICE" 644
  write_if_changed "$node_sync_unit.timer" "$NODE_SYNC_TIMER" 644
  write_if_changed "$rejoin" "$REJOIN_SCRIPT" 700
  write_if_changed "$rejoin_drop_in" "$REJOIN_DROP_IN" 644
fi

# Pods never reach the cloud's metadata server: the rules go in before k3s starts, and k3s's unit
# requires the guard's, so no boot runs k3s without them.
write_if_changed "$guard" "$GUARD_SCRIPT" 700
write_if_changed "$guard_unit" "$GUARD_UNIT" 644
write_if_changed "$guard_drop_in" "$GUARD_DROP_IN" 644
systemctl daemon-reload
systemctl enable gpukit-metadata-guard.service
systemctl start gpukit-metadata-guard.service \
  || fail "could not block pod traffic to the metadata server: see journalctl -u gpukit-metadata-guard"

# Start the cluster or join it, decided once per machine (a replaced machine decides again, with an
# empty disk): join the first server that answers; only the server allowed to start the cluster does
# so, and only when none of the others answers (a new cluster, or one whose servers are all gone).
# A server answers /ping with "pong"; servers also check it holds the cluster's CA (agents' tokens
# carry the CA's hash, which k3s checks when it joins).
# A single server that became the first of three (SQLite): starting with embedded etcd converts it.
if [ "$MAY_INIT" = true ] && [ "$CLUSTER_INIT" = true ] && [ -e "$join_file" ] \
  && [ "$(cat "$join_file")" = "cluster-init: false" ]; then
  write_if_changed "$join_file" "cluster-init: true"
fi
if [ ! -e "$join_file" ]; then
  joined=""
  waited=0
  probes=0
  while [ -z "$joined" ]; do
    for url in $JOIN_URLS; do
      if ping "$url"; then
        joined=$url
        break
      fi
    done
    [ -z "$joined" ] || break
    probes=$((probes + 1))
    if [ "$MAY_INIT" = true ] && { [ -z "$JOIN_URLS" ] || [ "$probes" -ge "$JOIN_PROBES" ]; }; then
      break
    fi
    if [ "$waited" -ge "$JOIN_WAIT_SECONDS" ]; then
      fail "no server answered at $JOIN_URLS within ${JOIN_WAIT_SECONDS}s: this machine cannot join"
    fi
    sleep 10
    waited=$((waited + 10))
  done
  if [ -n "$joined" ]; then
    echo "gpukit: joining the cluster through $joined"
    write_if_changed "$join_file" "server: $joined"
  else
    echo "gpukit: no other server answers: starting the cluster"
    write_if_changed "$join_file" "cluster-init: $CLUSTER_INIT"
  fi
fi

installed=none
if command -v k3s >/dev/null 2>&1; then
  installed=$(k3s --version 2>/dev/null | head -n 1 | cut -d' ' -f3)
fi
if [ "$installed" = "$K3S_VERSION" ] && [ "$changed" = false ] && systemctl is-active --quiet "$service"; then
  echo "gpukit: k3s $K3S_VERSION ($ROLE) already installed and up to date"
  exit 0
fi

# Download with retries, then check against the SHA-256 gpukit pins before anything runs.
fetch_checked() {
  attempt=1
  until curl -sfL --connect-timeout 10 --max-time 300 "$1" -o "$2"; do
    if [ "$attempt" -ge 5 ]; then
      fail "could not download $1 after $attempt attempts: check the host's internet access or proxy"
    fi
    sleep $((attempt * attempt))
    attempt=$((attempt + 1))
  done
  if ! printf '%s  %s\n' "$3" "$2" | sha256sum -c --status -; then
    fail "$1 does not have the SHA-256 gpukit pins ($3): refusing to run it"
  fi
}
case "$(uname -m)" in
  x86_64 | amd64) binary_url=$BINARY_URL_AMD64 binary_sha256=$BINARY_SHA256_AMD64 ;;
  aarch64 | arm64) binary_url=$BINARY_URL_ARM64 binary_sha256=$BINARY_SHA256_ARM64 ;;
  *) fail "k3s runs on amd64 and arm64 here; this host is $(uname -m)" ;;
esac
[ -n "$binary_sha256" ] || fail "no SHA-256 pinned for k3s $K3S_VERSION on $(uname -m): set gpukit:cluster.k3sSha256"
fetch_checked "$binary_url" "$work/k3s" "$binary_sha256"
fetch_checked "$INSTALLER_URL" "$work/install.sh" "$INSTALLER_SHA256"
mkdir -p "$ROOT/usr/local/bin"
install -m 755 "$work/k3s" "$ROOT/usr/local/bin/k3s"
# The installer restarts k3s only when its binary or unit changed: a new config needs a forced restart.
INSTALL_K3S_SKIP_DOWNLOAD=true INSTALL_K3S_VERSION="$K3S_VERSION" INSTALL_K3S_EXEC="$ROLE" \
  INSTALL_K3S_FORCE_RESTART="$changed" sh "$work/install.sh" \
  || fail "the k3s installer failed: see its output above (journalctl -u $service on the host)"

waited=0
until systemctl is-active --quiet "$service"; do
  if [ "$waited" -ge 300 ]; then
    fail "$service did not become active within 300s: see journalctl -u $service on the host"
  fi
  sleep 5
  waited=$((waited + 5))
done
# Servers: wait for the API, and for the admin binding k3s applies from its manifests folder, so what
# Pulumi installs next (the GPU Operator) finds it answering and may.
if [ "$ROLE" = server ]; then
  until k3s kubectl get --raw=/readyz >/dev/null 2>&1 \
    && k3s kubectl get clusterrolebinding gpukit-admin >/dev/null 2>&1; do
    if [ "$waited" -ge 300 ]; then
      fail "the Kubernetes API on this server did not become ready within 300s: see journalctl -u k3s"
    fi
    sleep 5
    waited=$((waited + 5))
  done
fi
if [ "$ROLE" = server ]; then
  systemctl enable --now gpukit-node-sync.timer || fail "could not start gpukit-node-sync.timer"
fi
echo "gpukit: k3s $K3S_VERSION ($ROLE) installed and running"

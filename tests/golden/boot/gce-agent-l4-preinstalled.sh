#!/usr/bin/env bash
# Rendered by gpukit (providers/gcp/k3s/startup_script.py): Compute Engine runs it at every boot.
set -euo pipefail
if [ -e /var/lib/gpukit/bootstrapped ]; then
  echo "gpukit: bootstrapped at first boot; nothing to do"
  exit 0
fi
umask 077
mkdir -p /opt/gpukit
cat > /opt/gpukit/preflight.sh <<'GPUKIT_PREFLIGHT_EOF'
#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
EXPECT_GPUS=1
GPU_MODEL=L4
GPU_PATTERN=l4
GPU_NAMES=l4
OTHER_GPU_NAMES='3090 4090 5090 6000ada a10 a10040gb a10040gbpcie a10080gb a10080gbpcie a100pcie40gb a100pcie80gb a100sxm440gb a100sxm480gb a10g a30 a40 a6000 b200 h100 h10080gb h10080gbhbm3 h100nvl h100pcie h100sxm h100sxm5 h200 h200nvl h200sxm l40 l40s pro6000 rtx3090 rtx4090 rtx5090 rtx6000ada rtxa6000 rtxpro6000 rtxpro6000blackwell rtxpro6000blackwellmaxqworkstationedition rtxpro6000blackwellserveredition rtxpro6000blackwellworkstationedition t4 v100 v10016gb v100pcie16gb v100sxm216gb'
DRIVER_MODE=preinstalled
MIN_DRIVER_BRANCH=0
CUDA_VERSION=''
# --- gpukit host preflight: what this host has, and whether it can join its pool.
# Inputs (set above by the renderer): EXPECT_GPUS (0: a CPU host, -1: any number of GPUs), GPU_PATTERN,
# GPU_NAMES, OTHER_GPU_NAMES,
# GPU_MODEL, DRIVER_MODE, MIN_DRIVER_BRANCH, CUDA_VERSION
# Output: one line per fact ("fact<TAB>key<TAB>value") and check ("check<TAB>ok|warn|fail<TAB>message").
# Exit status: 0 when the host is ready, 1 when a check failed.

ROOT="${GPUKIT_ROOT:-}"  # empty on a real host; a temporary root in gpukit's tests
failed=0
fact() { printf 'fact\t%s\t%s\n' "$1" "$2"; }
check() {
  printf 'check\t%s\t%s\n' "$1" "$2"
  if [ "$1" = fail ]; then failed=1; fi
}

os_name=unknown
if [ -r "$ROOT/etc/os-release" ]; then
  os_name=$(sed -n 's/^PRETTY_NAME="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$ROOT/etc/os-release" | head -n 1)
fi
fact os "${os_name:-unknown}"
fact kernel "$(uname -r)"
fact arch "$(uname -m)"
if [ "$(uname -s)" != Linux ]; then
  check fail "k3s runs on Linux only; this host runs $(uname -s)"
fi
if ! command -v systemctl >/dev/null 2>&1; then
  check fail "systemctl not found: the k3s installer needs systemd to run k3s as a service"
fi
if ! command -v curl >/dev/null 2>&1; then
  check fail "curl not found: install curl (the k3s installer is downloaded with it)"
fi
if ! command -v iptables >/dev/null 2>&1; then
  check fail "iptables not found: install it (gpukit keeps pods off the metadata server with it)"
fi
if ! command -v sha256sum >/dev/null 2>&1; then
  check fail "sha256sum not found: install coreutils (gpukit checks the k3s download with it)"
fi

pci_gpus=0
if command -v lspci >/dev/null 2>&1; then
  pci_gpus=$(lspci -n -d 10de: 2>/dev/null | grep -c -E ' 03(00|02):' || true)
fi
fact nvidia_pci_devices "$pci_gpus"

driver_loaded=no
if [ -r "$ROOT/proc/driver/nvidia/version" ]; then
  driver_loaded=yes
fi
fact driver_loaded "$driver_loaded"

# The name nvidia-smi reports, normalised as gpukit normalises model names
# (components/catalog/gpu_names.py): lower case, without NVIDIA/GeForce/Tesla/Generation, letters and
# digits only. It matches a pool's model when it is one of the model's spellings (GPU_NAMES), or when
# it is no other catalog model's (OTHER_GPU_NAMES) and matches GPU_PATTERN part by part.
gpu_name_matches() {
  local n
  n=$(printf '%s' "$1" | tr '[:upper:]' '[:lower:]' | sed -E 's/nvidia|geforce|tesla|generation//g' | LC_ALL=C tr -cd 'a-z0-9')
  case " $GPU_NAMES " in *" $n "*) return 0 ;; esac
  case " $OTHER_GPU_NAMES " in *" $n "*) return 1 ;; esac
  printf '%s' "$n" | grep -q -E "$GPU_PATTERN"
}

smi_gpus=0
driver_version=none
gpu_name=none
gpu_memory_mib=0
mig=unknown
if command -v nvidia-smi >/dev/null 2>&1 && smi=$(nvidia-smi --query-gpu=name,memory.total,driver_version,mig.mode.current --format=csv,noheader,nounits 2>/dev/null); then
  smi_gpus=$(printf '%s\n' "$smi" | grep -c . || true)
  first=$(printf '%s\n' "$smi" | head -n 1)
  gpu_name=$(printf '%s' "$first" | cut -d, -f1 | sed 's/^ *//; s/ *$//')
  gpu_memory_mib=$(printf '%s' "$first" | cut -d, -f2 | tr -d ' ')
  driver_version=$(printf '%s' "$first" | cut -d, -f3 | tr -d ' ')
  case "$(printf '%s' "$first" | cut -d, -f4 | tr -d ' ')" in
    Enabled|Disabled) mig=capable ;;
    *) mig=not-capable ;;
  esac
fi
gpus=$smi_gpus
if [ "$gpus" -eq 0 ]; then
  gpus=$pci_gpus
fi
fact gpu_count "$gpus"
fact gpu_model "$gpu_name"
fact gpu_memory_mib "$gpu_memory_mib"
fact driver_version "$driver_version"
fact mig "$mig"

toolkit=no
if command -v nvidia-container-runtime >/dev/null 2>&1 || command -v nvidia-ctk >/dev/null 2>&1; then
  toolkit=yes
fi
fact container_toolkit "$toolkit"

if [ "$EXPECT_GPUS" -ne 0 ]; then
  if [ "$gpus" -eq 0 ]; then
    check fail "no NVIDIA GPU found: this host cannot join a GPU pool"
  elif [ "$EXPECT_GPUS" -gt 0 ] && [ "$gpus" -ne "$EXPECT_GPUS" ]; then
    check fail "found $gpus NVIDIA GPUs, but the pool declares gpu.count $EXPECT_GPUS: fix the pool or the host"
  else
    check ok "$gpus NVIDIA GPUs found"
  fi
  if [ "$gpu_name" != none ] && ! gpu_name_matches "$gpu_name"; then
    check fail "the GPU is '$gpu_name', but the pool declares $GPU_MODEL: fix gpu.model or move the host"
  fi
  if [ "$DRIVER_MODE" = preinstalled ]; then
    if [ "$driver_loaded" = no ]; then
      check fail "no NVIDIA driver loaded, but driver: preinstalled: install the NVIDIA driver on the host, or set gpuOperator.driver: operator"
    fi
  elif [ "$driver_loaded" = yes ]; then
    check fail "an NVIDIA driver ($driver_version) is loaded, but driver: operator installs its own: remove the host driver, or set gpuOperator.driver: preinstalled"
  fi
  if [ -n "$CUDA_VERSION" ] && [ "$driver_version" != none ]; then
    branch=${driver_version%%.*}
    if [ "$branch" -lt "$MIN_DRIVER_BRANCH" ]; then
      check warn "driver $driver_version is older than R$MIN_DRIVER_BRANCH, which CUDA $CUDA_VERSION needs"
    else
      check ok "driver $driver_version runs CUDA $CUDA_VERSION"
    fi
  fi
elif [ "$gpus" -gt 0 ]; then
  check warn "this host has $gpus NVIDIA GPUs ($gpu_name) but its pool declares no gpu: pods cannot use them (gpukit installs no device plugin or GPU Operator for them); declare them with gpu: {model, count} in the pool"
fi

if [ "$failed" -eq 0 ]; then
  check ok "ready to join"
fi
exit "$failed"
GPUKIT_PREFLIGHT_EOF
chmod 700 /opt/gpukit/preflight.sh
cat > /opt/gpukit/fetch-secrets.sh <<'GPUKIT_FETCH_SECRETS_EOF'
#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
SECRET_VERSION=projects/acme-ml-dev/secrets/k3s-gcp-agents/versions/3
KMS_KEY=''
# --- gpukit: print the join secrets bundle from Secret Manager, read with the VM's service account.
# Inputs (set above by the renderer): SECRET_VERSION (projects/P/secrets/S/versions/N), KMS_KEY (the
# servers': projects/P/locations/L/keyRings/R/cryptoKeys/K, the Cloud KMS key their bundle is
# encrypted with before it is stored, so that reading the secret alone does not read it; empty for the
# agents', whose secret holds their token as it is)
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
# The payload's data, base64 as Secret Manager returns it (checked: it goes into curl's config below).
data=$(printf '%s' "$response" | python3 -c '
import base64, json, sys
data = json.load(sys.stdin)["payload"]["data"]
base64.b64decode(data, validate=True)
print(data)')
if [ -z "$KMS_KEY" ]; then
  printf '%s' "$data" | python3 -c 'import base64, sys; print(base64.b64decode(sys.stdin.read()).decode())'
  exit 0
fi
# The servers' payload is the bundle's Cloud KMS ciphertext: Cloud KMS decrypts it for the accounts
# the key lets decrypt (the servers' own), whoever else may read the secret.
plaintext=$(printf 'header = "Authorization: Bearer %s"\nheader = "Content-Type: application/json"\ndata-binary = "{\\"ciphertext\\": \\"%s\\"}"\n' "$access_token" "$data" \
  | curl -sf -K - "https://cloudkms.googleapis.com/v1/$KMS_KEY:decrypt") \
  || fail "Cloud KMS refused to decrypt $SECRET_VERSION with $KMS_KEY: the servers' service account needs roles/cloudkms.cryptoKeyDecrypter on that key, and the key version that encrypted it must be enabled"
printf '%s' "$plaintext" \
  | python3 -c 'import base64, json, sys; print(base64.b64decode(json.load(sys.stdin)["plaintext"]).decode())'
GPUKIT_FETCH_SECRETS_EOF
chmod 700 /opt/gpukit/fetch-secrets.sh
cat > /opt/gpukit/install.sh <<'GPUKIT_INSTALL_EOF'
#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
ROLE=agent
K3S_VERSION=v1.36.4+k3s1
K3S_CONFIG='token-file: /etc/rancher/k3s/gpukit-token
with-node-id: true
node-label:
- gpukit.dev/pool=l4
node-taint:
- nvidia.com/gpu=present:NoSchedule
'
KUBELET_CONFIG='apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
shutdownGracePeriod: 60s
shutdownGracePeriodCriticalPods: 20s
'
TOKEN_FILE=/etc/rancher/k3s/gpukit-token
AGENT_TOKEN_FILE=/etc/rancher/k3s/gpukit-agent-token
TLS_DIR=/var/lib/rancher/k3s/server/tls
JOIN_URLS='https://10.70.0.10:6443 https://10.70.0.11:6443 https://10.70.0.12:6443'
MAY_INIT=false
CLUSTER_INIT=false
JOIN_PROBES=6
JOIN_WAIT_SECONDS=1800
INSTALLER_URL=https://raw.githubusercontent.com/k3s-io/k3s/v1.36.4+k3s1/install.sh
INSTALLER_SHA256=46177d4c99440b4c0311b67233823a8e8a2fc09693f6c89af1a7161e152fbfad
BINARY_URL_AMD64=https://github.com/k3s-io/k3s/releases/download/v1.36.4+k3s1/k3s
BINARY_SHA256_AMD64=835873f37245fc615f547a2fe2af9402a347875f13fa64a1f136de644955ea3f
BINARY_URL_ARM64=https://github.com/k3s-io/k3s/releases/download/v1.36.4+k3s1/k3s-arm64
BINARY_SHA256_ARM64=c920706346d5ad4e5cd3c7bf1bb09ce71ebe07fec829e513e40f1caf98aed8bb
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
POD_SECURITY_CONFIG=''
ADMIN_BINDING=''
SERVER_POLICY=''
NODE_SYNC_SCRIPT=''
NODE_SYNC_SERVICE=''
NODE_SYNC_TIMER=''
REJOIN_SCRIPT=''
REJOIN_DROP_IN=''
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
GPUKIT_INSTALL_EOF
chmod 700 /opt/gpukit/install.sh
cat > /opt/gpukit/bootstrap.sh <<'GPUKIT_BOOTSTRAP_EOF'
#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
BOOTSTRAP_DIR=/opt/gpukit
DONE_MARKER=/var/lib/gpukit/bootstrapped
# --- gpukit cloud node bootstrap: run by systemd (gpukit-bootstrap.service) from first boot until it
# succeeds once; a failure is retried a minute later, a machine that does not match its pool is not.
# Checks the machine against its pool (preflight.sh), reads the join secrets from the cloud's secret
# store (fetch-secrets.sh, with the machine's own identity), then installs k3s (install.sh, which
# takes the secrets on stdin). The secrets never touch the user data, the disk outside k3s's own
# files, or the log. Output goes to /var/log/cloud-init-output.log.
# Inputs (set above by the renderer): BOOTSTRAP_DIR, DONE_MARKER
# Exit status: 0 joined (DONE_MARKER written), 3 the machine does not match its pool, 1 anything else.
ROOT="${GPUKIT_ROOT:-}"  # empty on a real host; a temporary root in gpukit's tests
fail() {
  echo "gpukit: $*" >&2
  exit 1
}
dir="$ROOT$BOOTSTRAP_DIR"

if ! "$dir/preflight.sh"; then
  echo "gpukit: preflight failed: this machine does not match its pool (see the checks above); it does not join the cluster" >&2
  exit 3
fi

# The machine's role or the secret's access grant can take a few seconds to reach every region
# endpoint after a new stack is created: retry before giving up.
attempt=1
until secrets=$("$dir/fetch-secrets.sh"); do
  if [ "$attempt" -ge 8 ]; then
    fail "could not read the join secrets after $attempt attempts: check the instance's role or service account"
  fi
  sleep $((attempt * 5))
  attempt=$((attempt + 1))
done
# Register under the cloud's provider ID (the Cluster Autoscaler's key), where the machine has one.
if [ -x "$dir/provider-id.sh" ]; then
  "$dir/provider-id.sh" || fail "could not work out this machine's provider ID"
fi
printf '%s\n' "$secrets" | "$dir/install.sh"
# Joined: give up the identity that read the secret, where the cloud allows it (it warns, never fails).
if [ -x "$dir/release-identity.sh" ]; then
  "$dir/release-identity.sh"
fi
mkdir -p "$(dirname "$ROOT$DONE_MARKER")"
touch "$ROOT$DONE_MARKER"
GPUKIT_BOOTSTRAP_EOF
chmod 700 /opt/gpukit/bootstrap.sh
cat > /opt/gpukit/provider-id.sh <<'GPUKIT_PROVIDER_ID_EOF'
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
GPUKIT_PROVIDER_ID_EOF
chmod 700 /opt/gpukit/provider-id.sh
cat > /etc/systemd/system/gpukit-bootstrap.service <<'GPUKIT_UNIT_EOF'
[Unit]
Description=gpukit: join this machine to its k3s cluster (until it has, once)
Wants=network-online.target
After=network-online.target
ConditionPathExists=!/var/lib/gpukit/bootstrapped
StartLimitIntervalSec=0

[Service]
Type=oneshot
ExecStart=/opt/gpukit/bootstrap.sh
Restart=on-failure
RestartSec=60
RestartPreventExitStatus=3

[Install]
WantedBy=multi-user.target
GPUKIT_UNIT_EOF
chmod 644 /etc/systemd/system/gpukit-bootstrap.service
systemctl daemon-reload
systemctl enable --now --no-block gpukit-bootstrap.service

#!/usr/bin/env bash
# Rendered by gpukit (components/k3s_cloud_init.py): Compute Engine runs it at every boot.
set -euo pipefail
if [ -e /var/lib/gpukit/bootstrapped ]; then
  echo "gpukit: bootstrapped at first boot; nothing to do"
  exit 0
fi
umask 077
mkdir -p /opt/gpukit /var/lib/gpukit
cat > /opt/gpukit/preflight.sh <<'GPUKIT_PREFLIGHT_EOF'
#!/usr/bin/env bash
# Rendered by gpukit (components/k3s_scripts.py); edit the source, not this copy.
set -euo pipefail
EXPECT_GPUS=1
GPU_MODEL=L4
GPU_PATTERN=L4
DRIVER_MODE=preinstalled
MIN_DRIVER_BRANCH=0
CUDA_VERSION=''
# --- gpukit host preflight: what this host has, and whether it can join its pool.
# Inputs (set above by the renderer): EXPECT_GPUS (0: a CPU host, -1: any number of GPUs), GPU_PATTERN,
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
  if [ "$gpu_name" != none ] && ! printf '%s' "$gpu_name" | grep -q -i -E "$GPU_PATTERN"; then
    check fail "the GPU is '$gpu_name', but the pool declares $GPU_MODEL: fix gpu.model or move the host"
  fi
  if [ "$DRIVER_MODE" = preinstalled ]; then
    if [ "$driver_loaded" = no ]; then
      check fail "no NVIDIA driver loaded, but driver: preinstalled: install the NVIDIA driver on the host, or set gpuOperator.driver: operator"
    fi
    if [ "$toolkit" = no ]; then
      check fail "nvidia-container-toolkit not found, but driver: preinstalled: install it so k3s can detect the NVIDIA runtime"
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
  check warn "this host has $gpus NVIDIA GPUs but joins a pool without GPUs: declare them with gpu: {model, count}"
fi

if [ "$failed" -eq 0 ]; then
  check ok "ready to join"
fi
exit "$failed"
GPUKIT_PREFLIGHT_EOF
chmod 700 /opt/gpukit/preflight.sh
cat > /opt/gpukit/fetch-secrets.sh <<'GPUKIT_FETCH_SECRETS_EOF'
#!/usr/bin/env bash
# Rendered by gpukit (components/k3s_scripts.py); edit the source, not this copy.
set -euo pipefail
SECRET_VERSION=projects/acme-ml-dev/secrets/k3s-gcp-agents/versions/latest
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
GPUKIT_FETCH_SECRETS_EOF
chmod 700 /opt/gpukit/fetch-secrets.sh
cat > /opt/gpukit/install.sh <<'GPUKIT_INSTALL_EOF'
#!/usr/bin/env bash
# Rendered by gpukit (components/k3s_scripts.py); edit the source, not this copy.
set -euo pipefail
ROLE=agent
K3S_VERSION=v1.35.8+k3s1
K3S_CONFIG='token-file: /etc/rancher/k3s/gpukit-token
server: https://10.70.0.10:6443
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
# --- gpukit k3s install: place secrets and config, install k3s at a pinned version, wait until ready.
# Inputs (set above by the renderer): ROLE (server|agent), K3S_VERSION, K3S_CONFIG, KUBELET_CONFIG
# Stdin: the secrets bundle, one "path<TAB>base64 content" line per file (token; CAs on servers).
# Running it again with the same inputs changes nothing; a changed config restarts k3s with it.
ROOT="${GPUKIT_ROOT:-}"  # empty on a real host; a temporary root in gpukit's tests
fail() {
  echo "gpukit: $*" >&2
  exit 1
}

config_dir="$ROOT/etc/rancher/k3s"
service=k3s
if [ "$ROLE" = agent ]; then
  service=k3s-agent
fi
changed=false
umask 077
kubelet_drop_in="$ROOT/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/50-gpukit-shutdown.conf"
mkdir -p "$config_dir" "$(dirname "$kubelet_drop_in")"

# Secrets: written 0600 and never echoed. A cluster CA that differs from the one already on the
# host means the host belongs to another cluster: refuse rather than break it.
while IFS="$(printf '\t')" read -r path content; do
  [ -n "$path" ] || continue
  target="$ROOT$path"
  mkdir -p "$(dirname "$target")"
  tmp="$target.gpukit-new"
  printf '%s' "$content" | base64 -d > "$tmp"
  if [ -e "$target" ] && ! cmp -s "$tmp" "$target"; then
    case "$path" in
      */tls/*)
        rm -f "$tmp"
        fail "$path differs from the cluster CA gpukit manages: this host already runs another k3s cluster; uninstall it first (k3s-uninstall.sh)"
        ;;
    esac
  fi
  if [ -e "$target" ] && cmp -s "$tmp" "$target"; then
    rm -f "$tmp"
  else
    mv "$tmp" "$target"
    chmod 600 "$target"
    changed=true
  fi
done

write_if_changed() {
  # Both sides through $(...), which drops trailing newlines the same way.
  if [ -e "$1" ] && [ "$(cat "$1")" = "$(printf '%s' "$2")" ]; then
    return 0
  fi
  printf '%s\n' "$2" > "$1"
  chmod 600 "$1"
  changed=true
}
write_if_changed "$config_dir/config.yaml" "$K3S_CONFIG"
write_if_changed "$kubelet_drop_in" "$KUBELET_CONFIG"

installed=none
if command -v k3s >/dev/null 2>&1; then
  installed=$(k3s --version 2>/dev/null | head -n 1 | cut -d' ' -f3)
fi
if [ "$installed" = "$K3S_VERSION" ] && [ "$changed" = false ] && systemctl is-active --quiet "$service"; then
  echo "gpukit: k3s $K3S_VERSION ($ROLE) already installed and up to date"
  exit 0
fi

installer=$(mktemp)
trap 'rm -f "$installer"' EXIT
attempt=1
until curl -sfL --connect-timeout 10 --max-time 120 https://get.k3s.io -o "$installer"; do
  if [ "$attempt" -ge 5 ]; then
    fail "could not download the k3s installer from https://get.k3s.io after $attempt attempts: check the host's internet access or proxy"
  fi
  sleep $((attempt * attempt))
  attempt=$((attempt + 1))
done
# The installer restarts k3s only when its binary or unit changed: a new config needs a forced restart.
INSTALL_K3S_VERSION="$K3S_VERSION" INSTALL_K3S_EXEC="$ROLE" INSTALL_K3S_FORCE_RESTART="$changed" sh "$installer" \
  || fail "the k3s installer failed: see its output above (journalctl -u $service on the host)"

waited=0
until systemctl is-active --quiet "$service"; do
  if [ "$waited" -ge 300 ]; then
    fail "$service did not become active within 300s: see journalctl -u $service on the host"
  fi
  sleep 5
  waited=$((waited + 5))
done
# Servers: wait for the API too, so what Pulumi installs next (the GPU Operator) finds it answering.
if [ "$ROLE" = server ]; then
  until k3s kubectl get --raw=/readyz >/dev/null 2>&1; do
    if [ "$waited" -ge 300 ]; then
      fail "the Kubernetes API on this server did not become ready within 300s: see journalctl -u k3s"
    fi
    sleep 5
    waited=$((waited + 5))
  done
fi
echo "gpukit: k3s $K3S_VERSION ($ROLE) installed and running"
GPUKIT_INSTALL_EOF
chmod 700 /opt/gpukit/install.sh
cat > /opt/gpukit/bootstrap.sh <<'GPUKIT_BOOTSTRAP_EOF'
#!/usr/bin/env bash
# Rendered by gpukit (components/k3s_scripts.py); edit the source, not this copy.
set -euo pipefail
BOOTSTRAP_DIR=/opt/gpukit
# --- gpukit cloud node bootstrap: run once at first boot by cloud-init (runcmd).
# Checks the machine against its pool (preflight.sh), reads the join secrets from the cloud's secret
# store (fetch-secrets.sh, with the machine's own identity), then installs k3s (install.sh, which
# takes the secrets on stdin). The secrets never touch the user data, the disk outside k3s's own
# files, or the log. Output goes to /var/log/cloud-init-output.log.
# Inputs (set above by the renderer): BOOTSTRAP_DIR
ROOT="${GPUKIT_ROOT:-}"  # empty on a real host; a temporary root in gpukit's tests
fail() {
  echo "gpukit: $*" >&2
  exit 1
}
dir="$ROOT$BOOTSTRAP_DIR"

if ! "$dir/preflight.sh"; then
  fail "preflight failed: this machine does not match its pool (see the checks above); it does not join the cluster"
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
printf '%s\n' "$secrets" | "$dir/install.sh"
GPUKIT_BOOTSTRAP_EOF
chmod 700 /opt/gpukit/bootstrap.sh
/opt/gpukit/bootstrap.sh
touch /var/lib/gpukit/bootstrapped

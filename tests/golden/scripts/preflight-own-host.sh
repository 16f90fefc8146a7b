#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
EXPECT_GPUS=2
GPU_MODEL=L40S
GPU_PATTERN=l40s
GPU_NAMES=l40s
OTHER_GPU_NAMES='3090 4090 5090 6000ada a10 a10040gb a10040gbpcie a10080gb a10080gbpcie a100pcie40gb a100pcie80gb a100sxm440gb a100sxm480gb a10g a30 a40 a6000 b200 h100 h10080gb h10080gbhbm3 h100nvl h100pcie h100sxm h100sxm5 h200 h200nvl h200sxm l4 l40 pro6000 rtx3090 rtx4090 rtx5090 rtx6000ada rtxa6000 rtxpro6000 rtxpro6000blackwell rtxpro6000blackwellmaxqworkstationedition rtxpro6000blackwellserveredition rtxpro6000blackwellworkstationedition t4 v100 v10016gb v100pcie16gb v100sxm216gb'
DRIVER_MODE=preinstalled
MIN_DRIVER_BRANCH=570
CUDA_VERSION=12.8
# --- gpukit host preflight, `gpukit doctor`: the host's RDMA NICs (InfiniBand, or RoCE on Ethernet)
# for NCCL between nodes, rendered before preflight.sh (whose output format it shares; the preflight a
# machine runs to join is preflight.sh alone and stays byte for byte what it was): every port
# of every device the kernel lists in /sys/class/infiniband (ConnectX's mlx5_*), with its state, link
# layer and rate, as NCCL's networking troubleshooting guide reads them (ibstat / ibv_devinfo show the same files). AWS's
# EFA devices are listed there too (vendor 0x1d0f); they are EKS's fabric, not an own host's, and left
# out. Facts only: a host without RDMA NICs joins like any other, on the ordinary network.
rdma_active=0
rdma_ports=0
rdma_link=none
rdma_rate=none
for port in "${GPUKIT_ROOT:-}"/sys/class/infiniband/*/ports/*; do
  [ -d "$port" ] || continue
  device=${port%/ports/*}
  # Software RDMA (rxe, siw) has no PCI device behind it: no NIC to count.
  [ -r "$device/device/vendor" ] || continue
  vendor=$(cat "$device/device/vendor")
  if [ "$vendor" = 0x1d0f ]; then continue; fi
  rdma_ports=$((rdma_ports + 1))
  state=$(cat "$port/state" 2>/dev/null || echo unknown)
  case "$state" in *": ACTIVE") ;; *) continue ;; esac  # not ACTIVE_DEFER, DOWN, INIT, ARMED
  rdma_active=$((rdma_active + 1))
  link=$(cat "$port/link_layer" 2>/dev/null || echo unknown)
  # Ethernet on Mellanox/NVIDIA (0x15b3) is RoCE; other vendors' Ethernet RDMA may be iWARP.
  if [ "$link" = Ethernet ]; then
    if [ "$vendor" = 0x15b3 ]; then link=RoCE; else link="Ethernet RDMA"; fi
  fi
  if [ "$rdma_link" = none ]; then rdma_link=$link; elif [ "$rdma_link" != "$link" ]; then rdma_link=mixed; fi
  if [ "$rdma_rate" = none ]; then rdma_rate=$(cat "$port/rate" 2>/dev/null || echo unknown); fi
done
printf 'fact\t%s\t%s\n' rdma_ports "$rdma_ports"
printf 'fact\t%s\t%s\n' rdma_active_ports "$rdma_active"
printf 'fact\t%s\t%s\n' rdma_link_layer "$rdma_link"
printf 'fact\t%s\t%s\n' rdma_rate "$rdma_rate"
if [ "$rdma_ports" -gt 0 ] && [ "$rdma_active" -eq 0 ]; then
  printf 'check\twarn\t%s\n' "$rdma_ports RDMA ports found, none active (/sys/class/infiniband/*/ports/*/state): NCCL between nodes will use TCP; check the cabling or the subnet manager"
elif [ "$rdma_active" -gt 0 ]; then
  printf 'check\tok\t%s\n' "$rdma_active RDMA ports active ($rdma_link, $rdma_rate): gpukit does not set up RDMA for pods yet (the NVIDIA Network Operator), so NCCL between nodes uses TCP"
fi
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

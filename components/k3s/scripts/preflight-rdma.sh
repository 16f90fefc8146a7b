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

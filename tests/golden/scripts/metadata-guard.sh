#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
POD_CIDR=10.42.0.0/16
METADATA_ADDRESSES=169.254.169.254
# --- gpukit metadata guard: pods may not reach the cloud's metadata server. Run by systemd
# (gpukit-metadata-guard.service) at every boot, before k3s; safe to run again (a rule is added once).
# Inputs (set above by the renderer): POD_CIDR, METADATA_ADDRESSES (space-separated IPv4 addresses)
# Pod traffic leaves through the host's PREROUTING; the raw table sees it before any chain k3s,
# flannel or kube-router manage, so none of their ACCEPT rules can come first. Host-network pods are
# the host to the kernel: Pod Security Admission (baseline and up) refuses them outside the
# namespaces gpukit exempts, which hold only system components that may need the metadata server.
# Only TCP other than port 53 is dropped: the metadata service speaks HTTP, and on Compute Engine the
# same address is the network's DNS resolver, which CoreDNS (a pod) forwards to.
# Pods get IPv4 addresses only (gpukit keeps k3s's single-stack default), so an IPv6 metadata
# endpoint (EC2's fd00:ec2::254) is out of their reach.
fail() {
  echo "gpukit: $*" >&2
  exit 1
}


command -v iptables >/dev/null 2>&1 || fail "iptables not found: it is needed to keep pods off the metadata server"
for address in $METADATA_ADDRESSES; do
  rule=(-s "$POD_CIDR" -d "$address" -p tcp '!' --dport 53 -j DROP)
  if ! iptables -w -t raw -C PREROUTING "${rule[@]}" 2>/dev/null; then
    iptables -w -t raw -I PREROUTING "${rule[@]}" \
      || fail "iptables could not add the rule that drops pod traffic to $address"
  fi
done
echo "gpukit: pod traffic from $POD_CIDR to $METADATA_ADDRESSES is dropped (all TCP but DNS)"

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
MIN_DRIVER_BRANCH=570
CUDA_VERSION=12.8
«scripts/preflight.sh»
GPUKIT_PREFLIGHT_EOF
chmod 700 /opt/gpukit/preflight.sh
cat > /opt/gpukit/fetch-secrets.sh <<'GPUKIT_FETCH_SECRETS_EOF'
#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
SECRET_VERSION=projects/acme-ml-dev/secrets/k3s-gcp-k3s-agent-join/versions/1
KMS_KEY=''
«scripts/fetch-secrets-gcp.sh»
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
- cloud.google.com/gke-accelerator=nvidia-l4
- gpukit.dev/gpu-model=L4
- gpukit.dev/pool=l4
- nvidia.com/gpu.present=true
node-taint:
- nvidia.com/gpu=present:NoSchedule
'
KUBELET_CONFIG='apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
shutdownGracePeriod: 30s
shutdownGracePeriodCriticalPods: 15s
'
TOKEN_FILE=/etc/rancher/k3s/gpukit-token
AGENT_TOKEN_FILE=/etc/rancher/k3s/gpukit-agent-token
TLS_DIR=/var/lib/rancher/k3s/server/tls
JOIN_URLS='https://10.40.0.53:6443 https://10.40.0.76:6443 https://10.40.0.133:6443'
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
«scripts/metadata-guard.sh»
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
«scripts/server-ping.sh»
«scripts/install.sh»
GPUKIT_INSTALL_EOF
chmod 700 /opt/gpukit/install.sh
cat > /opt/gpukit/bootstrap.sh <<'GPUKIT_BOOTSTRAP_EOF'
#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
BOOTSTRAP_DIR=/opt/gpukit
DONE_MARKER=/var/lib/gpukit/bootstrapped
«scripts/bootstrap.sh»
GPUKIT_BOOTSTRAP_EOF
chmod 700 /opt/gpukit/bootstrap.sh
cat > /opt/gpukit/provider-id.sh <<'GPUKIT_PROVIDER_ID_EOF'
#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
PROVIDER_ID_FILE=/etc/rancher/k3s/config.yaml.d/40-gpukit-provider-id.yaml
«scripts/provider-id.sh»
«scripts/provider-id-gcp.sh»
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

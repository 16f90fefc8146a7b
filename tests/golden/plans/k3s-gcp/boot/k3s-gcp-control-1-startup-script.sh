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
EXPECT_GPUS=0
GPU_MODEL=''
GPU_PATTERN='.*'
DRIVER_MODE=preinstalled
MIN_DRIVER_BRANCH=570
CUDA_VERSION=12.8
«scripts/preflight.sh»
GPUKIT_PREFLIGHT_EOF
chmod 700 /opt/gpukit/preflight.sh
cat > /opt/gpukit/fetch-secrets.sh <<'GPUKIT_FETCH_SECRETS_EOF'
#!/usr/bin/env bash
# Rendered by gpukit (components/k3s_scripts.py); edit the source, not this copy.
set -euo pipefail
SECRET_VERSION=projects/acme-ml-dev/secrets/k3s-gcp-k3s-server-join/versions/latest
«scripts/fetch-secrets-gcp.sh»
GPUKIT_FETCH_SECRETS_EOF
chmod 700 /opt/gpukit/fetch-secrets.sh
cat > /opt/gpukit/install.sh <<'GPUKIT_INSTALL_EOF'
#!/usr/bin/env bash
# Rendered by gpukit (components/k3s_scripts.py); edit the source, not this copy.
set -euo pipefail
ROLE=server
K3S_VERSION=v1.35.8+k3s1
K3S_CONFIG='token-file: /etc/rancher/k3s/gpukit-token
server: https://10.40.0.53:6443
tls-san:
- 10.40.0.133
- 10.40.0.53
- 10.40.0.76
- 34.120.101.5
- 34.120.102.6
- 34.120.66.67
disable:
- traefik
write-kubeconfig-mode: '"'"'0600'"'"'
secrets-encryption: true
node-label:
- gpukit.dev/pool=control
node-taint: []
'
KUBELET_CONFIG='apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
shutdownGracePeriod: 60s
shutdownGracePeriodCriticalPods: 20s
'
«scripts/install.sh»
GPUKIT_INSTALL_EOF
chmod 700 /opt/gpukit/install.sh
cat > /opt/gpukit/bootstrap.sh <<'GPUKIT_BOOTSTRAP_EOF'
#!/usr/bin/env bash
# Rendered by gpukit (components/k3s_scripts.py); edit the source, not this copy.
set -euo pipefail
BOOTSTRAP_DIR=/opt/gpukit
«scripts/bootstrap.sh»
GPUKIT_BOOTSTRAP_EOF
chmod 700 /opt/gpukit/bootstrap.sh
/opt/gpukit/bootstrap.sh
touch /var/lib/gpukit/bootstrapped

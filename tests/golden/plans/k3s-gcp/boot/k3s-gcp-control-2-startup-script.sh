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
EXPECT_GPUS=0
GPU_MODEL=''
GPU_PATTERN='.*'
GPU_NAMES=''
OTHER_GPU_NAMES=''
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
SECRET_VERSION=projects/acme-ml-dev/secrets/k3s-gcp-k3s-server-join/versions/1
KMS_KEY=projects/acme-ml-dev/locations/us-central1/keyRings/k3s-gcp-join-server-key-ring-d3d9c85/cryptoKeys/k3s-gcp-join-server-key-key-03618e5
«scripts/fetch-secrets-gcp.sh»
GPUKIT_FETCH_SECRETS_EOF
chmod 700 /opt/gpukit/fetch-secrets.sh
cat > /opt/gpukit/install.sh <<'GPUKIT_INSTALL_EOF'
#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
ROLE=server
K3S_VERSION=v1.36.4+k3s1
K3S_CONFIG='token-file: /etc/rancher/k3s/gpukit-token
with-node-id: true
agent-token-file: /etc/rancher/k3s/gpukit-agent-token
tls-san:
- 10.40.0.133
- 10.40.0.53
- 10.40.0.76
- 34.120.101.5
- 34.120.102.6
- 34.120.66.67
disable:
- traefik
- servicelb
write-kubeconfig-mode: '"'"'0600'"'"'
secrets-encryption: true
kube-apiserver-arg:
- admission-control-config-file=/var/lib/rancher/k3s/server/gpukit-pod-security.yaml
node-label:
- gpukit.dev/pool=control
node-taint:
- CriticalAddonsOnly=true:NoExecute
'
KUBELET_CONFIG='apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
shutdownGracePeriod: 60s
shutdownGracePeriodCriticalPods: 20s
'
TOKEN_FILE=/etc/rancher/k3s/gpukit-token
AGENT_TOKEN_FILE=/etc/rancher/k3s/gpukit-agent-token
TLS_DIR=/var/lib/rancher/k3s/server/tls
JOIN_URLS='https://10.40.0.53:6443 https://10.40.0.76:6443'
MAY_INIT=false
CLUSTER_INIT=true
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
SERVER_POLICY='apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: gpukit-servers-run-system-pods-only
  labels:
    app.kubernetes.io/managed-by: gpukit
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups:
      - '"'"''"'"'
      apiVersions:
      - v1
      operations:
      - CREATE
      - UPDATE
      resources:
      - pods
    namespaceSelector:
      matchExpressions:
      - key: kubernetes.io/metadata.name
        operator: NotIn
        values:
        - kube-system
        - gpu-operator
  validations:
  - expression: '"'"'!has(object.spec.tolerations) || object.spec.tolerations.all(t, !(has(t.key)
      && t.key == '"'"''"'"'CriticalAddonsOnly'"'"''"'"') && !((!has(t.key) || t.key == '"'"''"'"''"'"''"'"') && has(t.operator)
      && t.operator == '"'"''"'"'Exists'"'"''"'"'))'"'"'
    message: '"'"'k3s servers run the control plane only (gpukit): a pod outside kube-system
      and gpu-operator may not tolerate CriticalAddonsOnly or every taint'"'"'
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: gpukit-servers-run-system-pods-only
  labels:
    app.kubernetes.io/managed-by: gpukit
spec:
  policyName: gpukit-servers-run-system-pods-only
  validationActions:
  - Deny
'
# shellcheck disable=SC2016
NODE_SYNC_SCRIPT='#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
REAP_AFTER_SECONDS=1800
MACHINE_CHECK_AFTER_SECONDS=120
POOL_LABEL=gpukit.dev/pool
MANAGED_KEYS=gpukit.dev/,nvidia.com/,CriticalAddonsOnly,k8s.amazonaws.com/accelerator,cloud.google.com/gke-accelerator
«scripts/machine-gone-gcp.sh»
«scripts/node-sync.sh»
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
JOIN_URLS='"'"'https://10.40.0.53:6443 https://10.40.0.76:6443'"'"'
TLS_DIR=/var/lib/rancher/k3s/server/tls
JOIN_FILE=/etc/rancher/k3s/config.yaml.d/50-gpukit-join.yaml
ETCD_DIR=/var/lib/rancher/k3s/server/db/etcd
REJOIN_MARKER=/var/lib/gpukit/rejoined-at
START_MARKER=/var/lib/gpukit/k3s-started-at
REMOVED_MESSAGE='"'"'the member has been permanently removed from the cluster'"'"'
«scripts/server-ping.sh»
«scripts/server-rejoin.sh»
'
REJOIN_DROP_IN='[Service]
ExecStartPre=-/usr/local/lib/gpukit/server-rejoin.sh'
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

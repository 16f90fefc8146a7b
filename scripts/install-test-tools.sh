#!/usr/bin/env bash
# Installs the validators the test suite needs that PyPI does not carry: cloud-init, whose
# `cloud-init schema` checks every user-data file gpukit renders. (shellcheck comes from PyPI, with
# the dev extra.) Debian and Ubuntu: from the distribution's packages, as root or through sudo.
# Does nothing when cloud-init is already on PATH.
set -euo pipefail

if command -v cloud-init >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-test-tools: cloud-init is not installed and this is not a Debian/Ubuntu system;" \
    "install cloud-init (for 'cloud-init schema') with your package manager" >&2
  exit 1
fi
as_root=()
if [ "$(id -u)" -ne 0 ]; then
  as_root=(sudo)
fi
install() {
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -q --no-install-recommends cloud-init >/dev/null
}
# A machine whose package lists are stale or missing needs an update first.
install || { "${as_root[@]}" apt-get update -q >/dev/null && install; }
cloud-init --version

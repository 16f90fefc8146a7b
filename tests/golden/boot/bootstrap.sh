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

# --- gpukit NCCL check: one side of a 2-node nccl-tests all_reduce_perf over a pool's fabric
# (components/addons/interconnect/nccl_check.py says how it runs and why it is trusted).
# Inputs (set above by the renderer): ROLE (launcher or worker), POOL, PEER (the worker's name through
# the check's headless Service), SSH_PORT, KEYS_DIR (the Secret: id_ed25519, authorized_keys,
# known_hosts, ssh_host_ed25519_key), TOOLS_DIR (nccl_judge.py), PER_NODE and RANKS (GPUs per node and
# in all), MPI_PREFIX, ALL_REDUCE (the binary), MAX_BYTES (the sweep's largest message), FORWARD_ENV
# (the fabric's NCCL variables, passed to every rank), and what the judge requires: NET_PLUGIN,
# GPUDIRECT (1 or 0), MIN_BYTES, MIN_BUSBW (GB/s, empty: not judged) and GATE_SOURCE; and where
# things are (SSHD, SSH_DIR, HOST_KEY, DONE, LOG: the pod's paths; tests run it elsewhere).
# Lines that start `gpukit-verify: FAIL: ` say what failed; the exit status is 0 only on a pass.

fail() {
  printf 'gpukit-verify: FAIL: %s\n' "$1"
  exit 1
}

# ssh refuses keys other users could read; the Secret's files are root's, mode 0400, but copied with
# exact modes all the same (a kubelet may mount them as a symlink farm).
install -d -m 700 "$SSH_DIR"
install -m 600 "$KEYS_DIR/id_ed25519" "$SSH_DIR"/id_ed25519
install -m 600 "$KEYS_DIR/authorized_keys" "$SSH_DIR"/authorized_keys
install -m 600 "$KEYS_DIR/known_hosts" "$SSH_DIR"/known_hosts
install -m 600 "$KEYS_DIR/ssh_host_ed25519_key" "$HOST_KEY"
mkdir -p /run/sshd
# Key logins for root only, on the check's port, with the check's own host key.
"$SSHD" -p "$SSH_PORT" -h "$HOST_KEY" -E "$SSH_DIR/sshd.log" \
  -o PermitRootLogin=prohibit-password -o PasswordAuthentication=no -o KbdInteractiveAuthentication=no \
  -o AuthorizedKeysFile="$SSH_DIR"/authorized_keys -o StrictModes=yes -o PermitUserEnvironment=no \
  -o AllowTcpForwarding=no -o X11Forwarding=no ||
  fail "pool $POOL: sshd did not start on port $SSH_PORT"

if [ "$ROLE" = worker ]; then
  # Serve the launcher's ranks until it says it is done; the Job's deadline bounds the wait.
  until [ -e "$DONE" ]; do sleep 5; done
  printf 'gpukit-verify: ok: pool %s: worker served the run\n' "$POOL"
  exit 0
fi

ssh_options=(-p "$SSH_PORT" -o BatchMode=yes -o StrictHostKeyChecking=yes
  -o UserKnownHostsFile="$SSH_DIR"/known_hosts -o ConnectTimeout=10)
# The worker's node may still be starting (the pool scales from zero); the Job's deadline bounds this.
until ssh "${ssh_options[@]}" "$PEER" true 2>/dev/null; do sleep 10; done

exports=(-x NCCL_DEBUG=INFO)
for name in $FORWARD_ENV PATH LD_LIBRARY_PATH LD_PRELOAD; do
  if [ -n "${!name:-}" ]; then exports+=(-x "$name"); fi
done
status=0
mpirun --allow-run-as-root --prefix "$MPI_PREFIX" -np "$RANKS" -H "localhost:$PER_NODE,$PEER:$PER_NODE" \
  --bind-to none --mca plm_rsh_agent ssh --mca plm_rsh_args "${ssh_options[*]}" "${exports[@]}" \
  "$ALL_REDUCE" -b 8 -e "$MAX_BYTES" -f 2 -g 1 -c 1 -n 20 2>&1 | tee "$LOG" || status=$?
# shellcheck disable=SC2029 # DONE is the same path on both sides: expanded here on purpose
ssh "${ssh_options[@]}" "$PEER" touch "$DONE" || printf 'gpukit-verify: note: could not stop the worker\n'

judge=(--min-bytes "$MIN_BYTES")
if [ -n "$NET_PLUGIN" ]; then judge+=(--network "$NET_PLUGIN"); fi
if [ "$GPUDIRECT" = 1 ]; then judge+=(--gpudirect); fi
if [ -n "$MIN_BUSBW" ]; then judge+=(--min-busbw "$MIN_BUSBW" --source "$GATE_SOURCE"); fi
verdict=0
python3 "$TOOLS_DIR/nccl_judge.py" "${judge[@]}" "$LOG" || verdict=$?
if [ "$status" -ne 0 ]; then fail "pool $POOL: all_reduce_perf exited with status $status"; fi
if [ "$verdict" -ne 0 ]; then fail "pool $POOL: the NCCL check failed (lines above)"; fi
printf 'gpukit-verify: ok: pool %s: NCCL over the fabric between two nodes\n' "$POOL"

# --- gpukit NCCL check: a 2-node nccl-tests all_reduce_perf over a pool's fabric, run by both pods of
# one Indexed Job, pod 0 the launcher (components/addons/interconnect/nccl_check.py says how it runs and
# why it is trusted).
# Inputs (set above by the renderer): POOL, SERVICE (the headless Service the pods are named under),
# SSH_PORT, KEYS_DIR (the Secret: id_ed25519, authorized_keys, known_hosts, ssh_host_ed25519_key),
# TOOLS_DIR (nccl_judge.py), PER_NODE and RANKS (GPUs per node and in all), MPI_PREFIX, ALL_REDUCE (the
# binary), MAX_BYTES and MAX_BYTES_COUNT (the sweep's largest message, as all_reduce_perf takes it and in
# bytes), RUN_SECONDS (how long the run may take), and what the judge requires: NET_PLUGINS (any of
# these names), GPUDIRECT (1 or 0), MIN_BYTES, MIN_BUSBW (GB/s, empty: not judged) and GATE_SOURCE; and
# where things are (SSHD, PRIVSEP_DIR, SSH_DIR, HOST_KEY, DONE, LOG: the pod's paths; tests use others).
# From Kubernetes: JOB_COMPLETION_INDEX (0 or 1) and JOB_NAME (the downward API).
# Lines that start `gpukit-verify: FAIL: ` say what failed; the exit status is 0 only on a pass.

fail() {
  printf 'gpukit-verify: FAIL: %s\n' "$1"
  exit 1
}

index=${JOB_COMPLETION_INDEX:?the pod is not one of an Indexed Job}
peer="${JOB_NAME:?JOB_NAME is not set}-1.$SERVICE"

# ssh refuses keys other users could read; the Secret's files are root's, mode 0400, but copied with
# exact modes all the same (a kubelet may mount them as a symlink farm).
install -d -m 700 "$SSH_DIR"
install -m 600 "$KEYS_DIR/id_ed25519" "$SSH_DIR/id_ed25519"
install -m 600 "$KEYS_DIR/authorized_keys" "$SSH_DIR/authorized_keys"
install -m 600 "$KEYS_DIR/known_hosts" "$SSH_DIR/known_hosts"
install -m 600 "$KEYS_DIR/ssh_host_ed25519_key" "$HOST_KEY"
mkdir -p "$PRIVSEP_DIR"
# Key logins for root only, on the check's port, with the check's own host key.
"$SSHD" -p "$SSH_PORT" -h "$HOST_KEY" -E "$SSH_DIR/sshd.log" \
  -o PermitRootLogin=prohibit-password -o PasswordAuthentication=no -o KbdInteractiveAuthentication=no \
  -o AuthorizedKeysFile="$SSH_DIR/authorized_keys" -o StrictModes=yes -o PermitUserEnvironment=no \
  -o AllowTcpForwarding=no -o X11Forwarding=no ||
  fail "pool $POOL: sshd did not start on port $SSH_PORT"

if [ "$index" != 0 ]; then
  # The worker serves the launcher's ranks until it says it is done; the Job's deadline bounds the wait.
  until [ -e "$DONE" ]; do sleep 5; done
  printf 'gpukit-verify: ok: pool %s: worker served the run\n' "$POOL"
  exit 0
fi

command -v python3 >/dev/null || fail "pool $POOL: the image has no python3 to judge the run with"
[ -x "$ALL_REDUCE" ] || fail "pool $POOL: $ALL_REDUCE is not in the image"

ssh_options=(-p "$SSH_PORT" -o BatchMode=yes -o StrictHostKeyChecking=yes
  -o UserKnownHostsFile="$SSH_DIR/known_hosts" -o ConnectTimeout=10)
# The worker's node may still be starting (the pool scales from zero); the Job's deadline bounds this.
# ssh's own error is shown once a minute, so a key or host-key problem is visible in the log.
tries=0
until error=$(ssh "${ssh_options[@]}" "$peer" true 2>&1); do
  tries=$((tries + 1))
  if [ $((tries % 6)) -eq 0 ]; then printf 'gpukit-verify: waiting for %s: %s\n' "$peer" "$error"; fi
  sleep 10
done

# Ranks the worker's sshd starts see none of this container's environment: pass the fabric's and
# NCCL's variables, and Open MPI's own settings on the command line (the image sets them as ENV).
exports=(-x NCCL_DEBUG=INFO)
for name in $(compgen -e); do
  case "$name" in
    NCCL_DEBUG) ;;
    NCCL_* | FI_* | OFI_NCCL_* | PMIX_MCA_* | PATH | LD_LIBRARY_PATH | LD_PRELOAD) exports+=(-x "$name") ;;
  esac
done
status=0
timeout --kill-after=30 "$RUN_SECONDS" \
  mpirun --allow-run-as-root --prefix "$MPI_PREFIX" -np "$RANKS" -H "localhost:$PER_NODE,$peer:$PER_NODE" \
  --bind-to none --mca orte_keep_fqdn_hostnames 1 --mca plm_rsh_agent ssh \
  --mca plm_rsh_args "${ssh_options[*]}" --mca pml '^ucx' --mca btl tcp,self \
  --mca btl_tcp_if_exclude lo,docker0,veth_def_agent "${exports[@]}" \
  "$ALL_REDUCE" -b 8 -e "$MAX_BYTES" -f 2 -g 1 -c 1 -n 20 2>&1 | tee "$LOG" || status=$?
# The Job completes on the launcher's success (its successPolicy) and stops the worker then; telling it
# is the polite way, tried a few times.
for _ in 1 2 3; do
  # shellcheck disable=SC2029 # DONE is the same path on both sides: expanded here on purpose
  if ssh "${ssh_options[@]}" "$peer" touch "$DONE"; then break; fi
  sleep 5
done

judge=(--min-bytes "$MIN_BYTES" --max-bytes "$MAX_BYTES_COUNT")
for plugin in $NET_PLUGINS; do judge+=(--network "$plugin"); done
if [ "$GPUDIRECT" = 1 ]; then judge+=(--gpudirect); fi
if [ -n "$MIN_BUSBW" ]; then judge+=(--min-busbw "$MIN_BUSBW" --source "$GATE_SOURCE"); fi
verdict=0
python3 "$TOOLS_DIR/nccl_judge.py" "${judge[@]}" "$LOG" || verdict=$?
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
  fail "pool $POOL: all_reduce_perf did not finish within $RUN_SECONDS seconds (a hang: NCCL or the fabric; lines above)"
fi
if [ "$status" -ne 0 ]; then fail "pool $POOL: all_reduce_perf exited with status $status"; fi
if [ "$verdict" -ne 0 ]; then fail "pool $POOL: the NCCL check failed (lines above)"; fi
printf 'gpukit-verify: ok: pool %s: NCCL over the fabric between two nodes\n' "$POOL"

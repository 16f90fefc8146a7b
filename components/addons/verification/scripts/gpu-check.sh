# --- gpukit GPU verification: what one GPU unit of a pool must be, checked from inside a pod.
# Inputs (set above by the renderer, components/verification/checks.py): POOL, GPU_MODEL, GPU_NAMES
# (the model's normalised nvidia-smi spellings; empty for a model the stack declares), GPU_PATTERN (a
# declared model's regex over the normalised name), MEMORY_MIN_MIB and MEMORY_MAX_MIB (0: not
# checked), SHARING (none, time-slicing, mps, mig), MIG_PROFILES, MPS_THREADS (the active thread
# percentage GKE's device plugin gives an MPS client; 0: the NVIDIA device plugin runs the pool's MPS),
# GKE_MPS_DIRECTORY (where GKE mounts the MPS pipes), SAMPLE (the CUDA sample to run).
# Every check prints one line; the last line says PASS or FAIL with the pool's name, and the exit
# status is 0 only when every check passed. No cluster API access is needed (the pod has none).

failures=0
ok() { printf 'gpukit-verify: ok: %s\n' "$1"; }
fail() {
  printf 'gpukit-verify: FAIL: %s\n' "$1"
  failures=$((failures + 1))
}

# The name as gpukit normalises model names (components/catalog/gpu_names.py): lower case, without
# NVIDIA/GeForce/Tesla/Generation, letters and digits only.
normalised() {
  printf '%s' "$1" | tr '[:upper:]' '[:lower:]' | sed -E 's/nvidia|geforce|tesla|generation//g' | LC_ALL=C tr -cd 'a-z0-9'
}

# A whole-word match against the model's spellings; a declared model's pattern must match the whole name.
name_matches() {
  local n
  n=$(normalised "$1")
  if [ -n "$GPU_NAMES" ]; then
    case " $GPU_NAMES " in *" $n "*) return 0 ;; esac
    return 1
  fi
  printf '%s\n' "$n" | grep -q -x -E "$GPU_PATTERN"
}

smi=""
if ! command -v nvidia-smi >/dev/null 2>&1; then
  fail "nvidia-smi is not in the container: the NVIDIA container toolkit did not inject the driver's utilities"
elif ! smi=$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader,nounits 2>&1); then
  fail "nvidia-smi failed: $(printf '%s' "$smi" | head -n 1)"
  smi=""
fi

if [ -n "$smi" ]; then
  gpus=$(printf '%s\n' "$smi" | grep -c . || true)
  first=$(printf '%s\n' "$smi" | head -n 1)
  name=$(printf '%s' "$first" | cut -d, -f1 | sed 's/^ *//; s/ *$//')
  memory=$(printf '%s' "$first" | cut -d, -f2 | tr -d ' ')
  if [ "$gpus" -eq 1 ]; then
    ok "one GPU visible"
  else
    fail "$gpus GPUs visible, but the pod asked for one unit"
  fi
  if name_matches "$name"; then
    ok "GPU model '$name' is $GPU_MODEL"
  else
    fail "GPU model is '$name', but pool $POOL promises $GPU_MODEL"
  fi
  if [ "$MEMORY_MIN_MIB" -gt 0 ]; then
    case "$memory" in
      '' | *[!0-9]*) fail "GPU memory is '$memory', not a number of MiB" ;;
      *)
        if [ "$memory" -ge "$MEMORY_MIN_MIB" ] && [ "$memory" -le "$MEMORY_MAX_MIB" ]; then
          ok "GPU memory $memory MiB (expected $MEMORY_MIN_MIB..$MEMORY_MAX_MIB)"
        else
          fail "GPU memory is $memory MiB, but $GPU_MODEL has $MEMORY_MIN_MIB..$MEMORY_MAX_MIB MiB"
        fi
        ;;
    esac
  fi
fi

case "$SHARING" in
  mig)
    # `nvidia-smi -L` lists the MIG device the pod got under its GPU: "  MIG 1g.10gb  Device  0: ...".
    devices=$(nvidia-smi -L 2>/dev/null | sed -n -E 's/^ *MIG ([^ ]+) +Device.*/\1/p' || true)
    found=no
    for profile in $devices; do
      case " $MIG_PROFILES " in *" $profile "*) found=$profile ;; esac
    done
    if [ "$found" != no ]; then
      ok "MIG device $found"
    elif [ -z "$devices" ]; then
      fail "no MIG device visible, but pool $POOL cuts its GPUs into $MIG_PROFILES (is the MIG manager done?)"
    else
      fail "MIG device(s) $(printf '%s' "$devices" | tr '\n' ' ' | sed 's/ *$//') visible, but pool $POOL promises $MIG_PROFILES"
    fi
    ;;
  mps)
    if [ "$MPS_THREADS" -gt 0 ]; then
      # GKE's device plugin mounts the node's MPS pipe directory at GKE_MPS_DIRECTORY (/tmp/nvidia-mps,
      # CUDA's default, so it sets no CUDA_MPS_PIPE_DIRECTORY) and gives each client its share of the GPU as
      # CUDA_MPS_ACTIVE_THREAD_PERCENTAGE and CUDA_MPS_PINNED_DEVICE_MEM_LIMIT
      # (GoogleCloudPlatform/container-engine-accelerators pkg/gpu/nvidia/manager.go).
      if [ -d "$GKE_MPS_DIRECTORY" ]; then
        ok "GKE MPS pipe directory $GKE_MPS_DIRECTORY"
      else
        fail "no MPS pipe directory $GKE_MPS_DIRECTORY, but GKE shares pool $POOL's GPUs through MPS"
      fi
      if [ "${CUDA_MPS_ACTIVE_THREAD_PERCENTAGE:-}" = "$MPS_THREADS" ] && [ -n "${CUDA_MPS_PINNED_DEVICE_MEM_LIMIT:-}" ]; then
        ok "GKE MPS client share: $MPS_THREADS % of the threads, memory $CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"
      else
        fail "GKE MPS client share is '${CUDA_MPS_ACTIVE_THREAD_PERCENTAGE:-unset}' % of the threads (memory '${CUDA_MPS_PINNED_DEVICE_MEM_LIMIT:-unset}'), but pool $POOL promises $MPS_THREADS %"
      fi
    # The NVIDIA device plugin gives every MPS client CUDA_MPS_PIPE_DIRECTORY and mounts the daemon's pipes there.
    elif [ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ] && [ -d "$CUDA_MPS_PIPE_DIRECTORY" ]; then
      ok "MPS pipe directory $CUDA_MPS_PIPE_DIRECTORY"
    else
      fail "no MPS pipe directory (CUDA_MPS_PIPE_DIRECTORY), but pool $POOL shares its GPUs through MPS"
    fi
    ;;
esac

# NVIDIA's vectorAdd sample prints "Test PASSED" when the GPU computed the sum right.
if out=$("$SAMPLE" 2>&1) && printf '%s\n' "$out" | grep -q 'Test PASSED'; then
  ok "CUDA sample $SAMPLE: Test PASSED"
else
  fail "CUDA sample $SAMPLE failed: $(printf '%s\n' "$out" | grep -v '^ *$' | tail -n 1)"
fi

if [ "$failures" -eq 0 ]; then
  printf 'gpukit-verify: PASS pool %s\n' "$POOL"
  exit 0
fi
printf 'gpukit-verify: FAIL pool %s (%s check(s) failed)\n' "$POOL" "$failures"
exit 1

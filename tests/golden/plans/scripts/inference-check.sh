# gpukit's inference check: runs in the check Job's pod (check_objects.py), on a GPU pool holding one
# unit where the DCGM step runs, else on the pools without GPUs, and passes once the serving pipeline
# works end to end, each step within what is left of WAIT_SECONDS:
#   - ROUTE: a GET of ROUTE_PATH through the Gateway answers from the stable simulator, and the same
#     GET with header ROUTE_HEADER: ROUTE_HEADER_VALUE from the canary (the HTTPRoute's header match);
#   - SCALING: KEDA scaled the stable simulator from 1 to 2 replicas on the queue depth it publishes
#     (counted as ready pods behind a headless Service: a pod's address is published once it is Ready);
#   - DCGM: KEDA scaled the witness Deployment to 2, which its query does only once the store holds a
#     DCGM series naming this very pod, which holds a GPU unit (on a time-shared pool, a series naming
#     a pod outside the exporter's and the GPU verification's namespaces): the store and KEDA's access
#     to it, seen from KEDA.
# Inputs (set above by the renderer, check_objects.py): ROUTE, SCALING, DCGM (non-empty: run that
# step), WAIT_SECONDS, POLL_SECONDS, REQUEST_SECONDS, GATEWAY_PORT, ROUTE_PATH, ROUTE_HOST,
# ROUTE_HEADER, ROUTE_HEADER_VALUE, STABLE_MODEL, CANARY_MODEL, STABLE_PODS, WITNESS_PODS, CHECK_JOB;
# GATEWAY_HOST comes from the pod's environment (on GKE, the Gateway's address, known once it is
# programmed).
# Needs bash (its /dev/tcp), getent, awk, sort, wc and coreutils' timeout: no curl, no API token.

fail() {
  echo "gpukit-verify: FAIL: $*"
  exit 1
}
ok() { echo "gpukit-verify: ok: $*"; }
left() { echo $((WAIT_SECONDS - SECONDS)); }

# The ready pods behind a headless Service: its distinct addresses of one family (a dual-stack pod
# has one of each), whichever family has more.
ready_pods() {
  local v4 v6
  v4=$({ getent ahostsv4 "$1" || true; } | awk '{print $1}' | sort -u | wc -l)
  v6=$({ getent ahostsv6 "$1" || true; } | awk '$1 !~ /^::ffff:/ {print $1}' | sort -u | wc -l)
  echo $((v4 > v6 ? v4 : v6))
}

# ask_gateway HEADER_LINE: the raw HTTP response to a GET of ROUTE_PATH through the Gateway, for the
# route's own hostname.
ask_gateway() {
  # shellcheck disable=SC2016 # the inner script's own positional parameters, expanded by that bash
  timeout "$REQUEST_SECONDS" bash -c '
    exec 3<>"/dev/tcp/$0/$1" || exit 1
    printf "GET %s HTTP/1.1\r\nHost: %s\r\n%sConnection: close\r\n\r\n" "$2" "$4" "$3" >&3
    cat <&3' "$GATEWAY_HOST" "$GATEWAY_PORT" "$ROUTE_PATH" "$1" "$ROUTE_HOST" 2>&1 || true
}

# wait_route LABEL HEADER_LINE MODEL: until the Gateway answers 200 from MODEL's simulator.
wait_route() {
  local last=""
  while :; do
    last=$(ask_gateway "$2")
    case "$last" in
      "HTTP/1."[01]" 200"*)
        if [[ $last == *"\"$3\""* ]]; then
          ok "the Gateway routes $1 to $3"
          return 0
        fi
        ;;
    esac
    if [ "$(left)" -le 0 ]; then
      fail "the Gateway (${GATEWAY_HOST}:${GATEWAY_PORT}) did not route $1 to $3 within ${WAIT_SECONDS}s; last answer: ${last%%$'\r'*}"
    fi
    sleep "$POLL_SECONDS"
  done
}

# wait_pods NAME WANT WHAT: until NAME resolves to WANT ready pods.
wait_pods() {
  local seen
  while :; do
    seen=$(ready_pods "$1")
    if [ "$seen" -ge "$2" ]; then
      ok "$3 ($seen ready pods after ${SECONDS}s)"
      return 0
    fi
    if [ "$(left)" -le 0 ]; then
      fail "$3 did not happen within ${WAIT_SECONDS}s: $seen ready pod(s) behind $1, want $2"
    fi
    sleep "$POLL_SECONDS"
  done
}

if [ -n "${ROUTE:-}" ]; then
  [ -n "$GATEWAY_HOST" ] || fail "the Gateway reported no address (status.addresses is empty)"
  wait_route "a plain request" "" "$STABLE_MODEL"
  wait_route "a request with $ROUTE_HEADER: $ROUTE_HEADER_VALUE" "$ROUTE_HEADER: $ROUTE_HEADER_VALUE"$'\r\n' "$CANARY_MODEL"
fi
if [ -n "${SCALING:-}" ]; then
  wait_pods "$STABLE_PODS" 2 "KEDA scaled the simulator from 1 to 2 replicas on its queue depth"
fi
if [ -n "${DCGM:-}" ]; then
  wait_pods "$WITNESS_PODS" 2 "the store holds a DCGM series of this pod of Job $CHECK_JOB, which holds a GPU unit (KEDA scaled the witness to 2)"
fi
echo "gpukit-verify: PASS"

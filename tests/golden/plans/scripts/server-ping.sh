# --- gpukit: ping URL, true when the k3s server at URL answers /ping with "pong"; checked against the
# cluster's CA once this machine holds it (agents' tokens carry the CA's hash, which k3s checks when
# it joins). Inputs (set above by the renderer): TLS_DIR; ROOT, set by the script that calls it.
ping() {
  if [ -e "$ROOT$TLS_DIR/server-ca.crt" ]; then
    answer=$(curl -s --cacert "$ROOT$TLS_DIR/server-ca.crt" --connect-timeout 5 --max-time 10 "$1/ping" 2>/dev/null)
  else
    answer=$(curl -sk --connect-timeout 5 --max-time 10 "$1/ping" 2>/dev/null)
  fi
  [ "$answer" = pong ]
}

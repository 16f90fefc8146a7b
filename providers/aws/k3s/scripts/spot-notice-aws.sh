# --- gpukit: the node-local backstop of spot that drains on EC2, run by gpukit-spot-notice.service on
# the agents of spot pools only (why: providers/aws/k3s/spot_notice.py). It polls the instance
# metadata for a spot interruption notice every POLL_SECONDS. On one it waits until
# SHUTDOWN_GRACE_SECONDS + MARGIN_SECONDS before the time the notice gives, then powers the machine
# off: the kubelet's graceful node shutdown (its inhibitor lock holds the power-off back for
# SHUTDOWN_GRACE_SECONDS) stops every pod before EC2 takes the machine, whether or not
# aws-node-termination-handler, which drains at the notice itself, got to finish.
# Inputs (set above by the renderer): POLL_SECONDS, SHUTDOWN_GRACE_SECONDS, MARGIN_SECONDS,
# NOTICE_SECONDS (how far ahead EC2 sends the notice: no wait is ever longer than it leaves).
# Needs curl and GNU date only: no credentials, nothing downloaded. IMDSv2 (a session token first; the
# launch template refuses IMDSv1), from the host, which the pod-network metadata guard does not cover.
imds=http://169.254.169.254/latest
log() {
  echo "gpukit-spot-notice: $*"
}
imds_token() {
  curl -sf --connect-timeout 2 --max-time 5 -X PUT "$imds/api/token" \
    -H 'X-aws-ec2-metadata-token-ttl-seconds: 60'
}
# The notice, e.g. {"action": "terminate", "time": "2026-05-04T17:11:44Z"}; curl -f fails on the
# 404 IMDS answers while there is none (EC2 user guide, "Spot Instance interruption notices").
instance_action() {
  curl -sf --connect-timeout 2 --max-time 5 -H "X-aws-ec2-metadata-token: $1" \
    "$imds/meta-data/spot/instance-action"
}

# Poll until a notice: no notice and IMDS errors alike mean "poll again" (a fresh token every time,
# so an expired or refused one never sticks). An IMDS that stops answering is logged once.
imds_down=false
notice=""
while true; do
  if token=$(imds_token); then
    if [ "$imds_down" = true ]; then
      log "the instance metadata service answers again"
      imds_down=false
    fi
    if notice=$(instance_action "$token"); then
      break
    fi
  elif [ "$imds_down" = false ]; then
    log "the instance metadata service does not answer: still polling every ${POLL_SECONDS}s"
    imds_down=true
  fi
  sleep "$POLL_SECONDS"
done

log "spot interruption notice: $notice"
action=unknown
if [[ "$notice" =~ \"action\"[[:space:]]*:[[:space:]]*\"([a-z]+)\" ]]; then
  action=${BASH_REMATCH[1]}
fi
# Act SHUTDOWN_GRACE_SECONDS + MARGIN_SECONDS before EC2 does. A time that cannot be read: act at once
# (a notice means the machine goes, whatever its text says). A clock that lags cannot make the wait
# longer than the notice leaves.
when=""
deadline=""
if [[ "$notice" =~ \"time\"[[:space:]]*:[[:space:]]*\"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z)\" ]]; then
  when=${BASH_REMATCH[1]}
  deadline=$(date -u -d "$when" +%s 2>/dev/null) || deadline=""
fi
if [ -n "$deadline" ]; then
  now=$(date -u +%s)
  delay=$((deadline - SHUTDOWN_GRACE_SECONDS - MARGIN_SECONDS - now))
  longest=$((NOTICE_SECONDS - SHUTDOWN_GRACE_SECONDS - MARGIN_SECONDS))
  if [ "$delay" -gt "$longest" ]; then
    delay=$longest
  fi
  if [ "$delay" -gt 0 ]; then
    log "EC2 will $action this machine at $when: powering off in ${delay}s, ${SHUTDOWN_GRACE_SECONDS}s for the kubelet's graceful shutdown plus ${MARGIN_SECONDS}s before it"
    sleep "$delay"
  else
    log "EC2 will $action this machine at $when: too close for the kubelet's ${SHUTDOWN_GRACE_SECONDS}s graceful shutdown plus ${MARGIN_SECONDS}s, powering off now"
  fi
else
  log "could not read the time in the notice: powering off now (the machine goes anyway)"
fi
log "powering off: the kubelet stops this node's pods first (graceful node shutdown)"
systemctl poweroff

#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
REGION=us-east-1
# --- gpukit: the EC2 instance role, from the metadata service (IMDSv2), for the scripts below.
# Needs only curl (7.75+, for --aws-sigv4) and python3, both on Ubuntu and the Deep Learning AMIs:
# no AWS CLI. Credentials go to curl on stdin (-K -), never on a command line other users can read.
imds=http://169.254.169.254/latest
json_field() {
  python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"
}
# IMDSv2: a session token first (the launch template refuses IMDSv1).
imds_token() {
  curl -sf --connect-timeout 5 --max-time 20 -X PUT "$imds/api/token" -H 'X-aws-ec2-metadata-token-ttl-seconds: 300'
}
meta() {  # meta PATH: a metadata value, with the session token in $token
  curl -sf --connect-timeout 5 --max-time 20 -H "X-aws-ec2-metadata-token: $token" "$imds/meta-data/$1"
}
signed() {  # signed SERVICE CURL-ARGUMENTS...: a request signed with the role's $credentials
  service=$1
  shift
  printf 'user = "%s:%s"\nheader = "X-Amz-Security-Token: %s"\n' \
    "$(printf '%s' "$credentials" | json_field AccessKeyId)" \
    "$(printf '%s' "$credentials" | json_field SecretAccessKey)" \
    "$(printf '%s' "$credentials" | json_field Token)" \
    | curl -sf --connect-timeout 5 --max-time 30 -K - --aws-sigv4 "aws:amz:$REGION:$service" "$@"
}
# --- gpukit: once this machine has joined, detach its instance profile, so nothing on it (a root
# process, a host-network pod) can use the role that reads the join secret any more. A machine that
# replaces this one gets the profile again from its launch template.
# Inputs (set above by the renderer): REGION
# A failure here is a warning: the machine has joined, and the role can still read only the secret.
warn() {
  echo "gpukit: warning: $*; the instance keeps its role" >&2
  exit 0
}
token=$(imds_token) || warn "the instance metadata service did not answer"
instance=$(meta instance-id) || warn "no instance id"
role=$(meta iam/security-credentials/ | head -n 1) || warn "no instance role"
credentials=$(meta "iam/security-credentials/$role") || warn "could not read the credentials of role $role"
ec2() {  # ec2 QUERY: one EC2 API call, signed with the instance role
  signed ec2 -H 'Content-Type: application/x-www-form-urlencoded' \
    --data "$1&Version=2016-11-15" "https://ec2.$REGION.amazonaws.com/"
}
associations=$(ec2 "Action=DescribeIamInstanceProfileAssociations&Filter.1.Name=instance-id&Filter.1.Value.1=$instance") \
  || warn "EC2 refused to list this instance's profile association"
association=$(printf '%s' "$associations" | python3 -c '
import re, sys
found = re.findall(r"<associationId>(iip-assoc-[0-9a-f]+)</associationId>", sys.stdin.read())
print(found[0] if found else "")')
[ -n "$association" ] || warn "this instance has no instance profile association"
ec2 "Action=DisassociateIamInstanceProfile&AssociationId=$association" >/dev/null \
  || warn "EC2 refused to detach the instance profile ($association)"
echo "gpukit: joined; instance profile detached from $instance ($association): the join secret is out of reach here"

#!/usr/bin/env bash
# Rendered by gpukit (components/k3s/host_scripts.py); edit the source, not this copy.
set -euo pipefail
REGION=us-east-1
SECRET_ID=arn:aws:secretsmanager:us-east-1:123456789012:secret:k3s-aws-agents-AbCdEf
VERSION_ID=3f1c2a9e-6b0d-4c5e-9a7f-2d8e1b4c6a01
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
# --- gpukit: print the join secrets bundle from AWS Secrets Manager, read with the instance role.
# Inputs (set above by the renderer): REGION, SECRET_ID, VERSION_ID (the version the stack wrote)
fail() {
  echo "gpukit: $*" >&2
  exit 1
}
token=$(imds_token) || fail "the instance metadata service did not answer"
role=$(meta iam/security-credentials/ | head -n 1) || fail "no instance role: the instance profile is missing"
credentials=$(meta "iam/security-credentials/$role") || fail "could not read the credentials of role $role"
response=$(signed secretsmanager \
  -H 'X-Amz-Target: secretsmanager.GetSecretValue' \
  -H 'Content-Type: application/x-amz-json-1.1' \
  --data "{\"SecretId\": \"$SECRET_ID\", \"VersionId\": \"$VERSION_ID\"}" \
  "https://secretsmanager.$REGION.amazonaws.com/") \
  || fail "Secrets Manager refused to return version $VERSION_ID of $SECRET_ID"
printf '%s' "$response" | json_field SecretString

# --- gpukit: print the join secrets bundle from AWS Secrets Manager, read with the instance role.
# Inputs (set above by the renderer): REGION, SECRET_ID, VERSION_ID (the version the stack wrote)
# Needs only curl (7.75+, for --aws-sigv4) and python3, both on Ubuntu and the Deep Learning AMIs:
# no AWS CLI. Credentials go to curl on stdin (-K -), never on a command line other users can read.
fail() {
  echo "gpukit: $*" >&2
  exit 1
}
imds=http://169.254.169.254/latest
json_field() {
  python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"
}

# IMDSv2: a session token first (the launch template refuses IMDSv1).
token=$(curl -sf -X PUT "$imds/api/token" -H 'X-aws-ec2-metadata-token-ttl-seconds: 300') \
  || fail "the instance metadata service did not answer"
role=$(curl -sf -H "X-aws-ec2-metadata-token: $token" "$imds/meta-data/iam/security-credentials/" | head -n 1) \
  || fail "no instance role: the instance profile is missing"
credentials=$(curl -sf -H "X-aws-ec2-metadata-token: $token" "$imds/meta-data/iam/security-credentials/$role") \
  || fail "could not read the credentials of role $role"
access_key=$(printf '%s' "$credentials" | json_field AccessKeyId)
secret_key=$(printf '%s' "$credentials" | json_field SecretAccessKey)
session_token=$(printf '%s' "$credentials" | json_field Token)

response=$(printf 'user = "%s:%s"\nheader = "X-Amz-Security-Token: %s"\n' \
  "$access_key" "$secret_key" "$session_token" \
  | curl -sf -K - \
    --aws-sigv4 "aws:amz:$REGION:secretsmanager" \
    -H 'X-Amz-Target: secretsmanager.GetSecretValue' \
    -H 'Content-Type: application/x-amz-json-1.1' \
    --data "{\"SecretId\": \"$SECRET_ID\", \"VersionId\": \"$VERSION_ID\"}" \
    "https://secretsmanager.$REGION.amazonaws.com/") \
  || fail "Secrets Manager refused to return version $VERSION_ID of $SECRET_ID"
printf '%s' "$response" | json_field SecretString

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

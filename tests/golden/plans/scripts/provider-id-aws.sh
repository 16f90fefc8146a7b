# --- gpukit: the provider ID of an EC2 machine, aws:///<availability zone>/<instance id>, the form
# the Cluster Autoscaler's AWS provider parses (kubernetes/autoscaler cloudprovider/aws/
# aws_cloud_provider.go, validAwsRefIdRegex and AwsRefFromProviderId), from the metadata service
# (IMDSv2: a session token first; the launch template refuses IMDSv1). Needs curl only.
imds=http://169.254.169.254/latest
imds_token() {
  curl -sf -X PUT "$imds/api/token" -H 'X-aws-ec2-metadata-token-ttl-seconds: 300'
}
meta() {  # meta PATH: a metadata value, with the session token in $token
  curl -sf -H "X-aws-ec2-metadata-token: $token" "$imds/meta-data/$1"
}
token=$(imds_token) || fail "the instance metadata service did not answer"
zone=$(meta placement/availability-zone) || fail "no availability zone in the instance metadata"
instance=$(meta instance-id) || fail "no instance id in the instance metadata"
[[ "$zone" =~ ^[a-z]{2}(-[a-z]+)+-[0-9]+[a-z]$ ]] || fail "unexpected availability zone: $zone"
[[ "$instance" =~ ^i-[0-9a-f]{8,17}$ ]] || fail "unexpected instance id: $instance"
write_provider_id "aws:///$zone/$instance"

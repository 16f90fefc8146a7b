# --- gpukit: machine_gone PROVIDER_ID [NODE_CREATED], for the node sync on EC2 servers: true when EC2
# says the instance behind aws:///<zone>/<instance id> is shutting down or terminated, or knows no such
# instance; false while it exists, and whenever EC2 cannot be asked (an agent's node then goes after
# the 30-minute rule; a server's stays). A replaced machine has a new instance id, so the node's
# creation time (which the Compute Engine check compares) is not needed here.
# Asked with the server's instance role (ec2:DescribeInstances, providers/aws/k3s/iam.py).
# Inputs (set above by the renderer): REGION
machine_gone() {
  [[ "$1" =~ ^aws:///[-a-z0-9]+/(i-[0-9a-f]{8,17})$ ]] || return 1
  instance=${BASH_REMATCH[1]}
  token=$(imds_token) || return 1
  role=$(meta iam/security-credentials/ | head -n 1) || return 1
  credentials=$(meta "iam/security-credentials/$role") || return 1
  # A filter, not InstanceId.1: an unknown instance is then an empty answer, not an error.
  response=$(signed ec2 -H 'Content-Type: application/x-www-form-urlencoded' \
    --data "Action=DescribeInstances&Filter.1.Name=instance-id&Filter.1.Value.1=$instance&Version=2016-11-15" \
    "https://ec2.$REGION.amazonaws.com/") || return 1
  printf '%s' "$response" | python3 -c '
import re, sys
body = sys.stdin.read()
if "<DescribeInstancesResponse" not in body:
    sys.exit(1)
instances = re.findall(r"<instanceId>i-[0-9a-f]+</instanceId>", body)
states = re.findall(r"<instanceState>\s*<code>\d+</code>\s*<name>([a-z-]+)</name>", body)
# Gone: EC2 knows no such instance, or every one it lists is going; a state this cannot read keeps it.
if instances and len(states) != len(instances):
    sys.exit(1)
sys.exit(0 if all(state in ("shutting-down", "terminated") for state in states) else 1)'
}

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

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

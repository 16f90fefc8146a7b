# --- gpukit: print the join secrets bundle from Secret Manager, read with the VM's service account.
# Inputs (set above by the renderer): SECRET_VERSION (projects/P/secrets/S/versions/N), KMS_KEY (the
# servers': projects/P/locations/L/keyRings/R/cryptoKeys/K, the Cloud KMS key their bundle is
# encrypted with before it is stored, so that reading the secret alone does not read it; empty for the
# agents', whose secret holds their token as it is)
# Needs only curl and python3 (both on Ubuntu and the Deep Learning VM images): no gcloud. The
# access token goes to curl on stdin (-K -), never on a command line other users can read.
fail() {
  echo "gpukit: $*" >&2
  exit 1
}
metadata=http://metadata.google.internal/computeMetadata/v1
token_json=$(curl -sf -H 'Metadata-Flavor: Google' "$metadata/instance/service-accounts/default/token") \
  || fail "the metadata server gave no access token: the VM has no service account"
access_token=$(printf '%s' "$token_json" | python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')
response=$(printf 'header = "Authorization: Bearer %s"\n' "$access_token" \
  | curl -sf -K - "https://secretmanager.googleapis.com/v1/$SECRET_VERSION:access") \
  || fail "Secret Manager refused to return $SECRET_VERSION"
# The payload's data, base64 as Secret Manager returns it (checked: it goes into curl's config below).
data=$(printf '%s' "$response" | python3 -c '
import base64, json, sys
data = json.load(sys.stdin)["payload"]["data"]
base64.b64decode(data, validate=True)
print(data)')
if [ -z "$KMS_KEY" ]; then
  printf '%s' "$data" | python3 -c 'import base64, sys; print(base64.b64decode(sys.stdin.read()).decode())'
  exit 0
fi
# The servers' payload is the bundle's Cloud KMS ciphertext: Cloud KMS decrypts it for the accounts
# the key lets decrypt (the servers' own), whoever else may read the secret.
plaintext=$(printf 'header = "Authorization: Bearer %s"\nheader = "Content-Type: application/json"\ndata-binary = "{\\"ciphertext\\": \\"%s\\"}"\n' "$access_token" "$data" \
  | curl -sf -K - "https://cloudkms.googleapis.com/v1/$KMS_KEY:decrypt") \
  || fail "Cloud KMS refused to decrypt $SECRET_VERSION with $KMS_KEY: the servers' service account needs roles/cloudkms.cryptoKeyDecrypter on that key, and the key version that encrypted it must be enabled"
printf '%s' "$plaintext" \
  | python3 -c 'import base64, json, sys; print(base64.b64decode(json.load(sys.stdin)["plaintext"]).decode())'

# --- gpukit: the provider ID of a Compute Engine machine, gce://<project id>/<zone>/<instance name>,
# the form the Cluster Autoscaler's GCE provider parses (kubernetes/autoscaler cloudprovider/gce/
# gce_cloud_provider.go, GceRefFromProviderId), from the metadata server.
metadata=http://metadata.google.internal/computeMetadata/v1
meta() {  # meta PATH: one metadata value
  curl -sf -H 'Metadata-Flavor: Google' "$metadata/$1"
}
project=$(meta project/project-id) || fail "the metadata server gave no project id"
zone=$(meta instance/zone) || fail "the metadata server gave no zone"
zone=${zone##*/}  # projects/<number>/zones/<zone>
name=$(meta instance/name) || fail "the metadata server gave no instance name"
[[ "$project" =~ ^[a-z][-a-z0-9.:]{4,62}$ ]] || fail "unexpected project id: $project"
[[ "$zone" =~ ^[a-z]+-[a-z]+[0-9]+-[a-z]$ ]] || fail "unexpected zone: $zone"
[[ "$name" =~ ^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$ ]] || fail "unexpected instance name: $name"
write_provider_id "gce://$project/$zone/$name"

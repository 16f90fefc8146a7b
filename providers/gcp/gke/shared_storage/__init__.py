"""GKE's shared (ReadWriteMany) volumes: Filestore, Cloud Storage FUSE and Managed Lustre.

tables.py holds the facts (tiers, sizes, regions, add-on flags, bucket name rules) as data and pure
functions with their sources; validation.py refuses a volume GKE cannot build, naming its key; one
component per file builds each backend (filestore.py, gcs_fuse.py, lustre.py) and private_access.py the
private services access range and firewall rule Filestore and Lustre share; volumes.py builds them all
for a cluster.
"""

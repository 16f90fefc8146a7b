"""The storage add-on: shared (ReadWriteMany) volumes, `gpukit:storage.shared`, on every substrate.

Config (components/config/schema.py SHARED_VOLUME_FIELDS; typed as spec.SharedVolumeSpec): each volume
has `name` (DNS label, at most 24, unique), `kind` (auto | efs | fsx-lustre | s3 | filestore | gcs-fuse |
managed-lustre | nfs), `role` (datasets | checkpoints | model-cache), `sizeGb` (GiB), and optionally
`throughputMbps`, `tier` (a tier name of the backend's table row), `bucket` (s3 and gcs-fuse: an existing
bucket, required there, never created or deleted by gpukit) and `nfs` ({server, path}: an export the user
names; {host}: a cluster SSH host gpukit makes the server; neither on k3s over aws/gcp: a small VM).

- addon.py: the add-on (components/addons/base.py): its checks, findings, charges, report and build.
- variant.py: what a substrate builds of it, the variant it declares in Substrate.addon_variants
  (EKS's and GKE's under providers/, k3s's NFS in nfs/); how to add a backend.
- backends.py: BACKENDS, one `Backend` row per kind: the substrates it can serve, the roles `auto` gives
  it, its `Tier`s (sizes, step, throughput per size, HA, $/GiB-month), access modes, CSI driver and
  provisioner, encryption, bucket need, regions. Each figure with its source; None where not sourced.
- choice.py: `choose_backend` (kind auto: the role's AUTO_ORDER among what the substrate builds, with the
  one-line reason the plan prints) and `pick_tier` (first tier holding the size and the throughput).
- validate.py: `validate_storage`, the checks every substrate shares: names, kind usable on the
  substrate AND built there, region, size/tier/throughput, bucket and nfs keys. Each Problem names
  `gpukit:storage.shared[i].<key>`.
- volume.py and plan.py: `PlannedVolume` (backend, tier, auto reason, zones, throughput, $/h,
  StorageClass) and `planned_volumes(cluster)`, which the add-on's charges, report and plan.json
  (`sharedStorage`, report.py) read.
- naming.py: `storage_class_name(volume)` = `shared-<volume>`, the StorageClass a claim must name.
- nfs/: NFS on k3s: the CSI driver chart and classes, the server's exports and scripts (on an SSH host
  or a small cloud VM), the checks of `nfs`, and the k3s variants.
"""

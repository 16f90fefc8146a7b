"""Shared (ReadWriteMany) storage: `gpukit:storage.shared`, the contract every backend implements.

Config (components/config/schema.py SHARED_VOLUME_FIELDS; typed as spec.SharedVolumeSpec): each volume
has `name` (DNS label, at most 24, unique), `kind` (auto | efs | fsx-lustre | s3 | filestore | gcs-fuse |
managed-lustre | nfs), `role` (datasets | checkpoints | model-cache), `sizeGb` (GiB), and optionally
`throughputMbps`, `tier` (a tier name of the backend's table row), `bucket` (s3 and gcs-fuse: an existing
bucket, required there, never created or deleted by gpukit) and `nfs` ({server, path}: an export the user
names; {host}: a cluster SSH host gpukit makes the server; neither on k3s over aws/gcp: a small VM).

Data (pure, unit-tested without Pulumi):
- backends.py: BACKENDS, one `Backend` row per kind: the substrates it can serve, the roles `auto` gives
  it, its `Tier`s (sizes, step, throughput per size, HA, $/GiB-month), access modes, CSI driver and
  provisioner, encryption, bucket need, regions. Each figure with its source; None where not sourced.
- choice.py: `choose_backend` (kind auto: the role's AUTO_ORDER among what the substrate builds, with the
  one-line reason the plan prints) and `pick_tier` (first tier holding the size and the throughput).
- validate.py: `validate_storage`, run by components/resolve/validation.py: names, kind usable on the
  substrate AND built there, region, size/tier/throughput, bucket and nfs keys. Each Problem names
  `gpukit:storage.shared[i].<key>`.
- plan.py: `PlannedVolume` (backend, tier, auto reason, zones, throughput, $/h, StorageClass) and
  `planned_volumes(cluster)`, which costs (components/costs.py: a Charge per priced volume), the plan
  report (components/addons/storage/report.py) and plan.json (`sharedStorage`) read.
- naming.py: `storage_class_name(volume)` = `shared-<volume>`, the StorageClass a claim must name.

To add a backend on a substrate (providers/<cloud>/...):
1. Correct/fill its row in backends.py (sizes, tiers, throughput, price, regions) with sources.
2. In the substrate class: add the kind to `shared_storage_kinds` (until then every volume of that kind
   is refused: "gpukit does not build <kind> on <substrate> yet"); override `build_shared_storage(name,
   cluster, volumes, handle, parent)` to create, for each PlannedVolume of its kinds, the cloud resources
   (file system, network rules open only to the nodes, CSI driver/add-on, identity) and a StorageClass
   named `volume.storage_class` on `handle.kubernetes` (and a PersistentVolume where the backend is
   static), every resource `parent=parent`; return one `BuiltVolume(name, storage_class, resources)` per
   volume (GpuCluster raises if one is missing). Optionally override `shared_volume_zones(cluster,
   volume)` for the plan's zones column, and add substrate-only checks to its `validate`.
3. Add bad-config cases to tests/program/test_bad_configs_storage.py.
"""

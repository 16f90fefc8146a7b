"""Shared (ReadWriteMany) volumes on EKS: Amazon EFS, FSx for Lustre and Mountpoint for Amazon S3.

facts.py holds the sourced limits, names and prices; policies.py and manifests.py render IAM policies
and Kubernetes objects as pure functions; validation.py checks a volume before anything is built; one
component per file builds each piece (csi_addon.py, node_access.py, efs.py, fsx_lustre.py, s3_mount.py)
and build.py wires them to a cluster.
"""

"""A Cloud KMS key ring and its one symmetric key, as gpukit's keys are (GKE's secrets key, the k3s
servers' join key): ENCRYPT_DECRYPT, a new key version every ROTATION_DAYS (Cloud KMS keeps the old
ones for what they encrypted). Key rings and keys cannot be deleted in Google Cloud; both are
auto-named (the resource name and Pulumi's suffix), so a stack made again gets new ones."""

import pulumi
import pulumi_gcp as gcp

ROTATION_DAYS = 90
ROTATION_PERIOD = f"{ROTATION_DAYS * 24 * 3600}s"  # the API takes seconds


def rotated_key(
    name: str,
    location: pulumi.Input[str],
    ring_opts: pulumi.ResourceOptions,
    key_opts: pulumi.ResourceOptions,
) -> gcp.kms.CryptoKey:
    """`<name>-ring` in `location` and `<name>-key` in it."""
    ring = gcp.kms.KeyRing(f"{name}-ring", location=location, opts=ring_opts)
    return gcp.kms.CryptoKey(
        f"{name}-key",
        key_ring=ring.id,
        purpose="ENCRYPT_DECRYPT",
        rotation_period=ROTATION_PERIOD,
        opts=key_opts,
    )

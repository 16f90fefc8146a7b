"""The plan's "Shared storage" section and plan.json's `sharedStorage`, from the planned volumes (pure)."""

from typing import Any

from gpukit.components.addons.storage.volume import PlannedVolume, VolumeServer
from gpukit.components.text_table import text_table


def _rate(volume: PlannedVolume, value: float | None, unit: str) -> str:
    if value is not None:
        return f"${value:,.4f}{unit}"
    # Backends priced per region say which region lacks a sourced price (never another region's price).
    # A server (a VM and its disk) is priced in the cluster's region too.
    regional = volume.priced_per_region or volume.server is not None
    return f"no sourced price in {volume.region}" if regional else "no sourced price"


def _throughput(volume: PlannedVolume) -> str:
    given = volume.throughput_mbps
    return "not sourced" if given is None else f"{given:,.0f} MB/s"


def _server_line(volume: PlannedVolume, server: VolumeServer) -> str:
    where = f" in {server.zone}" if server.zone else ""
    return (
        f"  {volume.name}: served by a VM gpukit runs{where}: {server.machine} on demand "
        f"({_rate(volume, server.machine_usd_per_hour, '/h')}) with its own encrypted {volume.size_gb:,} GiB "
        f"{server.disk} data disk ({_rate(volume, server.disk_usd_per_gb_month, '/GiB-month')}), kept when "
        "the VM is replaced"
    )


def shared_storage_lines(volumes: list[PlannedVolume]) -> list[str]:
    """Each volume's backend, size, throughput, zones, price, availability and the StorageClass a claim
    names; nothing when the stack has no shared volumes."""
    if not volumes:
        return []
    rows = [
        [
            v.name,
            v.role.value,
            f"{v.kind.value}{' (auto)' if v.reason else ''}",
            v.tier.name,
            f"{v.size_gb:,} GiB",
            _throughput(v),
            ",".join(v.zones) or "cluster's zones",
            "yes" if v.highly_available else "NO",
            "per stored GiB" if v.bills_stored_bytes else _rate(v, v.usd_per_hour, "/h"),
            _rate(v, v.usd_per_gb_month, "/GiB-month"),
            v.storage_class,
        ]
        for v in volumes
    ]
    out = ["", "Shared storage (ReadWriteMany; a claim names the StorageClass):"]
    out += text_table(
        [
            "volume",
            "role",
            "backend",
            "tier",
            "size",
            "throughput",
            "zones",
            "HA",
            "$/h",
            "price",
            "StorageClass",
        ],
        rows,
    )
    out += [f"  {v.name}: auto chose {v.reason}" for v in volumes if v.reason]
    out += [_server_line(v, v.server) for v in volumes if v.server is not None]
    out += [
        f"  {v.name}: bucket {_bucket_name(v.spec.get('bucket'))} bills the bytes it stores, not sizeGb: "
        f"{_rate(v, v.usd_per_gb_month, '/GiB-month')} for Standard storage in {v.region or 'its region'}"
        " (another location or storage class bills its own rate), plus operations and data transfer;"
        " not in the totals"
        for v in volumes
        if v.bills_stored_bytes
    ]
    out += [
        f"  {v.name}: not highly available: the volume is down whenever its {v.backend.title} server "
        "or zone is down"
        for v in volumes
        if not v.highly_available
    ]
    return out


def _bucket_name(bucket: Any) -> str:
    """A bucket's name, or what stands for it when GpuCluster was given an Output (known only at up)."""
    return bucket if isinstance(bucket, str) else "(a pulumi.Output, named at up)"


def shared_storage_document(volumes: list[PlannedVolume]) -> list[dict[str, Any]]:
    """plan.json's `sharedStorage` entries."""
    return [
        {
            "name": v.name,
            "role": v.role.value,
            "backend": v.kind.value,
            "autoReason": v.reason or None,
            "tier": v.tier.name,
            "sizeGb": v.size_gb,
            "throughputMbps": v.throughput_mbps,
            "zones": list(v.zones),
            "highlyAvailable": v.highly_available,
            "accessModes": list(v.backend.access_modes),
            "csiDriver": v.backend.csi_driver,
            "encryptedAtRest": v.backend.encrypted_at_rest,
            "encryptedInTransit": v.backend.encrypted_in_transit,
            "costPerHour": v.usd_per_hour,
            "pricePerGbMonth": v.usd_per_gb_month,
            "storageClass": v.storage_class,
        }
        | ({} if v.server is None else {"server": _server_document(v.server)})
        for v in volumes
    ]


def _server_document(server: VolumeServer) -> dict[str, Any]:
    return {
        "machineType": server.machine,
        "machineCostPerHour": server.machine_usd_per_hour,
        "disk": server.disk,
        "diskPricePerGbMonth": server.disk_usd_per_gb_month,
        "zone": server.zone or None,
    }

"""The metrics store's size at the pools' maximum: active series, samples per second, the in-cluster
Prometheus's volume and memory. Pure and unit-tested.

Series are gpukit's estimates, stated as such in the plan (no upstream sizing figure exists: the chart
sets `resources: {}` and no volume): a base for the control plane, kube-state-metrics and Prometheus
itself, a share per node (kubelet and cAdvisor series of its pods), and a share per GPU (the DCGM
exporter's default counters, each per GPU and per MIG instance). Disk follows the Prometheus storage
docs (https://prometheus.io/docs/prometheus/latest/storage/, "Operational aspects"): needed disk =
retention seconds x samples per second x bytes per sample, "an average of only 1-2 bytes per sample";
gpukit takes 2 bytes and doubles it for the write-ahead log and compaction, and has Prometheus delete
old blocks once they fill RETENTION_SIZE_SHARE of the volume, so a busier cluster than estimated loses
history instead of filling its disk.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

from gpukit.components.addons.inference.names import SCRAPE_INTERVAL_SECONDS
from gpukit.components.pools import PoolFacts
from gpukit.components.pricing import HOURS_PER_MONTH

BASE_SERIES = 15_000
SERIES_PER_NODE = 3_000
SERIES_PER_GPU = 50
"""gpukit's estimates (see the module docstring). A check against Google's figure: "a fresh three-node
cluster using the kube-prometheus project sends about 900 samples per second" (Managed Service for
Prometheus, "Cost controls and attribution", https://cloud.google.com/stackdriver/docs/managed-prometheus/
cost-controls), 27,000 series at a 30 s interval; these give 24,000 for three nodes without the node
exporter, which gpukit leaves out (values.py)."""
BYTES_PER_SAMPLE = 2
DISK_HEADROOM = 2
MIN_VOLUME_GIB = 20
VOLUME_STEP_GIB = 10
RETENTION_SIZE_SHARE = 0.8
MEMORY_KIB_PER_SERIES = 8
"""gpukit's estimate of a Prometheus head block's memory per active series, with room for queries."""
MIN_MEMORY_MIB = 512
SECONDS_PER_DAY = 86_400
SECONDS_PER_MONTH = HOURS_PER_MONTH * 3600


@dataclass(frozen=True)
class StoreSize:
    nodes: int
    gpus: int
    series: int
    samples_per_second: float
    volume_gib: int
    retention_size_gib: int
    """Prometheus's `retentionSize`: old blocks go once the store reaches it."""
    memory_mib: int

    @property
    def samples_per_month(self) -> float:
        return self.samples_per_second * SECONDS_PER_MONTH


def series_at_max(pools: Sequence[PoolFacts]) -> tuple[int, int, int]:
    """(nodes, GPUs, active series) with every pool at its max."""
    nodes = sum(p.max_nodes for p in pools)
    gpus = sum(p.gpus_at_max for p in pools)
    return nodes, gpus, BASE_SERIES + SERIES_PER_NODE * nodes + SERIES_PER_GPU * gpus


def managed_series_at(pools: Sequence[PoolFacts], at_max: bool) -> int:
    """The series a managed store ingests from what gpukit has it collect: DCGM's per GPU (the
    workloads' own come on top; GKE's system metrics are free), with the pools at max or at min."""
    return SERIES_PER_GPU * sum(p.gpus_per_node * (p.max_nodes if at_max else p.min_nodes) for p in pools)


def ingestion_usd_per_hour(series: int, usd_per_million_samples: float) -> float:
    """What a managed store bills an hour for `series` scraped every SCRAPE_INTERVAL_SECONDS."""
    return series * 3600 / SCRAPE_INTERVAL_SECONDS * usd_per_million_samples / 1e6


def store_size(pools: Sequence[PoolFacts], retention_days: int) -> StoreSize:
    nodes, gpus, series = series_at_max(pools)
    per_second = series / SCRAPE_INTERVAL_SECONDS
    disk_gib = retention_days * SECONDS_PER_DAY * per_second * BYTES_PER_SAMPLE * DISK_HEADROOM / 2**30
    volume = max(MIN_VOLUME_GIB, math.ceil(disk_gib / VOLUME_STEP_GIB) * VOLUME_STEP_GIB)
    memory = max(MIN_MEMORY_MIB, math.ceil(series * MEMORY_KIB_PER_SERIES / 1024 / 64) * 64)
    return StoreSize(
        nodes=nodes,
        gpus=gpus,
        series=series,
        samples_per_second=per_second,
        volume_gib=volume,
        retention_size_gib=math.floor(volume * RETENTION_SIZE_SHARE),
        memory_mib=memory,
    )

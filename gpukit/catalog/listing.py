"""The rows of `gpukit catalog`: a cloud's machine types with their GPUs and their price in one region,
filtered and sorted; rendered as a table or as JSON. Pure functions over the substrates' catalogs."""

from dataclasses import dataclass

from gpukit.components.catalog.instances import InstanceType, MachineCatalog, PriceBasis


@dataclass(frozen=True)
class CatalogRow:
    machine: InstanceType
    price: float | None
    note: str
    """Why there is no price ("no price for europe-west4"), else empty."""
    pool_gpu: str
    """How a pool asks for it: the instance type, plus `gpu: {model, count}` where GPUs are attached."""


@dataclass(frozen=True)
class Filters:
    gpu: str | None = None
    """GPU model, any case (`l4`)."""
    min_gpu_memory_gb: float | None = None
    """Memory of each GPU, at least."""
    max_price: float | None = None
    """$/h at most; a machine with no price in the region is left out (it cannot be shown to be under)."""
    include_cpu: bool = False


def machines(catalog: MachineCatalog) -> list[tuple[InstanceType, str]]:
    """Every machine a pool can name, with how a pool names it: the catalog's own types, and each
    machine that takes attached GPUs (Google Cloud N1) once per attachable model and count."""
    out = [(m, m.name) for m in catalog.machines.values()]
    for machine in catalog.machines.values():
        if not catalog.can_attach_gpus(machine):
            continue
        for model, (accelerator, price_each) in catalog.attachable_gpus.items():
            out += [
                (
                    machine.with_attached_gpus(model, count, accelerator, price_each),
                    f"{machine.name} + gpu: {{model: {model}, count: {count}}}",
                )
                for count in catalog.attach_counts
            ]
    return out


def catalog_rows(catalog: MachineCatalog, region: str, filters: Filters) -> list[CatalogRow]:
    """The machines that pass `filters`, priced in `region`: by GPU model, GPU count, then price
    (unpriced last), as `sky show-gpus` groups them; CPU-only machines (with include_cpu) after them."""
    rows = []
    for machine, pool_gpu in machines(catalog):
        gpu = machine.gpu
        if gpu is None and not filters.include_cpu:
            continue
        if filters.gpu is not None and (gpu is None or gpu.name.casefold() != filters.gpu.casefold()):
            continue
        if filters.min_gpu_memory_gb is not None and (
            gpu is None or gpu.memory_gb < filters.min_gpu_memory_gb
        ):
            continue
        quote = catalog.quote(machine, region)
        if filters.max_price is not None and (quote.per_node is None or quote.per_node > filters.max_price):
            continue
        rows.append(
            CatalogRow(machine, quote.per_node, "" if quote.per_node is not None else quote.note, pool_gpu)
        )
    return sorted(
        rows,
        key=lambda r: (
            r.machine.gpu is None,
            r.machine.gpu_model or "",
            r.machine.gpu_count,
            r.price is None,
            r.price or 0.0,
            r.machine.vcpu,
            r.machine.name,
        ),
    )


def gpu_models(catalog: MachineCatalog) -> list[str]:
    return sorted(
        {m.gpu_model for m in catalog.machines.values() if m.gpu_model} | set(catalog.attachable_gpus)
    )


def _price(row: CatalogRow) -> str:
    if row.price is None:
        return row.note or "n/a"
    return f"${row.price:,.3f}" if row.price < 1 else f"${row.price:,.2f}"


HEADERS = ["GPU", "QTY", "GPU MEM", "INSTANCE TYPE", "vCPUs", "HOST MEM", "$/h"]


def table_rows(rows: list[CatalogRow]) -> list[list[str]]:
    return [
        [
            r.machine.gpu_model or "-",
            str(r.machine.gpu_count) if r.machine.gpu_count else "-",
            f"{r.machine.gpu.memory_gb} GB" if r.machine.gpu else "-",
            r.pool_gpu,
            str(r.machine.vcpu),
            f"{r.machine.memory_gib} GiB",
            _price(r),
        ]
        for r in rows
    ]


def basis_line(cloud: str, basis: PriceBasis) -> str:
    """Where the prices come from, or that there are none for the region."""
    if basis.as_of == "no price table":
        return f"{cloud} {basis.region}: {basis.source}; machines are listed without a price"
    return f"{cloud} {basis.region}: on-demand list prices, USD per hour ({basis.as_of}; {basis.source})"


def catalog_document(cloud: str, basis: PriceBasis, rows: list[CatalogRow]) -> dict[str, object]:
    return {
        "cloud": cloud,
        "region": basis.region,
        "priceBasis": {"asOf": basis.as_of, "source": basis.source, "currency": "USD"},
        "machines": [
            {
                "instanceType": r.machine.name,
                "poolConfig": r.pool_gpu,
                "gpuModel": r.machine.gpu_model,
                "gpuCount": r.machine.gpu_count,
                "gpuMemoryGb": r.machine.gpu.memory_gb if r.machine.gpu else None,
                "vcpus": r.machine.vcpu,
                "memoryGib": r.machine.memory_gib,
                "pricePerHour": r.price,
                "priceNote": r.note or None,
            }
            for r in rows
        ],
    }

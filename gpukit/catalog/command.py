"""`gpukit catalog [--cloud aws|gcp] [--region R] [--gpu MODEL] [--min-gpu-memory GB] [--max-price USD]
[--all] [--json]`."""

import json
import sys
from argparse import Namespace

from gpukit.catalog.listing import (
    HEADERS,
    Filters,
    basis_line,
    catalog_document,
    catalog_rows,
    gpu_models,
    table_rows,
)
from gpukit.cli_errors import CliProblem, report_error
from gpukit.colour import write
from gpukit.components.catalog.gpu_names import known_gpu_name
from gpukit.components.catalog.instances import MachineCatalog
from gpukit.components.catalog.lookup import suggest
from gpukit.components.substrate import registry
from gpukit.components.text_table import text_table

EXIT_OK = 0


def clouds() -> dict[str, tuple[MachineCatalog, frozenset[str]]]:
    """Each cloud gpukit makes machines on: its machine catalog (plain data, no cloud SDK) and the
    regions its region setting knows. From the substrates' registry, so a new cloud lists itself."""
    out: dict[str, tuple[MachineCatalog, frozenset[str]]] = {}
    for substrate in registry():
        if not substrate.builds_machines or substrate.catalog.cloud in out:
            continue
        known = [s.known for s in substrate.settings if s.attr == "region" and s.known is not None]
        out[substrate.catalog.cloud] = (substrate.catalog, known[0] if known else frozenset())
    return out


def catalog_command(args: Namespace) -> int:
    catalog, regions = clouds()[args.cloud]
    region = args.region or catalog.price_basis.region
    problems = []
    if regions and region not in regions:
        close = suggest(region, sorted(regions))
        hint = f"did you mean {', '.join(close)}?" if close else f"one of {', '.join(sorted(regions))}"
        problems.append(CliProblem("--region", f"unknown {args.cloud} region {region!r}; {hint}"))
    models = gpu_models(catalog)
    # Any spelling of a catalog model (h100, "NVIDIA L4", rtx4090), as pools take them.
    gpu = (known_gpu_name(args.gpu) or args.gpu) if args.gpu is not None else None
    if gpu is not None and gpu.casefold() not in {m.casefold() for m in models}:
        problems.append(
            CliProblem("--gpu", f"no {args.cloud} machine has GPU {args.gpu!r}; known: {', '.join(models)}")
        )
    for flag, value in (("--min-gpu-memory", args.min_gpu_memory), ("--max-price", args.max_price)):
        if value is not None and value < 0:
            problems.append(CliProblem(flag, f"must be 0 or more; got {value:g}"))
    if problems:
        return report_error("invalid catalog query", as_json=args.json, problems=problems)

    filters = Filters(gpu, args.min_gpu_memory, args.max_price, include_cpu=args.all)
    rows = catalog_rows(catalog, region, filters)
    basis = catalog.price_basis_in(region)
    if args.json:
        print(json.dumps(catalog_document(args.cloud, basis, rows), indent=2))
        return EXIT_OK
    out = [basis_line(args.cloud, basis), ""]
    out += text_table(HEADERS, table_rows(rows)) if rows else ["no machine matches these filters"]
    write("\n".join(out) + "\n", sys.stdout)
    return EXIT_OK

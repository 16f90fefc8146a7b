"""Prices for the stack's region: the home table, the vendored per-region tables, and no price at all."""

from pathlib import Path

import pytest

from gpukit.components.catalog.instances import no_price_note
from gpukit.components.costs import estimate
from gpukit.components.resolve.config import resolve_config
from gpukit.providers.aws.catalog import AWS_CATALOG
from gpukit.providers.gcp.catalog import GCP_CATALOG
from harness import ROOT, eks_config

SCRIPTS = ROOT / "scripts"


def test_aws_home_region_reads_the_catalog_itself() -> None:
    g6 = AWS_CATALOG.machine("g6.xlarge")
    assert AWS_CATALOG.quote(g6, "us-east-1").per_node == pytest.approx(0.8048)
    assert AWS_CATALOG.price_basis_in("us-east-1") == AWS_CATALOG.price_basis


def test_aws_eu_central_1_has_its_own_prices_and_basis() -> None:
    # skypilot-catalog aws vms.csv @00148f2a: g6.xlarge 1.0064, m7i.large 0.12075 in eu-central-1.
    assert AWS_CATALOG.quote(AWS_CATALOG.machine("g6.xlarge"), "eu-central-1").per_node == pytest.approx(
        1.0064
    )
    assert AWS_CATALOG.quote(AWS_CATALOG.machine("m7i.large"), "eu-central-1").per_node == pytest.approx(
        0.12075
    )
    basis = AWS_CATALOG.price_basis_in("eu-central-1")
    assert (basis.region, basis.source) == (
        "eu-central-1",
        "skypilot-org/skypilot-catalog catalogs/v8/aws/vms.csv @00148f2a",
    )


def test_a_type_the_region_table_lacks_has_no_price_never_the_home_one() -> None:
    p5 = AWS_CATALOG.machine("p5.48xlarge")
    assert p5.price_per_hour is not None  # priced in us-east-1 ...
    quote = AWS_CATALOG.quote(p5, "eu-central-1")  # ... but not vendored for eu-central-1
    assert (quote.per_node, quote.note) == (None, "no price for eu-central-1")


def test_a_region_without_any_table_prices_nothing() -> None:
    quote = AWS_CATALOG.quote(AWS_CATALOG.machine("m7i.large"), "ap-southeast-7")
    assert (quote.per_node, quote.note) == (None, no_price_note("ap-southeast-7"))
    assert AWS_CATALOG.price_basis_in("ap-southeast-7").as_of == "no price table"


def test_gcp_europe_west4_sums_host_and_gpu_rows() -> None:
    # vms.csv @006059e0, europe-west4: g2-standard-8 host 0.30857 + one L4 0.58804.
    g2 = GCP_CATALOG.machine("g2-standard-8")
    assert GCP_CATALOG.quote(g2, "europe-west4").per_node == pytest.approx(0.30857 + 0.58804)
    assert GCP_CATALOG.quote(g2, "us-central1").per_node == pytest.approx(0.85362)


def test_gcp_attached_t4_needs_both_the_host_and_the_gpu_price_of_the_region() -> None:
    n1_t4 = GCP_CATALOG.pool_instance("n1-standard-8", {"model": "T4", "count": 2})
    assert GCP_CATALOG.quote(n1_t4, "us-central1").per_node == pytest.approx(0.38 + 2 * 0.35)
    # vms.csv @006059e0, europe-west4: n1-standard-8 host 0.41834 + T4 0.3675 each.
    assert GCP_CATALOG.quote(n1_t4, "europe-west4").per_node == pytest.approx(0.41834 + 2 * 0.3675)
    # europe-west6 has an n1-standard-8 host price (0.49777) but the catalog lists no T4 there:
    # the host alone is no price for the pool, not a guess.
    n1 = GCP_CATALOG.machine("n1-standard-8")
    assert GCP_CATALOG.quote(n1, "europe-west6").per_node == pytest.approx(0.49777)
    assert GCP_CATALOG.quote(n1_t4, "europe-west6").per_node is None


def test_generated_us_central1_rows_reproduce_the_catalog_prices() -> None:
    """The generator sums host + GPU rows exactly as providers/gcp/catalog.py's prices were made."""
    from gpukit.providers.gcp import region_prices

    for name, price in region_prices.MACHINE_PRICES["us-central1"].items():
        assert GCP_CATALOG.machine(name).price_per_hour == pytest.approx(price), name


def test_generated_us_east_1_rows_match_the_home_catalog_prices() -> None:
    """SkyPilot's us-east-1 rows (unused: us-east-1 reads the catalog) agree with the independent
    karpenter-provider-aws prices in providers/aws/catalog.py, a check on the excerpt's transcription."""
    from gpukit.providers.aws import region_prices

    rows = region_prices.MACHINE_PRICES["us-east-1"]
    assert len(rows) >= 30
    for name, price in rows.items():
        assert AWS_CATALOG.machine(name).price_per_hour == pytest.approx(price), name


@pytest.mark.parametrize("cloud", ["aws", "gcp"])
def test_vendored_tables_are_what_the_script_writes_from_the_excerpts(cloud: str) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("vendor_prices", SCRIPTS / "vendor_prices.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    excerpt = SCRIPTS / "price_sources" / f"skypilot-{cloud}-vms-excerpt.csv"
    written = Path(ROOT / "providers" / cloud / "region_prices.py").read_text()
    assert module.render(cloud, str(excerpt)) == written


def test_unpriced_pool_makes_totals_lower_bounds_only_where_it_has_nodes() -> None:
    config = eks_config(**{"aws:region": "eu-central-1"})
    config["gpukit:nodePools"][1]["zones"] = ["euc1-az1"]
    config["gpukit:nodePools"].append(
        {"name": "h100", "instanceType": "p5.48xlarge", "minNodes": 0, "maxNodes": 1, "zones": ["euc1-az1"]}
    )
    cost = estimate(resolve_config(config))
    assert [p.pool.name for p in cost.unpriced] == ["h100"]
    assert cost.idle_is_lower_bound is False  # h100 idles at 0 nodes: the idle total is exact
    assert cost.max_is_lower_bound is True
    assert cost.max_total == pytest.approx(0.10 + 0.045 + 3 * 0.12075 + 8 * 1.0064)

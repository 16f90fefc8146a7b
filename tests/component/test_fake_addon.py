"""The add-on seam itself, apart from any real add-on: a fake add-on put in the registry is checked
before anything is built, priced, found about and reported in the plan, and built after the substrate
and the add-ons before it, on the cluster's own Kubernetes provider, waiting for what it names.
Nothing outside its folder names it: the registry is the one place it is listed."""

from collections.abc import Iterator
from typing import Any

import pulumi_kubernetes as k8s
import pytest

from gpukit.components import ConfigError, GpuCluster
from gpukit.components.addons import registry
from gpukit.components.addons.base import Addon, BuildContext, Built, Unpriced, ValidationScope
from gpukit.components.addons.gpu_operator.addon import GPU_OPERATOR
from gpukit.components.errors import Problem
from gpukit.components.findings import Finding, Severity
from gpukit.components.handle import ClusterHandle
from gpukit.components.pricing import Charge
from gpukit.components.substrate import ResolvedCluster
from gpukit.plan import plan_program
from gpukit.plan.artifacts import plan_document
from gpukit.plan.report import render_text
from harness import record
from tests.component.test_fake_substrate import FakeSubstrate, args


class FakeAddon(Addon):
    name = "fake-addon"
    after = (GPU_OPERATOR,)

    def __init__(self) -> None:
        self.on = True
        self.refuse = False
        self.scopes: list[ValidationScope] = []
        self.contexts: list[BuildContext] = []

    def problems(self, scope: ValidationScope) -> list[Problem]:
        self.scopes.append(scope)
        return [Problem("gpukit:cluster.name", "the fake add-on refuses it")] if self.refuse else []

    def wanted(self, cluster: ResolvedCluster) -> bool:
        return self.on

    def findings(self, cluster: ResolvedCluster) -> list[Finding]:
        return [Finding(Severity.WARNING, "gpukit:cluster.name", "the fake add-on found this")]

    def charges(self, cluster: ResolvedCluster) -> list[Charge]:
        return [Charge("fake add-on", 0.5, 2.0)]

    def unpriced(self, cluster: ResolvedCluster) -> Unpriced | None:
        return Unpriced("fake thing(s)", ("widget",), "nobody sells them", "fake things")

    def report(self, cluster: ResolvedCluster, handle: ClusterHandle) -> list[str]:
        return ["", f"Fake add-on: next to {handle.storage_summary}"]

    def document(self, cluster: ResolvedCluster, handle: ClusterHandle) -> dict[str, Any]:
        return {"fakeAddon": {"wanted": self.wanted(cluster)}}

    def build(self, ctx: BuildContext) -> Built:
        self.contexts.append(ctx)
        config_map = k8s.core.v1.ConfigMap(
            f"{ctx.name}-fake-addon",
            metadata={"name": "fake-addon"},
            opts=ctx.in_cluster(ctx.ready()),
        )
        return Built(ready=(config_map,))


@pytest.fixture
def addon(fake: FakeSubstrate, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAddon]:
    made = FakeAddon()
    monkeypatch.setattr(registry, "ADDONS", (*registry.ADDONS, made))
    yield made


def test_it_is_built_after_the_substrate_and_the_addons_before_it(addon: FakeAddon) -> None:
    rec = record(lambda: GpuCluster("fake", args()))  # type: ignore[arg-type]
    (ctx,) = addon.contexts
    assert list(ctx.built) == [GPU_OPERATOR]  # verification and storage are not wanted here
    config_map = rec.one("kubernetes:core/v1:ConfigMap", "fake-fake-addon")
    assert rec.parent_of(config_map).type == "gpukit:index:GpuCluster"  # type: ignore[union-attr]
    assert config_map.provider.startswith(rec.one("pulumi:providers:kubernetes").urn)
    # What it named, the GPU stack: depending on the GpuOperator component is waiting for its children.
    assert rec.one("kubernetes:helm.sh/v3:Release").urn in config_map.dependencies


def test_what_it_waits_for_falls_back_to_the_system_pools(addon: FakeAddon, fake: FakeSubstrate) -> None:
    """Without the add-on it names (no GPU pool: no GPU Operator), it waits for what the substrate says
    in-cluster software waits for."""
    cpu_only = {"name": "system", "instance_type": "cpu.small", "min_nodes": 1, "max_nodes": 1}
    record(lambda: GpuCluster("fake", args(cpu_only)))  # type: ignore[arg-type]
    (ctx,) = addon.contexts
    assert ctx.built == {}
    assert ctx.ready() == ctx.handle.system_ready


def test_its_problems_refuse_the_stack_before_anything_is_built(
    addon: FakeAddon, fake: FakeSubstrate
) -> None:
    addon.refuse = True
    with pytest.raises(ConfigError, match=r"gpukit:cluster\.name: the fake add-on refuses it"):
        record(lambda: GpuCluster("fake", args()))  # type: ignore[arg-type]
    assert fake.built == [] and addon.contexts == []
    (scope,) = addon.scopes
    assert scope.substrate is fake and scope.pools_ok and scope.substrate_checked
    assert scope.pools is not None and [p.name for p in scope.pools] == ["system", "gpus"]


def test_pool_facts_wait_for_pools_without_problems(addon: FakeAddon) -> None:
    """A check that needs the pools' facts gets none while a pool has a problem of its own."""
    bad = args()
    bad["node_pools"][1]["instance_type"] = "gpu.two"
    with pytest.raises(ConfigError):
        record(lambda: GpuCluster("fake", bad))  # type: ignore[arg-type]
    (scope,) = addon.scopes
    assert scope.pools is None


def test_a_misspelt_addon_to_wait_for_is_an_error(addon: FakeAddon) -> None:
    addon.after = ("gpu-operater",)
    with pytest.raises(Exception, match="waits for \\['gpu-operater'\\], which are no add-ons before it"):
        record(lambda: GpuCluster("fake", args()))  # type: ignore[arg-type]


def test_the_plan_prices_finds_and_reports_through_it(addon: FakeAddon) -> None:
    plan = plan_program(lambda: GpuCluster("fake", args()))  # type: ignore[arg-type]
    text = render_text(plan.clusters[0])
    assert "\nFake add-on: next to fake storage\n" in text
    assert "  warning: gpukit:cluster.name: the fake add-on found this\n" in text
    assert "  fake add-on: $0.500 at idle, $2.00 at max\n" in text
    assert "  total at max (max nodes):  at least $9.25\n" in text  # 1 + 0.25 + 3 x 2 + 2
    assert (
        "  ! NO PRICE for fake thing(s) widget: nobody sells them; they are left out, so the totals" in text
    )
    assert plan_document(plan)["clusters"][0]["fakeAddon"] == {"wanted": True}


def test_an_addon_the_cluster_does_not_want_is_neither_built_nor_charged(addon: FakeAddon) -> None:
    addon.on = False
    plan = plan_program(lambda: GpuCluster("fake", args()))  # type: ignore[arg-type]
    assert addon.contexts == []
    assert not [r for r in plan.resources if r.type == "kubernetes:core/v1:ConfigMap"]
    costs = plan.clusters[0].costs
    assert "fake add-on" not in [c.what for c in costs.charges] and costs.unpriced_items == ()
    text = render_text(plan.clusters[0])
    assert "the fake add-on found this" not in text  # no finding about what is not built
    # What it reports is its own to say (a section may say what runs instead).
    assert "Fake add-on: next to fake storage" in text

"""The add-on seam: one piece of software gpukit installs into a cluster, and what it declares.

An add-on is a folder, components/addons/<name>/, and one entry of components/addons/registry.py,
whose order is the install order. Everything about it sits in its folder: the config section it owns
(its keys are fields in components/config/schema.py), whether a resolved cluster wants it, its
validation problems, preflight findings, charges, plan report lines and plan.json keys, the checks
`gpukit verify` runs, and `build`. GpuCluster builds the substrate, then each wanted add-on in order;
resolution, preflight, costs, the plan report and `gpukit verify` iterate over the same entries and
name none of them.

What an add-on does differently per substrate is data: rows in its folder naming the substrates
(`Substrate.name`) they apply to, or a fact the substrate declares for it in
`Substrate.addon_variants[<name>]`, in the shape the add-on's folder defines (the shared-storage
backends a substrate builds, say; `addon_variant` finds it). It is never a new Substrate method.

Light on purpose: no Pulumi import here or in an add-on's addon.py (the registry loads with every
`gpukit` command); Pulumi and its SDKs load in `build`.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from gpukit.components.errors import Problem
from gpukit.components.findings import Finding
from gpukit.components.pools import PoolFacts
from gpukit.components.pricing import Charge
from gpukit.components.spec import ClusterConfig
from gpukit.components.substrate import ResolvedCluster, Substrate, declared_variant

if TYPE_CHECKING:
    import pulumi

    from gpukit.components.handle import ClusterHandle


@dataclass(frozen=True)
class ValidationScope:
    """What an add-on's checks of its config section see."""

    args: ClusterConfig
    """The parsed config: the add-on's section parsed cleanly; other sections may not have."""
    substrate: Substrate | None
    """The cluster's substrate; None where the cluster section names none gpukit knows (checks that
    depend on it are skipped: that problem is reported where it belongs)."""
    sections: frozenset[str]
    """The config sections that parsed cleanly (schema keys: `nodePools`, `storage`)."""
    pools: tuple[PoolFacts, ...] | None = None
    """Each pool's facts, as the resolved cluster will have them; None where the pools have problems
    of their own (or no substrate is known), so checks that need the facts wait until they are fixed."""
    substrate_checked: bool = False
    """Whether the substrate's own checks ran (every key it requires is present): checks a substrate's
    variant makes may read those keys, so they run only then."""

    @property
    def pools_ok(self) -> bool:
        """Whether `nodePools` parsed cleanly, so its values have the shape their checks expect."""
        return "nodePools" in self.sections


@dataclass(frozen=True)
class Unpriced:
    """Things an add-on runs that gpukit has no sourced list price for: the cost totals leave them out
    and become lower bounds ("at least"), and the budget guard refuses to vouch for them."""

    what: str
    """Their noun as the report lists them: `shared volume(s)`."""
    names: tuple[str, ...]
    why: str
    """`gpukit has no sourced list price for their backend`."""
    instead: str
    """What to pick instead, for the budget's fix: `storage backends`."""


@dataclass(frozen=True)
class Built:
    """What an add-on built that later add-ons may wait for."""

    ready: tuple["pulumi.Resource", ...] = ()
    """Done once these are (the GPU Operator's release: the GPU stack is installed)."""
    workload_namespaces: tuple[tuple[str, "pulumi.Resource"], ...] = ()
    """Namespaces this add-on created for users' workloads (batch's team namespaces), each with its
    resource: a later add-on that puts a default in every workload namespace (storage's egress policy)
    puts it there too, once the namespace exists."""


@dataclass(frozen=True)
class BuildContext:
    """What an add-on's `build` is given: the cluster, what the substrate built, and where its resources
    go."""

    name: str
    """The GpuCluster's resource name: every resource name an add-on makes starts with it."""
    cluster: ResolvedCluster
    handle: "ClusterHandle"
    """The substrate's cluster: its Kubernetes provider, what in-cluster software waits for, and what
    the substrate keeps for the variants it declares (`substrate_state`)."""
    parent: "pulumi.Resource"
    """The GpuCluster: the parent of everything an add-on builds (a substrate's variant may put cloud
    resources under the substrate's own component instead, where they always were: a parent of another
    type gives them other URNs)."""
    built: Mapping[str, Built] = field(default_factory=dict)
    """What the add-ons before this one built, by add-on name (an unwanted one is absent)."""
    after: tuple[str, ...] = ()
    """The add-ons this one waits for (its `Addon.after`)."""
    asked: Mapping[str, Any] = field(default_factory=dict)
    """Helm values the other wanted add-ons ask this one's release to take (their `Addon.asks`),
    merged: this add-on lays them over its own values."""

    def ready(self) -> list["pulumi.Resource"]:
        """What to wait for: what the add-ons in `after` built, where any of them was built, else the
        substrate's (the cluster's API and the pools that host system pods)."""
        found = [resource for name in self.after if name in self.built for resource in self.built[name].ready]
        return found or list(self.handle.system_ready)

    def in_cluster(self, depends_on: Sequence["pulumi.Resource"]) -> "pulumi.ResourceOptions":
        """Options for a resource on the cluster's API: a child of the GpuCluster, on the substrate's
        Kubernetes provider (never an ambient kubeconfig), after `depends_on`."""
        import pulumi  # Pulumi loads with `build`, not with the registry (see the module docstring)

        return pulumi.ResourceOptions(
            parent=self.parent, providers={"kubernetes": self.handle.kubernetes}, depends_on=list(depends_on)
        )


RUN_LABEL = "gpukit.dev/verify-run"
"""The label every Job of one `gpukit verify` run carries, its value the run's id: the command deletes
by it, and leaves other runs' Jobs (and `pulumi up`'s, which have none) alone."""


class CheckSetupError(RuntimeError):
    """A check suite cannot make what its Jobs need on this machine (a tool it runs is missing): `gpukit
    verify` says so and exits 1, checking nothing."""


class CheckSuite(Protocol):
    """What `gpukit verify` runs for one add-on against a running cluster: a Kubernetes Job per thing it
    checks, and the namespaces they run in. A check's pod says what failed on lines that start with
    `gpukit-verify: FAIL: `, which the command prints; each Job of a run carries RUN_LABEL."""

    @property
    def subject(self) -> str:
        """What each check is of, for the summary line: `GPU pool`."""
        ...

    @property
    def timeout_minutes(self) -> int:
        """How long each Job may run (its activeDeadlineSeconds)."""
        ...

    def namespaces(self) -> list[dict[str, Any]]:
        """The namespaces the Jobs run in, as manifests (the command makes those missing, and removes
        those it made)."""
        ...

    def objects(self, run: str) -> list[dict[str, Any]]:
        """What the Jobs need besides their namespaces (a Secret, a Service), as manifests named and
        labelled (RUN_LABEL) for one run: the command applies them before the Jobs and deletes them
        with them."""
        ...

    def jobs(self, run: str, ttl_seconds: int) -> dict[str, dict[str, Any]]:
        """Check label (`pool l4`) -> its Job's manifest, named and labelled for one run."""
        ...


V = TypeVar("V")


def addon_variant(substrate: Substrate, addon: str, kind: type[V], default: V) -> V:
    """The variant `substrate` declares for `addon` (Substrate.addon_variants), or `default`; one of
    another type is the substrate's bug, said here."""
    found = declared_variant(substrate, addon)
    if found is None:
        return default
    if not isinstance(found, kind):
        raise TypeError(
            f"substrate {substrate.name!r} declares addon_variants[{addon!r}] as {type(found).__name__}; "
            f"the {addon} add-on takes a {kind.__name__}"
        )
    return found


class Addon(Protocol):
    """One piece of in-cluster software. Subclass this protocol explicitly (class StorageAddon(Addon))
    to inherit the do-nothing defaults, so an add-on states only what it has; `name`, `wanted` and
    `build` are its own.

    Which hooks run for which cluster: `problems` wherever its section parsed; `findings`, `charges`,
    `unpriced` and `build` only where the cluster wants it (what is not built costs and warns nothing);
    `report`, `document` and `pool_output` always (a section may say what runs instead: the platform's
    GPU software, the cluster's default StorageClass); `checks` always (`gpukit verify` checks a running
    cluster, whatever the stack deploys)."""

    name: str
    """Its name in the registry, in Substrate.addon_variants and in BuildContext.built: `gpu-operator`."""
    section: str | None = None
    """The `gpukit:` config section it owns (a key of components/config/schema.py TOP_LEVEL_FIELDS,
    `verification`), or None."""
    after: tuple[str, ...] = ()
    """The add-ons it waits for, by name: each comes before it in the registry (a test checks), and
    `BuildContext.ready()` is what they built (verification waits for the GPU Operator)."""

    def asks(self, cluster: ResolvedCluster) -> dict[str, dict[str, Any]]:
        """Helm values it needs another add-on's release to take, by that add-on's name, where it is
        wanted (the inference add-on's Prometheus scrapes the DCGM exporter itself, so it asks the GPU
        Operator for no ServiceMonitor of its own). The other add-on sees them in `BuildContext.asked`,
        without importing this one; the asking add-on's tests check each key against that chart."""
        return {}

    def system_namespaces(self, cluster: ResolvedCluster) -> tuple[str, ...]:
        """The namespaces where it runs pods on the pools without GPUs, tolerating their taints (k3s's
        servers among them), where it is wanted; k3s's servers admit pods of these namespaces only
        besides their own (ResolvedCluster.system_namespaces)."""
        return ()

    def problems(self, scope: ValidationScope) -> list[Problem]:
        """Meaning checks of its section, each naming its config key; run only where the section parsed
        cleanly, before anything is built (exit 2)."""
        return []

    def wanted(self, cluster: ResolvedCluster) -> bool:
        """Whether `pulumi up` builds it for this cluster."""
        ...

    def findings(self, cluster: ResolvedCluster) -> list[Finding]:
        """Preflight findings (an error stops `pulumi up` before anything is created)."""
        return []

    def charges(self, cluster: ResolvedCluster) -> list[Charge]:
        """What it costs per hour, at idle and at max nodes, beyond the pools' machines."""
        return []

    def unpriced(self, cluster: ResolvedCluster) -> Unpriced | None:
        """What it runs that has no sourced price (the totals are lower bounds then)."""
        return None

    def report(self, cluster: ResolvedCluster, handle: "ClusterHandle") -> list[str]:
        """Its lines of the plan report (a section starts with an empty line); `handle` is what the
        substrate built, for facts only the build knows."""
        return []

    def document(self, cluster: ResolvedCluster, handle: "ClusterHandle") -> dict[str, Any]:
        """Its keys of plan.json's cluster document."""
        return {}

    def pool_output(self, cluster: ResolvedCluster, pool: PoolFacts) -> dict[str, Any]:
        """Its keys of one pool's entry in the `pools` stack output (what a workload on the pool copies:
        the interconnect's resource and environment); the same keys for every pool, so the entry's
        shape does not depend on the stack."""
        return {}

    def checks(self, cluster: ResolvedCluster, timeout_minutes: int | None = None) -> CheckSuite | None:
        """What `gpukit verify` checks for it on a running cluster (None: nothing), each Job allowed
        `timeout_minutes` (None: what the stack says)."""
        return None

    def build(self, ctx: BuildContext) -> Built:
        """Its resources, children of `ctx.parent` on `ctx.handle.kubernetes`; what later add-ons may
        wait for."""
        ...


def merge_values(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """`base` with `over` laid over it, maps merged key by key, anything else replaced."""
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = merge_values(merged[key], value)
        else:
            merged[key] = value
    return merged

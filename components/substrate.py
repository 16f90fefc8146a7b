"""The seam between gpukit's provider-neutral code and the places it builds clusters: the `Substrate`
protocol, and the `ResolvedCluster` every substrate and add-on is handed.

A substrate is one place gpukit builds a cluster: a platform on a provider (EKS on AWS, GKE on Google
Cloud, k3s on EC2, on Compute Engine, or on existing hosts over SSH). Everything gpukit knows about one
substrate sits behind the protocol, in its package under providers/: its config keys, its machine
catalog, its validation, the driver branch its GPU nodes run, what it charges beyond its machines, its
next steps, its plan fakes, and `build`, which imports its cloud SDK only then. What a substrate
contributes to an add-on (the shared-storage backends it builds, say) is a fact it declares in
`addon_variants`, in the shape the add-on's folder defines, never a method here.

The two live in one module because they name each other: a resolved cluster holds its substrate, and
every substrate method is given the resolved cluster (components/resolve/config.py makes it, once per
run). The registry (gpukit.providers.REGISTRY) maps (platform, provider) to a substrate; components/
never imports providers/: gpukit/__init__.py, the composition root, hands the registry to
`use_registry`. This module stays light (no Pulumi import), so `import gpukit` does too.
"""

import importlib.util
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from gpukit.components.catalog.fabrics import FabricKind
from gpukit.components.catalog.instances import MachineCatalog
from gpukit.components.errors import MissingExtraError, Problem
from gpukit.components.findings import Finding
from gpukit.components.node_software import GpuNodeSoftware
from gpukit.components.plan_fakes import PlanFakes
from gpukit.components.pools import PoolFacts, make_pool_facts
from gpukit.components.pricing import Charge
from gpukit.components.spec import (
    ClusterConfig,
    ClusterSpec,
    DriverMode,
    GpuOperatorSpec,
    NodePoolSpec,
    Platform,
    Provider,
)
from gpukit.components.validate.limits import NO_LIMITS, SubstrateLimits

if TYPE_CHECKING:
    import pulumi

    from gpukit.components.handle import ClusterHandle

NO_VARIANTS: Mapping[str, object] = MappingProxyType({})


@dataclass(frozen=True)
class ProviderSetting:
    """A provider config key a substrate reads (`aws:region`), and the ClusterSpec field it fills."""

    key: str
    attr: str
    """`region` or `project`: where the value goes in ClusterSpec."""
    what: str
    """What it is, for the message when it is missing: "the region to build in"."""
    example: str
    pattern: re.Pattern[str] | None = None
    """The shape a valid value has (None: any string)."""
    shape: str = ""
    """The shape in words, for the message when the value does not match `pattern`."""
    known: frozenset[str] | None = None
    """Every value gpukit accepts (the sourced region list), or None for any value of the shape."""
    known_source: str = ""
    """Where `known` comes from, for the message naming a value it does not hold."""


@dataclass(frozen=True)
class SdkExtra:
    """The cloud SDK a substrate builds with, and the gpukit extra that installs it."""

    module: str
    """`pulumi_aws`."""
    extra: str
    """`aws`: pip install 'gpukit[aws]'."""


@dataclass(frozen=True)
class PlannedHost:
    """An existing machine a plan joins (k3s over SSH), as the report lists it."""

    node: str
    role: str
    address: str
    k3s_version: str
    labels: list[str]
    taints: list[str]
    host_key: str = ""
    """The SSH host key gpukit checks, as its fingerprint (`ssh-ed25519 SHA256:...`), or why none is."""


class Substrate(Protocol):
    """One (platform, provider): everything gpukit knows about building clusters there.

    Implementations subclass this protocol explicitly (class EksSubstrate(Substrate)) to inherit the
    defaults below, set the attributes as class attributes, and are registered once in
    gpukit.providers.REGISTRY.
    """

    platform: Platform
    provider: Provider
    name: str
    """Its id in docs and key declarations: `eks`, `k3s-aws`."""
    title: str
    """What a cluster here is, in messages: "this cluster is k3s on aws"."""
    where: str
    """How messages name it in "only for ..." lists: "platform eks", "k3s on aws"."""
    builds_machines: bool
    """True where gpukit creates the machines from `catalog`; False for existing hosts."""
    sdk: SdkExtra | None
    """The cloud SDK `build` imports (None: only the SDKs every gpukit install has)."""
    settings: tuple[ProviderSetting, ...]
    """Provider config keys read into ClusterSpec (region, project)."""
    accepts: frozenset[str]
    """The substrate-specific gpukit keys it takes (components/config/schema.py marks which keys are
    substrate-specific), as schema paths: `cluster.network.vpcId`, `nodePools.nodeImage`."""
    requires: frozenset[str]
    """Keys it cannot build without (a subset of `accepts`)."""
    catalog: MachineCatalog
    gpu_taint_value: str
    """The value of the nvidia.com/gpu taint on GPU nodes (GKE sets `present` itself)."""
    limits: SubstrateLimits = NO_LIMITS
    """The provider's sourced limits on node counts and list sizes (providers/<cloud>/limits.py)."""
    fabrics: frozenset[FabricKind] = frozenset()
    """The fast fabrics it sets up for pools whose machines have one (`nodePools[].interconnect`,
    components/catalog/fabrics.py); a pool on a machine with another runs on the ordinary network."""
    addon_variants: Mapping[str, object] = NO_VARIANTS
    """What this substrate contributes to add-ons, by add-on name, each in the shape that add-on's folder
    defines (components/addons/<name>/variant.py): the shared-storage backends it builds, for one. A
    class's entries add to its base classes' (declared_variant), so what every k3s substrate shares is
    declared once. An add-on with no entry gets its default (none: the add-on says what that means)."""

    def pool_facts(self, pool: NodePoolSpec) -> PoolFacts:
        """The facts of one validated pool: its machine from the catalog, its scale bounds."""
        instance = self.catalog.pool_instance(pool["instance_type"], pool.get("gpu"))
        return make_pool_facts(
            pool, instance, pool["min_nodes"], pool["max_nodes"], self.gpu_taint_value, fabrics=self.fabrics
        )

    def cluster_pool_facts(self, pools: list[NodePoolSpec]) -> tuple[PoolFacts, ...]:
        """The facts of every pool of a cluster, where one pool's depend on the others (k3s servers are
        tainted when the cluster has agents)."""
        return tuple(self.pool_facts(p) for p in pools)

    def validate(self, args: ClusterConfig, pools_ok: bool) -> list[Problem]:
        """Checks only this substrate makes; runs once every key it requires is present."""
        return []

    def operator_shares_gpus(self, args: ClusterConfig) -> bool:
        """Whether the GPU Operator applies the pools' `sharing` (node labels, its device-plugin config);
        False where the platform's own device plugin shares the GPUs (GKE's driver)."""
        return True

    def validate_operator(self, operator: GpuOperatorSpec) -> list[Problem]:
        """`gpukit:gpuOperator` checks only this substrate makes."""
        return []

    def gpu_node_software(self, cluster: "ResolvedCluster") -> GpuNodeSoftware:
        """What the GPU nodes get from the platform, which decides what the GPU Operator runs."""
        ...

    def preinstalled_driver_branch(self, cluster: "ResolvedCluster", pool: PoolFacts) -> int | None:
        """The driver branch a GPU pool's image ships with `driver: preinstalled` (None: unknown until
        each host's own preflight reads it)."""
        ...

    def newer_driver_setting(self, cluster: "ResolvedCluster") -> str | None:
        """The config change that gives this substrate's GPU nodes a newer driver, for the fixes
        preflight names (None: none beyond `driver: operator`, which preflight weighs itself)."""
        return None

    def pool_zones(self, cluster: "ResolvedCluster", pool: PoolFacts) -> list[str]:
        """The zones a pool's nodes go to, for the plan report: the configured ones by default (empty:
        wherever the cluster's network reaches, the cloud's choice)."""
        return list(pool.zones)

    def charges(self, cluster: "ResolvedCluster") -> list[Charge]:
        """What the cluster costs beyond its pools' machines, per hour."""
        return []

    def findings(self, cluster: "ResolvedCluster") -> list[Finding]:
        """Preflight findings only this substrate has."""
        return []

    def next_steps(self, cluster: "ResolvedCluster") -> list[str]:
        """Substrate-specific lines for the `nextSteps` stack output (after getting the kubeconfig)."""
        return []

    def planned_hosts(self, cluster: "ResolvedCluster") -> list[PlannedHost]:
        """Existing hosts the cluster joins, for the plan report (none where gpukit makes machines)."""
        return []

    def plan_fakes(self, config: Mapping[str, Any]) -> PlanFakes | None:
        """Fake outputs and invoke results for this substrate's cloud resources under `gpukit plan`, set
        up from the stack's provider keys (None: it creates no cloud resources)."""
        ...

    def build(self, name: str, cluster: "ResolvedCluster", parent: "pulumi.Resource") -> "ClusterHandle":
        """Network, control plane and node pools; imports the cloud SDK here and nowhere earlier."""
        ...


@dataclass(frozen=True)
class ResolvedCluster:
    """A cluster after validation: its typed config, its substrate, and each pool's facts, computed once.

    Everything downstream (preflight, costs, the build, the add-ons, the plan report) reads this one
    object, so a run parses, validates and derives pool facts exactly once.
    """

    args: ClusterConfig
    """Validated config; enums are enum members, defaults applied where the schema has them."""
    substrate: Substrate
    pools: tuple[PoolFacts, ...]
    """In config order: pools[i] is gpukit:nodePools[i]."""
    system_namespaces: tuple[str, ...] = ()
    """Where the add-ons the cluster builds run pods on the pools without GPUs, tolerating their taints
    (Addon.system_namespaces): k3s's tainted servers admit pods of these namespaces besides k3s's own
    and the GPU Operator's (components/k3s/host_scripts.py server_policy)."""

    @property
    def spec(self) -> ClusterSpec:
        return self.args["cluster"]

    @property
    def name(self) -> str:
        return self.spec["name"]

    @property
    def operator(self) -> GpuOperatorSpec:
        return self.args["gpu_operator"]

    @property
    def driver(self) -> DriverMode:
        return self.operator["driver"]

    @property
    def cuda_version(self) -> str | None:
        """The newest CUDA the workloads use, where the stack says."""
        return self.args.get("workloads", {}).get("cuda_version")

    @property
    def gpu_pools(self) -> tuple[PoolFacts, ...]:
        return tuple(p for p in self.pools if p.is_gpu)


def declared_variant(substrate: Substrate, addon: str) -> object | None:
    """What `substrate` declares for `addon` in `addon_variants`: its own entry, else its class's, else
    the nearest base class's (None: nothing)."""
    declarations = [
        vars(substrate).get("addon_variants"),
        *(vars(c).get("addon_variants") for c in type(substrate).__mro__),
    ]
    for mapping in declarations:
        if isinstance(mapping, Mapping) and addon in mapping:
            found: object = mapping[addon]
            return found
    return None


_REQUIRED = ("gpu_node_software", "preinstalled_driver_branch", "plan_fakes", "build")


class SubstrateRegistry:
    """(platform, provider) -> substrate; the one place that knows every substrate."""

    def __init__(self, *substrates: Substrate) -> None:
        self._by_key = {(s.platform, s.provider): s for s in substrates}
        if len(self._by_key) != len(substrates):
            raise ValueError("two substrates for one (platform, provider)")
        for substrate in substrates:
            # The protocol's bodiless methods return None when a subclass forgets one: say so here,
            # where a new substrate is registered, rather than deep inside a plan.
            missing = [m for m in _REQUIRED if getattr(type(substrate), m) is getattr(Substrate, m)]
            if missing:
                raise TypeError(f"substrate {substrate.name!r} does not implement {', '.join(missing)}")

    def __iter__(self) -> Iterator[Substrate]:
        return iter(self._by_key.values())

    def get(self, platform: Platform, provider: Provider) -> Substrate | None:
        return self._by_key.get((platform, provider))

    def providers_of(self, platform: Platform) -> list[Provider]:
        """The providers a platform runs on, in registry order."""
        return [provider for p, provider in self._by_key if p == platform]

    def implied_provider(self, platform: Platform) -> Provider | None:
        """The provider a platform implies where it runs on exactly one (eks: aws)."""
        providers = self.providers_of(platform)
        return providers[0] if len(providers) == 1 else None

    def named(self, name: str) -> Substrate:
        return next(s for s in self if s.name == name)


_registry: SubstrateRegistry | None = None


def use_registry(registry: SubstrateRegistry | None) -> SubstrateRegistry | None:
    """Make `registry` the one components look substrates up in; returns the one it replaces."""
    global _registry
    previous, _registry = _registry, registry
    return previous


def registry() -> SubstrateRegistry:
    if _registry is None:
        raise RuntimeError("no substrate registry: import gpukit (gpukit/__init__.py installs it)")
    return _registry


def require_sdk(substrate: Substrate) -> None:
    """Raises MissingExtraError, naming the extra to install, where the substrate's SDK is missing.

    Looks the module up without importing it: building imports it, and nothing before needs to.
    """
    if substrate.sdk is None:
        return
    try:
        found = importlib.util.find_spec(substrate.sdk.module) is not None
    except (ImportError, ValueError):  # ValueError: present in sys.modules without a spec
        found = False
    if not found:
        package = substrate.sdk.module.replace("_", "-")
        raise MissingExtraError(
            f"{substrate.where} needs {package}, which is not installed: "
            f"pip install 'gpukit[{substrate.sdk.extra}]'"
        )

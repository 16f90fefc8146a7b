"""The interconnect add-on: for pools whose machines have a fast fabric (components/catalog/fabrics.py)
and whose substrate sets it up (`Substrate.fabrics`), the fabric's device plugin, and in the plan per
GPU pool what `nodePools[].interconnect` resolved to, what a pod requests and sets to use it, or why
the pool runs on the ordinary network. The machines' side (interfaces, placement, zone, security group)
is the substrate's, built with the pool (EKS: providers/aws/eks/efa_network.py)."""

from typing import Any

from gpukit.components.addons.base import Addon, BuildContext, Built, ValidationScope
from gpukit.components.addons.interconnect.device_plugins import DEVICE_PLUGINS
from gpukit.components.addons.interconnect.nccl_plan import (
    nccl_checks,
    nccl_findings,
    nccl_problems,
    nccl_report_line,
    nccl_timeout_minutes,
)
from gpukit.components.addons.interconnect.nccl_suite import NcclChecks
from gpukit.components.addons.interconnect.variant import INTERCONNECT, FabricUse, interconnect_variant
from gpukit.components.catalog.fabrics import MIN_FAST_EFA_INTERFACES, machine_fabric
from gpukit.components.errors import Problem
from gpukit.components.findings import Finding
from gpukit.components.handle import ClusterHandle
from gpukit.components.pools import PoolFacts, fabric_conflicts
from gpukit.components.spec import Interconnect
from gpukit.components.substrate import ResolvedCluster, Substrate


def ordinary_network_reason(pool: PoolFacts, substrate: Substrate, asked: Interconnect | None) -> str:
    """Why a GPU pool without a fabric runs on the ordinary network."""
    if asked is Interconnect.NONE:
        return "interconnect: none"
    if pool.fabric_skipped is not None:
        return f"auto: {pool.fabric_skipped}"
    if pool.instance.own_host:
        return (
            "gpukit does not set RDMA up for pods on your own hosts yet; `gpukit doctor` reports a "
            "host's RDMA NICs"
        )
    machine = machine_fabric(pool.instance)
    if machine is None:
        return f"{pool.instance.name} has no fast fabric gpukit sets up"
    return f"the machine's {machine.describe()}: gpukit does not set it up on {substrate.title} yet"


def fabric_output(cluster: ResolvedCluster, pool: PoolFacts) -> dict[str, Any] | None:
    """A fabric pool's entry of the `pools` stack output: its fabric, and what a pod per node requests
    and sets to use it (a training job copies these); None on the ordinary network."""
    if pool.fabric is None:
        return None
    use = interconnect_variant(cluster.substrate).use(cluster, pool)
    return {
        "fabric": pool.fabric.kind.value,
        "interfaces": pool.fabric.interfaces,
        "gbps": pool.fabric.gbps,
        "requests": use.requests,
        "annotations": use.annotations,
        "env": use.env,
    }


def pod_side(use: FabricUse) -> str:
    """The plan's line of what a pod per node of a fabric pool asks for and sets."""
    parts = []
    if use.requests:
        parts.append("requests " + ", ".join(f"{k}: {v}" for k, v in use.requests.items()))
    if use.annotations:
        parts.append("carries the annotations " + ", ".join(sorted(use.annotations)))
    if use.env:
        parts.append("sets " + " ".join(f"{k}={v}" for k, v in use.env.items()))
    return "a pod per node " + "; ".join(parts)


def _uses(cluster: ResolvedCluster) -> list[tuple[PoolFacts, FabricUse]]:
    variant = interconnect_variant(cluster.substrate)
    return [(pool, variant.use(cluster, pool)) for pool in cluster.pools if pool.fabric is not None]


class InterconnectAddon(Addon):
    name = INTERCONNECT
    after = ("gpu-operator",)  # the NCCL check's pods need the GPUs advertised

    def problems(self, scope: ValidationScope) -> list[Problem]:
        """`interconnect: auto` asked for where no fabric results, or on a pool that cannot have it as
        configured (components/pools.py fabric_conflicts), then the substrate's own checks."""
        if scope.substrate is None or scope.pools is None or not scope.pools_ok:
            return []
        problems: list[Problem] = []
        for i, (spec, pool) in enumerate(zip(scope.args["node_pools"], scope.pools, strict=True)):
            if spec.get("interconnect") is not Interconnect.AUTO:
                continue
            key = f"gpukit:nodePools[{i}]"
            problems += [
                Problem(
                    f"{key}.{conflict.key}",
                    f"`interconnect: auto` asks for the machine's fabric, and {conflict.why}: use one zone "
                    "and alternatives with the same fabric, or set `interconnect: none` (or leave it out) "
                    "to run the pool on the ordinary network",
                )
                for conflict in fabric_conflicts(pool)
            ]
            if pool.fabric is not None:
                continue
            why = (
                "the pool has no GPUs"
                if not pool.is_gpu
                else ordinary_network_reason(pool, scope.substrate, Interconnect.AUTO)
            )
            problems.append(
                Problem(
                    f"{key}.interconnect",
                    f"`auto` asks for the machine's fast fabric, and none results here: {why} (EKS sets up "
                    f"EFA on types with {MIN_FAST_EFA_INTERFACES} or more EFA interfaces, GKE the GPU NICs "
                    "of a3-highgpu-8g, a3-megagpu-8g, a3-ultragpu-8g and a4-highgpu-8g); leave the key "
                    "out or set `none`",
                )
            )
        problems += nccl_problems(scope.args, scope.pools)
        return problems + interconnect_variant(scope.substrate).problems(scope)

    def wanted(self, cluster: ResolvedCluster) -> bool:
        return any(pool.fabric is not None for pool in cluster.pools)

    def findings(self, cluster: ResolvedCluster) -> list[Finding]:
        return interconnect_variant(cluster.substrate).findings(cluster) + nccl_findings(cluster)

    def report(self, cluster: ResolvedCluster, handle: ClusterHandle) -> list[str]:
        gpu_pools = list(cluster.gpu_pools)
        if not gpu_pools:
            return []
        uses = {pool.name: use for pool, use in _uses(cluster)}
        asked = {p["name"]: p.get("interconnect") for p in cluster.args["node_pools"]}
        out = ["", "Interconnect (between GPU nodes):"]
        for pool in gpu_pools:
            use = uses.get(pool.name)
            if pool.fabric is None or use is None:
                reason = ordinary_network_reason(pool, cluster.substrate, asked.get(pool.name))
                out.append(f"  {pool.name}: the ordinary network ({reason})")
                continue
            out.append(f"  {pool.name}: auto -> {pool.fabric.describe()}; {use.placement}")
            out.append(f"    {pod_side(use)}")
            out += [f"    {note}" for note in use.notes]
            check = nccl_report_line(cluster, pool)
            if check is not None:
                out.append(f"    {check}")
            if pool.sharing.shares:
                out.append(
                    f"    its GPUs are shared (sharing: {pool.sharing.mode.value}): NCCL across nodes wants "
                    "whole GPUs per pod; drop `sharing` for multi-node training on this pool"
                )
        return out

    def document(self, cluster: ResolvedCluster, handle: ClusterHandle) -> dict[str, Any]:
        found = {pool.name: fabric_output(cluster, pool) for pool in cluster.pools if pool.fabric is not None}
        return {"interconnect": found} if found else {}

    def checks(self, cluster: ResolvedCluster, timeout_minutes: int | None = None) -> NcclChecks | None:
        """The NCCL check, where the stack asks for it (`verification.nccl`) and a pool can have it."""
        checks = nccl_checks(cluster)
        if not checks:
            return None
        return NcclChecks(tuple(checks), timeout_minutes or nccl_timeout_minutes(cluster))

    def pool_output(self, cluster: ResolvedCluster, pool: PoolFacts) -> dict[str, Any]:
        return {"interconnect": fabric_output(cluster, pool)}

    def build(self, ctx: BuildContext) -> Built:
        # Lazy: the component imports pulumi_kubernetes, which only building needs.
        from gpukit.components.addons.interconnect.component import FabricDevicePlugin

        kinds = sorted(
            {p.fabric.kind for p in ctx.cluster.pools if p.fabric is not None}, key=lambda k: k.value
        )
        plugins: list[Any] = []
        for kind in kinds:
            chart = DEVICE_PLUGINS.get(kind)
            if chart is None:
                # GKE's GPU NICs need none: pods attach them through multi-network annotations
                # (providers/gcp/gke/gpu_networks.py).
                continue
            plugin = FabricDevicePlugin(
                f"{ctx.name}-{kind.value}-device-plugin",
                {"chart": chart, "pools": ctx.cluster.pools},
                # The plugin needs no GPU software: only the cluster's system pools, as the substrate's
                # own in-cluster software does.
                opts=ctx.in_cluster(list(ctx.handle.system_ready)),
            )
            plugins.append(plugin)
        checks = nccl_checks(ctx.cluster)
        if checks:
            from gpukit.components.addons.interconnect.nccl_component import NcclCheck

            NcclCheck(
                f"{ctx.name}-nccl",
                {"checks": checks, "timeout_minutes": nccl_timeout_minutes(ctx.cluster)},
                # After the GPU stack and the fabric's plugin: its pods request both.
                opts=ctx.in_cluster([*ctx.ready(), *plugins]),
            )
        return Built()


INTERCONNECT_ADDON = InterconnectAddon()

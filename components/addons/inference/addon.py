"""The inference add-on: with `gpukit:inference`, the substrate's metrics store collecting the GPU
metrics (per pod) and the workloads' own, KEDA scaling Deployments on its queries, and one Gateway
(Gateway API) that model servers' routes attach to (variant.py says which store and which gateway each
substrate uses)."""

from typing import TYPE_CHECKING, Any

from gpukit.components.addons.base import Addon, BuildContext, Built, Unpriced, ValidationScope
from gpukit.components.addons.inference.check_objects import VERIFICATION_ADDON, CheckPlan, inference_check
from gpukit.components.addons.inference.check_plan import check_plan
from gpukit.components.addons.inference.check_suite import InferenceChecks
from gpukit.components.addons.inference.findings import inference_findings
from gpukit.components.addons.inference.gateway_names import ENVOY_GATEWAY_NAMESPACE
from gpukit.components.addons.inference.names import KEDA_NAMESPACE, MONITORING_NAMESPACE
from gpukit.components.addons.inference.report import document, report_lines
from gpukit.components.addons.inference.settings import inference_settings
from gpukit.components.addons.inference.sizing import ingestion_usd_per_hour, managed_series_at
from gpukit.components.addons.inference.validate import inference_problems
from gpukit.components.addons.inference.values import gpu_operator_asks
from gpukit.components.addons.inference.variant import INFERENCE
from gpukit.components.errors import Problem
from gpukit.components.findings import Finding
from gpukit.components.handle import ClusterHandle
from gpukit.components.pricing import HOURS_PER_MONTH, Charge
from gpukit.components.substrate import ResolvedCluster

if TYPE_CHECKING:
    from gpukit.components.addons.inference.component import InferenceServing


class InferenceAddon(Addon):
    name = INFERENCE
    section = "inference"
    after = ("gpu-operator",)  # the DCGM monitor scrapes the Operator's exporter

    def asks(self, cluster: ResolvedCluster) -> dict[str, dict[str, Any]]:
        return {"gpu-operator": gpu_operator_asks()} if inference_settings(cluster).in_cluster_store else {}

    def system_namespaces(self, cluster: ResolvedCluster) -> tuple[str, ...]:
        settings = inference_settings(cluster)
        found = [MONITORING_NAMESPACE] if settings.in_cluster_store else []
        found += [KEDA_NAMESPACE] if settings.autoscaling else []
        found += [ENVOY_GATEWAY_NAMESPACE] if settings.gateway and settings.variant.runs_envoy_gateway else []
        return tuple(found)

    def problems(self, scope: ValidationScope) -> list[Problem]:
        return inference_problems(scope)

    def wanted(self, cluster: ResolvedCluster) -> bool:
        settings = inference_settings(cluster)
        return settings.metrics or settings.autoscaling or settings.gateway

    def findings(self, cluster: ResolvedCluster) -> list[Finding]:
        return inference_findings(cluster, inference_settings(cluster))

    def charges(self, cluster: ResolvedCluster) -> list[Charge]:
        settings = inference_settings(cluster)
        gateway = (
            settings.variant.gateway_charge(cluster, settings.gateway_cidrs) if settings.gateway else None
        )
        return [*self._store_charges(cluster), *([gateway] if gateway else [])]

    def _store_charges(self, cluster: ResolvedCluster) -> list[Charge]:
        settings = inference_settings(cluster)
        variant = settings.variant
        if settings.metrics and variant.managed_store and variant.usd_per_million_samples is not None:
            idle, peak = (
                ingestion_usd_per_hour(
                    managed_series_at(cluster.pools, at_max), variant.usd_per_million_samples
                )
                for at_max in (False, True)
            )
            return [Charge("managed metrics ingestion (DCGM)", idle, peak)] if peak > 0 else []
        if not settings.in_cluster_store:
            return []
        rate = variant.volume_price(cluster).usd_per_gb_month
        if rate is None:
            return []
        hourly = settings.size.volume_gib * rate / HOURS_PER_MONTH
        return [Charge(f"metrics volume ({settings.size.volume_gib} GiB)", hourly, hourly)]

    def unpriced(self, cluster: ResolvedCluster) -> Unpriced | None:
        settings = inference_settings(cluster)
        variant = settings.variant
        if settings.metrics and variant.managed_store and variant.usd_per_million_samples is None:
            return Unpriced(
                "metrics ingestion",
                (variant.store,),
                "it bills per sample ingested and gpukit has no sourced list price",
                "no managed metrics (inference.metrics.enabled: false)",
            )
        price = variant.volume_price(cluster)
        if settings.in_cluster_store and price.billed and price.usd_per_gb_month is None:
            return Unpriced(
                "metrics volume",
                (f"{settings.size.volume_gib} GiB",),
                price.note,
                "a region with a sourced volume price",
            )
        return None

    def checks(self, cluster: ResolvedCluster, timeout_minutes: int | None = None) -> InferenceChecks | None:
        """The inference check, where the stack has what it checks (whether or not `pulumi up` runs it)."""
        plan = check_plan(cluster, at_up=False) if self.wanted(cluster) else None
        return InferenceChecks.of(plan, timeout_minutes) if plan is not None else None

    def report(self, cluster: ResolvedCluster, handle: ClusterHandle) -> list[str]:
        return report_lines(cluster, inference_settings(cluster)) if self.wanted(cluster) else []

    def document(self, cluster: ResolvedCluster, handle: ClusterHandle) -> dict[str, Any]:
        return document(cluster, inference_settings(cluster)) if self.wanted(cluster) else {}

    def build(self, ctx: BuildContext) -> Built:
        # Lazy: the component imports pulumi_kubernetes, which only building needs.
        from gpukit.components.addons.inference.component import InferenceServing, inference_args

        settings = inference_settings(ctx.cluster)
        access = settings.variant.build_access(ctx) if settings.autoscaling else None
        # The store's pod claims a volume of the default class: the release comes after the class exists.
        storage = ctx.handle.default_storage if settings.in_cluster_store else []
        waits = [*ctx.ready(), *storage, *(access.waits if access else ())]
        serving = InferenceServing(
            f"{ctx.name}-inference",
            inference_args(ctx.cluster, access.keda_values if access else None),
            opts=ctx.in_cluster(waits),
        )
        plan = check_plan(ctx.cluster)
        if plan is not None:
            self._build_check(ctx, plan, serving)
        return Built(ready=(serving,))

    def _build_check(self, ctx: BuildContext, plan: CheckPlan, serving: "InferenceServing") -> None:
        """After the serving stack and the GPU verification (the check is the last thing `pulumi up`
        proves; its holder then finds a node of the pool already up)."""
        from gpukit.components.addons.inference.check_component import (
            InferenceVerification,
            InferenceVerificationArgs,
        )

        check = inference_check(plan)
        args: InferenceVerificationArgs = {
            "namespace": check.namespace,
            "fixtures": check.fixtures,
            "jobs": check.jobs,
            "timeout_minutes": plan.timeout_minutes,
        }
        if plan.gateway and not plan.gateway.host and serving.gateway_status is not None:
            args["gateway_status"] = serving.gateway_status
        gpu_checks = ctx.built.get(VERIFICATION_ADDON)
        InferenceVerification(
            f"{ctx.name}-inference-check",
            args,
            opts=ctx.in_cluster([serving, *(gpu_checks.ready if gpu_checks else ())]),
        )


INFERENCE_ADDON = InferenceAddon()

"""FabricDevicePlugin: the device plugin of one fabric kind on a cluster's API (device_plugins.py says
which chart and why these values)."""

from collections.abc import Sequence
from typing import Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from gpukit.components.addons.interconnect.device_plugins import DevicePluginChart, device_plugin_values
from gpukit.components.pools import PoolFacts

TYPE_TOKEN = "gpukit:index:FabricDevicePlugin"


class FabricDevicePluginArgs(TypedDict):
    chart: DevicePluginChart
    pools: Sequence[PoolFacts]
    """Every pool of the cluster (Python-only): the plugin runs on those with a fabric of its kind."""


class FabricDevicePlugin(pulumi.ComponentResource):
    """Needs `opts.providers` with the cluster's kubernetes provider."""

    release_name: pulumi.Output[Optional[str]]

    def __init__(
        self, name: str, args: FabricDevicePluginArgs, opts: Optional[pulumi.ResourceOptions] = None
    ):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        chart = args["chart"]
        release = k8s.helm.v3.Release(
            f"{name}-release",
            name=chart.release,
            chart=chart.chart,
            version=chart.version,
            repository_opts={"repo": chart.repository},
            namespace=chart.namespace,
            values=device_plugin_values(chart.kind, args["pools"]),
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.release_name = release.name
        self.register_outputs({"release_name": self.release_name})

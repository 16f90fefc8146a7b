"""The public components stay usable from other languages: Pulumi's analyzer infers their schema."""

import importlib
import inspect
import pkgutil

import pulumi
import pytest
from pulumi.provider.experimental.component import ComponentProvider

from gpukit import components, providers
from gpukit.components.addons.gpu_operator.component import GpuOperator
from gpukit.components.addons.verification.component import GpuVerification
from gpukit.components.cluster import GpuCluster
from gpukit.components.config.schema import TOP_LEVEL_FIELDS


@pytest.mark.parametrize(
    ("component", "inputs"),
    [
        # Every section of a stack file, as other languages see them (ClusterConfig types each).
        (GpuCluster, {f.key for f in TOP_LEVEL_FIELDS if f.planned is None}),
        (GpuVerification, {"checks", "timeoutMinutes", "fingerprint"}),
        (
            GpuOperator,
            {
                "chartVersion",
                "driverPreinstalled",
                "toolkitPreinstalled",
                "tolerations",
                "nodeSoftwareSummary",
                "toolkitEnv",
                "priorityClassPods",
                "controllerTolerations",
                "sharing",
                "extraValues",
            },
        ),
    ],
)
def test_schema_is_inferred_for_public_components(component: type, inputs: set[str]) -> None:
    provider = ComponentProvider([component], "gpukit")
    definition = provider._component_defs[component.__name__]  # the analyzer has no public accessor
    assert set(definition.inputs) == inputs


def _component_classes() -> list[type[pulumi.ComponentResource]]:
    found = []
    for package in (components, providers):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            module = importlib.import_module(info.name)
            found += [
                cls
                for _, cls in inspect.getmembers(module, inspect.isclass)
                if issubclass(cls, pulumi.ComponentResource) and cls.__module__ == module.__name__
            ]
    return found


def test_every_component_uses_a_gpukit_index_type_token_named_after_it() -> None:
    classes = _component_classes()
    assert len(classes) >= 12
    for cls in classes:
        module = importlib.import_module(cls.__module__)
        assert f"gpukit:index:{cls.__name__}" == module.TYPE_TOKEN, cls

"""GPU sharing: the device-plugin ConfigMap, the Operator values that use it, and what shared nodes offer,
against golden files, the device plugin's documented config shape and the chart's values and CRD."""

from typing import Any

import yaml

from gpukit.components.addons.gpu_operator.values import gpu_operator_values
from gpukit.components.node_software import GpuNodeSoftware
from gpukit.components.pools import GPU_TAINT
from gpukit.components.sharing import (
    DEVICE_PLUGIN_CONFIG_LABEL,
    MIG_CONFIG_LABEL,
    NO_SHARING,
    PoolSharing,
    config_map_name,
    device_plugin_config,
    sharing_labels,
)
from gpukit.components.spec import MigStrategy, SharingMode
from harness import GPU_OPERATOR_REFERENCE, chart_has, key_paths

EKS_SOFTWARE = GpuNodeSoftware(driver_preinstalled=True, toolkit_preinstalled=True, summary="EKS")
TS4 = PoolSharing(SharingMode.TIME_SLICING, replicas=4)
MPS2 = PoolSharing(SharingMode.MPS, replicas=2)
MIG_MIXED = PoolSharing(
    SharingMode.MIG, mig_profile="1g.10gb", mig_strategy=MigStrategy.MIXED, mig_devices=(("1g.10gb", 7),)
)
LAYOUT = PoolSharing(
    SharingMode.MIG, mig_strategy=MigStrategy.MIXED, mig_devices=(("1g.10gb", 4), ("3g.40gb", 1))
)
CRD = yaml.safe_load((GPU_OPERATOR_REFERENCE / "nvidia.com_clusterpolicies.yaml").read_text())
CRD_SPEC = CRD["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]


def _values(*sharing: PoolSharing) -> dict[str, Any]:
    return gpu_operator_values(EKS_SOFTWARE, [GPU_TAINT.toleration()], sharing=list(sharing))


def test_device_plugin_config_golden(golden) -> None:  # type: ignore[no-untyped-def]
    data = device_plugin_config([TS4, MPS2, TS4, NO_SHARING, MIG_MIXED])
    golden("device-plugin-config.txt", "".join(f"# entry {name}\n{text}" for name, text in data.items()))


def test_one_entry_per_distinct_setting_plus_the_whole_gpu_default() -> None:
    data = device_plugin_config([TS4, TS4, MPS2])
    assert sorted(data) == ["mps-2", "none", "time-slicing-4"]


def test_entries_have_the_device_plugins_documented_shape() -> None:
    data = device_plugin_config([TS4, MPS2])
    ts = yaml.safe_load(data["time-slicing-4"])
    assert ts["version"] == "v1"
    assert ts["flags"] == {"migStrategy": "none"}
    assert ts["sharing"]["timeSlicing"]["resources"] == [{"name": "nvidia.com/gpu", "replicas": 4}]
    assert ts["sharing"]["timeSlicing"]["renameByDefault"] is False
    mps = yaml.safe_load(data["mps-2"])
    assert mps["sharing"] == {
        "mps": {"renameByDefault": False, "resources": [{"name": "nvidia.com/gpu", "replicas": 2}]}
    }
    assert "sharing" not in yaml.safe_load(data["none"])


def test_config_map_name_follows_its_content() -> None:
    same = config_map_name(device_plugin_config([TS4, MPS2]))
    assert same == config_map_name(device_plugin_config([MPS2, TS4]))
    changed = config_map_name(device_plugin_config([PoolSharing(SharingMode.TIME_SLICING, replicas=8), MPS2]))
    assert changed != same
    assert same.startswith("gpukit-device-plugin-") and len(same) <= 63


def test_no_sharing_leaves_the_operator_values_unchanged() -> None:
    assert _values(NO_SHARING) == _values()
    assert "devicePlugin" not in _values()


def test_operator_values_point_the_device_plugin_at_the_config() -> None:
    values = _values(TS4, NO_SHARING)
    config = values["devicePlugin"]["config"]
    assert config["create"] is True
    assert config["default"] == "none"
    assert config["name"] == config_map_name(config["data"])
    assert set(config["data"]) == {"none", "time-slicing-4"}
    assert "mig" not in values and "migManager" not in values


def test_mig_sets_the_cluster_strategy_and_lets_the_mig_manager_reboot() -> None:
    values = _values(MIG_MIXED, TS4)
    assert values["mig"] == {"strategy": "mixed"}
    assert values["migManager"] == {"env": [{"name": "WITH_REBOOT", "value": "true"}]}
    for entry in values["devicePlugin"]["config"]["data"].values():
        assert yaml.safe_load(entry)["flags"] == {"migStrategy": "mixed"}


def test_every_sharing_value_key_exists_in_the_chart_and_the_cluster_policy() -> None:
    values = _values(MIG_MIXED, TS4, MPS2)
    paths = key_paths(values)
    assert "devicePlugin.config.data" in paths  # a free-form map of entries: its keys are ours
    missing = [p for p in paths if not chart_has(p)]
    assert missing == []
    crd_config = CRD_SPEC["devicePlugin"]["properties"]["config"]["properties"]
    assert {"name", "default"} <= set(crd_config)
    assert values["mig"]["strategy"] in CRD_SPEC["mig"]["properties"]["strategy"]["enum"]
    assert "env" in CRD_SPEC["migManager"]["properties"]


def test_labels_pick_the_entry_and_the_mig_config() -> None:
    assert sharing_labels(TS4) == {DEVICE_PLUGIN_CONFIG_LABEL: "time-slicing-4"}
    assert sharing_labels(MIG_MIXED) == {DEVICE_PLUGIN_CONFIG_LABEL: "none", MIG_CONFIG_LABEL: "all-1g.10gb"}


def test_mig_resources_per_strategy() -> None:
    assert MIG_MIXED.mig_resources(8) == {"nvidia.com/mig-1g.10gb": 56}
    single = PoolSharing(
        SharingMode.MIG, mig_profile="3g.40gb", mig_strategy=MigStrategy.SINGLE, mig_devices=(("3g.40gb", 2),)
    )
    assert single.mig_resources(8) == {"nvidia.com/gpu": 16}
    assert LAYOUT.mig_resources(2) == {"nvidia.com/mig-1g.10gb": 8, "nvidia.com/mig-3g.40gb": 2}


def test_a_custom_layout_gets_its_own_mig_parted_config_named_by_its_content(golden) -> None:  # type: ignore[no-untyped-def]
    assert LAYOUT.mig_config == "gpukit-4x1g.10gb-1x3g.40gb"
    assert sharing_labels(LAYOUT)[MIG_CONFIG_LABEL] == "gpukit-4x1g.10gb-1x3g.40gb"
    values = _values(LAYOUT, MIG_MIXED)
    config = values["migManager"]["config"]
    assert config["create"] is True and config["default"] == "all-disabled"
    assert config["name"] == config_map_name(config["data"], "gpukit-mig-parted-")
    parted = yaml.safe_load(config["data"]["config.yaml"])
    assert parted["version"] == "v1"
    assert parted["mig-configs"]["gpukit-4x1g.10gb-1x3g.40gb"] == [
        {"devices": "all", "mig-enabled": True, "mig-devices": {"1g.10gb": 4, "3g.40gb": 1}}
    ]
    # The custom config replaces the MIG manager's own: stock configs in use come along.
    assert parted["mig-configs"]["all-1g.10gb"][0]["mig-devices"] == {"1g.10gb": 7}
    assert parted["mig-configs"]["all-disabled"] == [{"devices": "all", "mig-enabled": False}]
    assert "config" not in _values(MIG_MIXED)["migManager"]  # stock only: the MIG manager's own configs
    golden("mig-parted-config.yaml", config["data"]["config.yaml"])


def _mig_cluster(profile: str = "1g.10gb", strategy: str = "single") -> Any:
    from gpukit.components.resolve.config import resolve_config
    from harness import eks_config

    config = eks_config()
    config["gpukit:nodePools"][1].update(
        instanceType="p5.48xlarge", sharing={"mode": "mig", "mig": {"profile": profile, "strategy": strategy}}
    )
    return resolve_config(config)


def test_plan_warns_that_changing_a_mig_pool_reconfigures_its_nodes() -> None:
    from gpukit.components.preflight import Severity, preflight

    found = [f for f in preflight(_mig_cluster()) if f.key == "gpukit:nodePools[1].sharing.mig"]
    assert len(found) == 1 and found[0].severity is Severity.WARNING
    assert "may reboot" in found[0].message and "(all-1g.10gb)" in found[0].message


def test_mig_nodes_advertise_the_stock_layouts_instances() -> None:
    single = _mig_cluster("1g.10gb", "single").pools[1]
    assert single.advertised_resources == {"nvidia.com/gpu": 56}  # 8 H100 x 7 instances of 1g.10gb
    assert single.memory_gb_per_unit == {"nvidia.com/gpu": 10.0}
    mixed = _mig_cluster("2g.20gb", "mixed").pools[1]
    assert mixed.advertised_resources == {"nvidia.com/mig-2g.20gb": 24}  # 8 x 3
    assert mixed.memory_gb_per_unit == {"nvidia.com/mig-2g.20gb": 20.0}

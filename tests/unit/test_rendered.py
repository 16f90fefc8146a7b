"""Everything gpukit renders, against golden files and the charts' own value schemas."""

import yaml

from gpukit.components.addons.gpu_operator.values import gpu_operator_values
from gpukit.components.node_software import GpuNodeSoftware
from gpukit.components.pools import GPU_TAINT
from gpukit.components.spec import NodeImage, Provider
from gpukit.providers.aws.eks.autoscaler_values import cluster_autoscaler_values
from gpukit.providers.aws.eks.kubeconfig import eks_kubeconfig
from gpukit.providers.aws.eks.software import eks_gpu_node_software
from harness import CHART_VALUES, chart_has, key_paths, pool_facts

EKS_SOFTWARE = GpuNodeSoftware(driver_preinstalled=True, toolkit_preinstalled=True, summary="EKS")


def test_every_gpu_operator_value_key_exists_in_the_v26_7_0_chart() -> None:
    for software in (EKS_SOFTWARE, GpuNodeSoftware(False, False, "plain image")):
        values = gpu_operator_values(software, [GPU_TAINT.toleration()])
        paths = key_paths(values)
        assert paths  # the walk found keys to check
        missing = [p for p in paths if not chart_has(p)]
        assert missing == [], f"keys not in gpu-operator v26.7.0 values.yaml: {missing}"


def test_key_check_catches_a_misspelt_key() -> None:
    assert not chart_has("devicePlugin.enable")
    assert not chart_has("toolkit.enabled.extra")
    assert chart_has("devicePlugin.enabled")


def test_eks_images_ship_driver_and_toolkit_so_the_operator_installs_neither() -> None:
    values = gpu_operator_values(EKS_SOFTWARE, [GPU_TAINT.toleration()])
    assert values["driver"] == {"enabled": False}
    assert values["toolkit"] == {"enabled": False}


def test_nfd_keeps_the_charts_control_plane_toleration_when_gpukit_adds_its_own() -> None:
    default = CHART_VALUES["node-feature-discovery"]["worker"]["tolerations"]
    values = gpu_operator_values(EKS_SOFTWARE, [GPU_TAINT.toleration()])
    ours = values["node-feature-discovery"]["worker"]["tolerations"]
    assert default[0] in ours
    assert GPU_TAINT.toleration() in ours


def test_gpu_operator_values_golden(golden) -> None:  # type: ignore[no-untyped-def]
    values = gpu_operator_values(EKS_SOFTWARE, [GPU_TAINT.toleration()])
    golden("gpu-operator-values-eks.yaml", yaml.safe_dump(values, sort_keys=True))


def test_gpu_node_software_names_each_eks_image() -> None:
    pools = [
        pool_facts({"name": "a", "instance_type": "g6.xlarge", "min_nodes": 0, "max_nodes": 1}, Provider.AWS),
        pool_facts(
            {
                "name": "b",
                "instance_type": "g6.xlarge",
                "min_nodes": 0,
                "max_nodes": 1,
                "node_image": NodeImage.BOTTLEROCKET,
            },
            Provider.AWS,
        ),
    ]
    software = eks_gpu_node_software(pools)
    assert software.driver_preinstalled and software.toolkit_preinstalled
    assert "al2023/bottlerocket" in software.summary
    assert "R580" in software.summary


def test_cluster_autoscaler_values_golden(golden) -> None:  # type: ignore[no-untyped-def]
    values = cluster_autoscaler_values("eks-dev", "us-west-2", "1.35")
    golden("cluster-autoscaler-values-eks.yaml", yaml.safe_dump(values, sort_keys=True))


def test_kubeconfig_golden_and_shape(golden) -> None:  # type: ignore[no-untyped-def]
    text = eks_kubeconfig(
        "eks-dev", "https://ABC.gr7.us-west-2.eks.amazonaws.com", "Q0EtREFUQQ==", "us-west-2"
    )
    golden("kubeconfig-eks.yaml", text)
    doc = yaml.safe_load(text)
    user = doc["users"][0]["user"]
    assert "token" not in user and "client-key-data" not in user  # no static credentials
    assert user["exec"]["command"] == "aws"
    assert user["exec"]["args"][:2] == ["eks", "get-token"]
    assert doc["clusters"][0]["cluster"]["server"].startswith("https://")

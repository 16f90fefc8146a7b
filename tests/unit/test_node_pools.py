"""Pool facts: labels, taints, disk defaults, tolerations and the autoscaler's scale-from-zero tags."""

from gpukit.components.pools import GPU_TAINT, tolerations_for
from gpukit.components.spec import Capacity, Interconnect, NodeImage, Provider
from gpukit.providers.aws.autoscaling import autoscaler_node_template_tags
from gpukit.providers.aws.eks.labels import pool_labels
from harness import pool_facts

PREFIX = "k8s.io/cluster-autoscaler/node-template"


def _pool(name: str, instance_type: str, **extra):
    return pool_facts(
        {"name": name, "instance_type": instance_type, "min_nodes": 0, "max_nodes": 4, **extra}, Provider.AWS
    )


def test_gpu_pool_labels_and_taint():
    pool = _pool("l4", "g6.xlarge")
    assert pool.labels == {
        "gpukit.dev/pool": "l4",
        "gpukit.dev/gpu-model": "L4",
        "nvidia.com/gpu.present": "true",
        "k8s.amazonaws.com/accelerator": "nvidia-l4",  # the Cluster Autoscaler's GPU label on AWS
    }
    assert [(t.key, t.value, t.effect) for t in pool.taints] == [("nvidia.com/gpu", "true", "NoSchedule")]
    assert pool.is_gpu


def test_cpu_pool_has_only_the_pool_label_and_no_taint():
    pool = _pool("system", "m7i.large")
    assert pool.labels == {"gpukit.dev/pool": "system"}
    assert pool.taints == ()
    assert not pool.is_gpu


def test_default_disk_sizes():
    assert _pool("l4", "g6.xlarge").disk_size_gb == 100
    assert _pool("system", "m7i.large").disk_size_gb == 50


def test_explicit_disk_size_wins():
    assert _pool("l4", "g6.xlarge", disk_size_gb=500).disk_size_gb == 500
    assert _pool("system", "m7i.large", disk_size_gb=30).disk_size_gb == 30


def test_defaults_for_capacity_and_image():
    pool = _pool("l4", "g6.xlarge")
    assert pool.capacity == Capacity.ON_DEMAND
    assert pool.node_image == NodeImage.AL2023
    spot = _pool("l4", "g6.xlarge", capacity=Capacity.SPOT, node_image=NodeImage.BOTTLEROCKET)
    assert spot.capacity == Capacity.SPOT
    assert spot.node_image == NodeImage.BOTTLEROCKET


def test_gpu_counts_and_memory():
    pool = _pool("h100", "p5.48xlarge")
    assert pool.gpus_per_node == 8
    assert pool.gpus_at_max == 32
    assert pool.gpu_memory_gb_per_node == 640
    assert _pool("system", "m7i.large").gpu_memory_gb_per_node == 0


def test_tolerations_dedupe_to_one_gpu_toleration():
    pools = [_pool("system", "m7i.large"), _pool("l4", "g6.xlarge"), _pool("h100", "p5.48xlarge")]
    assert tolerations_for(pools) == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def test_no_tolerations_for_cpu_pools():
    assert tolerations_for([_pool("system", "m7i.large")]) == []


def test_gpu_toleration_matches_the_taint():
    toleration = GPU_TAINT.toleration()
    assert toleration["key"] == GPU_TAINT.key
    assert toleration["effect"] == GPU_TAINT.effect
    assert toleration["operator"] == "Exists"


def test_autoscaler_tags_for_an_eight_gpu_efa_pool():
    """A p5 pool gets EFA (interconnect auto): its template node carries the fabric label the EFA device
    plugin selects on, the 32 EFA devices and the huge pages an AL2023 EFA node pre-allocates, so a
    pending pod asking for them scales the pool from zero."""
    pool = _pool("h100", "p5.48xlarge", zones=["usw2-az3"])
    tags = autoscaler_node_template_tags(pool.labels, pool)
    assert tags == {
        f"{PREFIX}/label/gpukit.dev/pool": "h100",
        f"{PREFIX}/label/gpukit.dev/gpu-model": "H100",
        f"{PREFIX}/label/gpukit.dev/fabric": "efa",
        f"{PREFIX}/label/nvidia.com/gpu.present": "true",
        f"{PREFIX}/label/k8s.amazonaws.com/accelerator": "nvidia-h100",
        f"{PREFIX}/taint/nvidia.com/gpu": "true:NoSchedule",
        f"{PREFIX}/resources/nvidia.com/gpu": "8",
        f"{PREFIX}/resources/vpc.amazonaws.com/efa": "32",
        f"{PREFIX}/resources/hugepages-2Mi": "10256Mi",
    }


def test_autoscaler_tags_for_an_eight_gpu_pool_without_a_fabric():
    pool = _pool("h100", "p5.48xlarge", interconnect=Interconnect.NONE)
    tags = autoscaler_node_template_tags(pool.labels, pool)
    assert not [k for k in tags if "efa" in k or "fabric" in k or "hugepages" in k]
    assert tags[f"{PREFIX}/resources/nvidia.com/gpu"] == "8"


def test_autoscaler_tags_use_the_labels_passed_in():
    pool = _pool("l4", "g6.xlarge", node_image=NodeImage.BOTTLEROCKET)
    tags = autoscaler_node_template_tags(pool_labels(pool), pool)
    assert tags[f"{PREFIX}/label/nvidia.com/gpu.deploy.device-plugin"] == "false"
    assert tags[f"{PREFIX}/resources/nvidia.com/gpu"] == "1"


def test_autoscaler_tags_for_a_cpu_pool_have_no_taint_or_resources():
    pool = _pool("system", "m7i.large")
    tags = autoscaler_node_template_tags(pool.labels, pool)
    assert tags == {f"{PREFIX}/label/gpukit.dev/pool": "system"}


def test_bottlerocket_gpu_pool_turns_off_the_operator_device_plugin():
    pool = _pool("l4", "g6.xlarge", node_image=NodeImage.BOTTLEROCKET)
    labels = pool_labels(pool)
    assert labels["nvidia.com/gpu.deploy.device-plugin"] == "false"
    assert {k: v for k, v in labels.items() if k in pool.labels} == pool.labels
    assert len(labels) == len(pool.labels) + 1


def test_al2023_gpu_pool_keeps_the_operator_device_plugin():
    pool = _pool("l4", "g6.xlarge", node_image=NodeImage.AL2023)
    assert pool_labels(pool) == pool.labels
    assert "nvidia.com/gpu.deploy.device-plugin" not in pool_labels(pool)


def test_bottlerocket_cpu_pool_gets_no_device_plugin_label():
    pool = _pool("system", "m7i.large", node_image=NodeImage.BOTTLEROCKET)
    assert pool_labels(pool) == {"gpukit.dev/pool": "system"}


def test_pool_labels_does_not_mutate_the_pool():
    pool = _pool("l4", "g6.xlarge", node_image=NodeImage.BOTTLEROCKET)
    pool_labels(pool)
    assert "nvidia.com/gpu.deploy.device-plugin" not in pool.labels

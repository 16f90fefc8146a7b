"""The GPU, instance-type and EKS image catalogs: the facts plans and preflight are built on."""

import pytest
import yaml

from gpukit.components.catalog.gpus import GPU_MODELS, Architecture, UnknownGpuModelError, gpu_model
from gpukit.components.catalog.instances import CpuArch, UnknownInstanceTypeError
from gpukit.components.spec import NodeImage
from gpukit.providers.aws.catalog import AWS_CATALOG, AWS_INSTANCE_TYPES
from gpukit.providers.aws.eks.images import EKS_IMAGES, eks_image
from harness import GPU_OPERATOR_REFERENCE

MIG_CONFIG = GPU_OPERATOR_REFERENCE / "mig-parted-default-config.yaml"

GPU_INSTANCES = [t for t in AWS_INSTANCE_TYPES.values() if t.has_gpu]
CPU_INSTANCES = [t for t in AWS_INSTANCE_TYPES.values() if not t.has_gpu]


def _operator_mig_profiles() -> set[str]:
    """Every MIG device profile named in the GPU Operator's default mig-parted config."""
    configmap = yaml.safe_load(MIG_CONFIG.read_text())
    config = yaml.safe_load(configmap["data"]["config.yaml"])
    profiles: set[str] = set()
    for entries in config["mig-configs"].values():
        for entry in entries:
            profiles.update(entry.get("mig-devices") or {})
    return profiles


# --- instance types


def test_g6_xlarge_is_one_l4_with_24_gb_at_list_price():
    g6 = AWS_CATALOG.machine("g6.xlarge")
    assert g6.gpu_model == "L4"
    assert g6.gpu_count == 1
    assert g6.gpu is not None
    assert g6.gpu.memory_gb == 24
    assert g6.price_per_hour == pytest.approx(0.8048)
    assert g6.has_gpu
    assert g6.family == "g6"


def test_p5_48xlarge_is_eight_h100_with_32_efa_interfaces():
    p5 = AWS_CATALOG.machine("p5.48xlarge")
    assert p5.gpu_model == "H100"
    assert p5.gpu_count == 8
    assert p5.efa_interfaces == 32
    assert p5.gpu is not None
    assert p5.gpu.architecture == Architecture.HOPPER


def test_p5e_48xlarge_has_no_published_price():
    p5e = AWS_CATALOG.machine("p5e.48xlarge")
    assert p5e.price_per_hour is None
    assert p5e.gpu_model == "H200"
    assert p5e.gpu_count == 8


def test_p4de_is_a100_80gb_and_p4d_is_a100_40gb():
    p4de = AWS_CATALOG.machine("p4de.24xlarge")
    p4d = AWS_CATALOG.machine("p4d.24xlarge")
    assert p4de.gpu_model == "A100-80GB"
    assert p4de.gpu is not None
    assert p4de.gpu.memory_gb == 80
    assert p4d.gpu_model == "A100-40GB"
    assert p4d.gpu is not None
    assert p4d.gpu.memory_gb == 40


def test_p5_4xlarge_has_one_h100_at_an_eighth_of_the_48xlarge_price():
    small = AWS_CATALOG.machine("p5.4xlarge")
    big = AWS_CATALOG.machine("p5.48xlarge")
    assert small.gpu_model == "H100"
    assert small.gpu_count == 1
    assert small.price_per_hour is not None
    assert big.price_per_hour is not None
    assert small.price_per_hour == pytest.approx(big.price_per_hour / 8)


def test_g7e_instances_need_driver_595():
    g7e = [t for t in AWS_INSTANCE_TYPES.values() if t.family == "g7e"]
    assert len(g7e) == 6
    assert all(t.min_driver_branch == 595 for t in g7e)
    assert all(t.gpu_model == "RTX-PRO-6000" for t in g7e)


def test_no_instance_outside_g7e_declares_a_minimum_driver():
    others = [t.name for t in AWS_INSTANCE_TYPES.values() if t.family != "g7e" and t.min_driver_branch]
    assert others == []


@pytest.mark.parametrize("instance", GPU_INSTANCES, ids=lambda t: t.name)
def test_every_gpu_instance_names_a_catalog_gpu_model(instance):
    assert instance.gpu_model in GPU_MODELS
    assert instance.gpu_count >= 1


@pytest.mark.parametrize("instance", CPU_INSTANCES, ids=lambda t: t.name)
def test_cpu_instances_have_no_gpu(instance):
    assert instance.gpu_model is None
    assert instance.gpu is None
    assert instance.gpu_count == 0


@pytest.mark.parametrize(
    "instance",
    [t for t in AWS_INSTANCE_TYPES.values() if t.price_per_hour is not None],
    ids=lambda t: t.name,
)
def test_every_priced_instance_has_a_positive_price(instance):
    assert instance.price_per_hour > 0


def test_only_p5e_is_unpriced():
    assert [t.name for t in AWS_INSTANCE_TYPES.values() if t.price_per_hour is None] == ["p5e.48xlarge"]


def test_table_keys_match_instance_names():
    mismatched = [key for key, t in AWS_INSTANCE_TYPES.items() if key != t.name]
    assert mismatched == []


def test_m7g_is_the_arm_instance():
    assert AWS_CATALOG.machine("m7g.large").arch == CpuArch.ARM64
    assert AWS_CATALOG.machine("m7i.large").arch == CpuArch.X86_64
    # No GPU instance is ARM: EKS_IMAGES has no ARM NVIDIA image to give it.
    assert all(t.arch == CpuArch.X86_64 for t in GPU_INSTANCES)


def test_unknown_instance_type_suggests_close_matches():
    with pytest.raises(UnknownInstanceTypeError) as raised:
        AWS_CATALOG.machine("g6.xlarg")
    assert raised.value.name == "g6.xlarg"
    assert raised.value.suggestions[0] == "g6.xlarge"
    assert len(raised.value.suggestions) <= 3


def test_unknown_instance_type_is_a_key_error_with_no_suggestions_when_nothing_is_close():
    with pytest.raises(KeyError) as raised:
        AWS_CATALOG.machine("zz")
    assert isinstance(raised.value, UnknownInstanceTypeError)
    assert raised.value.suggestions == []


# --- GPU models


def test_mig_profiles_file_is_present():
    assert MIG_CONFIG.is_file(), f"reference MIG config missing at {MIG_CONFIG}"


@pytest.mark.parametrize("model", [g for g in GPU_MODELS.values() if g.mig_capable], ids=lambda g: g.name)
def test_every_mig_profile_exists_in_the_gpu_operator_config(model):
    known = _operator_mig_profiles()
    missing = [p for p in model.mig_profiles if p not in known]
    assert missing == [], f"{model.name}: profiles not in the GPU Operator's mig-parted config"


def test_operator_profile_parser_reads_profiles():
    # Guards the check above against vacuously passing on an unparsed file.
    known = _operator_mig_profiles()
    assert {"1g.5gb", "1g.10gb", "7g.80gb", "7g.141gb"} <= known
    assert "1g.11gb" not in known


@pytest.mark.parametrize("name", ["T4", "L4", "L40S", "A10G", "V100"])
def test_non_mig_gpus_have_no_profiles(name):
    model = gpu_model(name)
    assert model.mig_profiles == ()
    assert not model.mig_capable


@pytest.mark.parametrize("name", ["A100-40GB", "A100-80GB", "H100", "H200", "B200", "RTX-PRO-6000"])
def test_mig_gpus_are_mig_capable(name):
    assert gpu_model(name).mig_capable


@pytest.mark.parametrize("model", [g for g in GPU_MODELS.values() if g.mig_capable], ids=lambda g: g.name)
def test_largest_mig_profile_fits_the_gpu_memory(model):
    # Profiles are "<slices>g.<memory>gb"; none may claim more memory than the whole GPU.
    sizes = [int(p.split(".", 1)[1].removesuffix("gb")) for p in model.mig_profiles]
    assert max(sizes) <= model.memory_gb


def test_gpu_memory_and_architecture_facts():
    assert gpu_model("L4").memory_gb == 24
    assert gpu_model("L40S").memory_gb == 48
    assert gpu_model("H200").memory_gb == 141
    assert gpu_model("V100").architecture == Architecture.VOLTA
    assert gpu_model("T4").architecture == Architecture.TURING
    assert gpu_model("B200").architecture == Architecture.BLACKWELL


def test_blackwell_models_need_their_minimum_drivers():
    assert gpu_model("B200").min_driver_branch == 570
    assert gpu_model("RTX-PRO-6000").min_driver_branch == 575
    assert gpu_model("H100").min_driver_branch is None


def test_unknown_gpu_model_suggests_close_matches():
    with pytest.raises(UnknownGpuModelError) as raised:
        gpu_model("L40X")
    assert raised.value.name == "L40X"
    assert "L40S" in raised.value.suggestions
    assert isinstance(raised.value, KeyError)


def test_gpu_model_keys_match_names():
    assert [k for k, g in GPU_MODELS.items() if k != g.name] == []


# --- EKS images


def test_al2023_gpu_image_is_the_nvidia_ami_on_r580():
    image = eks_image(NodeImage.AL2023, CpuArch.X86_64, True)
    assert image.ami_type == "AL2023_x86_64_NVIDIA"
    assert image.driver_branch == 580
    assert image.ships_device_plugin is False
    assert image.data_device == "/dev/xvda"


def test_bottlerocket_gpu_image_ships_the_device_plugin():
    image = eks_image(NodeImage.BOTTLEROCKET, CpuArch.X86_64, True)
    assert image.ami_type == "BOTTLEROCKET_x86_64_NVIDIA"
    assert image.ships_device_plugin is True
    assert image.driver_branch == 580
    assert image.data_device == "/dev/xvdb"


def test_arm_cpu_image_is_al2023_arm_standard():
    image = eks_image(NodeImage.AL2023, CpuArch.ARM64, False)
    assert image.ami_type == "AL2023_ARM_64_STANDARD"
    assert image.driver_branch is None


@pytest.mark.parametrize("key", list(EKS_IMAGES), ids=lambda k: f"{k[0].value}-{k[1].value}-gpu{k[2]}")
def test_driver_branch_only_on_nvidia_images(key):
    image = eks_image(*key)
    is_nvidia = image.ami_type.endswith("_NVIDIA")
    assert is_nvidia == key[2]
    assert image.driver_branch == (580 if is_nvidia else None)
    if not is_nvidia:
        assert image.ships_device_plugin is False


def test_every_gpu_instance_has_an_eks_image():
    for instance in GPU_INSTANCES:
        for family in NodeImage:
            assert eks_image(family, instance.arch, True).driver_branch is not None

"""Every example stack through `gpukit plan --out`, checked the way a reviewer of the plan would."""

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from crd_schemas import has_crd
from crd_schemas import validate as validate_crd
from karpenter_crds import CHART_VALUES as KARPENTER_CHART_VALUES
from karpenter_crds import KARPENTER_KINDS
from karpenter_crds import validate as validate_karpenter

from conftest import SDK_PROBE_STACKS, PlannedStack
from gpukit.cli import main
from gpukit.components.spec import Platform, Provider
from gpukit.components.substrate import registry
from harness import ROOT, chart_has, example_config, key_paths

STACKS = sorted(
    p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in (ROOT / "stacks").glob("Pulumi.*.yaml")
)
EKS_STACKS = [s for s in STACKS if s.startswith("eks-")]
# Every stack on a cloud (own hosts are paid for whether used or not): GPU pools at 0 nodes when idle.
CLOUD_STACKS = [s for s in STACKS if s != "k3s-ssh"]
# EKS stacks whose GPU pools are managed node groups (the others are Karpenter NodePools).
NODE_GROUP_STACKS = [
    s for s in EKS_STACKS if example_config(s)["gpukit:cluster"].get("autoscaler") == "cluster-autoscaler"
]


def plan(tmp_path: Path, *argv: str) -> tuple[int, Path]:
    out = tmp_path / "out"
    code = main(["plan", "--project", str(ROOT), *argv, "--out", str(out)])
    return code, out


def test_the_readme_example_stacks_exist() -> None:
    assert {"eks-dev", "eks-train", "gke-dev", "gke-train"} <= set(STACKS)


@pytest.fixture(params=STACKS)
def planned(request: pytest.FixtureRequest, planned_stack: Callable[[str], PlannedStack]) -> tuple[str, Path]:
    stack = request.param
    plan = planned_stack(stack)
    assert plan.code == 0, f"{stack} should plan cleanly"
    return stack, plan.out


# The required fields of the objects plans patch (GKE's standard-rwo StorageClass).
PATCHED_OBJECT_REQUIRED: dict[str, dict[str, str]] = {
    "StorageClass": {"provisioner": "pd.csi.storage.gke.io"},
    "Namespace": {},  # nothing beyond metadata (the pod-security add-on's labels on `default`)
}


def test_every_kubernetes_object_is_valid_under_strict_schema(planned: tuple[str, Path]) -> None:
    stack, out = planned
    version = example_config(stack)["gpukit:cluster"]["kubernetesVersion"]
    manifests = sorted((out / "manifests").glob("*.yaml"))
    assert manifests, "a plan renders at least the GPU Operator namespace"
    for path in manifests:
        obj = yaml.safe_load(path.read_text())
        if obj["kind"].endswith("Patch"):
            # A server-side-apply patch holds only the fields it sets: checked as the object it patches,
            # with the fields every such object has.
            kind = obj["kind"].removesuffix("Patch")
            obj = {**PATCHED_OBJECT_REQUIRED[kind], **obj, "kind": kind}
        if obj["kind"] in KARPENTER_KINDS:
            validate_karpenter(obj)  # against the pinned chart's CRD schemas, strictly
            continue
        if has_crd(obj):
            validate_crd(obj)  # Kueue's and Trainer's, against their vendored CRDs, strictly
            continue
        # Raises ValidationError on unknown fields (strict) or wrong types.
        kubernetes_validate.validate(obj, f"{version}.0", strict=True)


def test_strict_validation_rejects_an_unknown_field() -> None:
    bad = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x", "lables": {}}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, "1.35.0", strict=True)


def runs_gpu_operator(stack: str) -> bool:
    """EKS and k3s always run the Operator; GKE only with driver: operator (GKE manages the rest)."""
    config = example_config(stack)
    return (
        config["gpukit:cluster"]["platform"] != "gke" or config["gpukit:gpuOperator"]["driver"] == "operator"
    )


def test_gpu_operator_release_is_pinned_with_chart_checked_values(planned: tuple[str, Path]) -> None:
    stack, out = planned
    path = out / "manifests" / "helm" / "gpu-operator.yaml"
    if not runs_gpu_operator(stack):
        assert not path.exists(), f"{stack}: GKE-managed GPU nodes get no GPU Operator"
        return
    release = yaml.safe_load(path.read_text())
    assert release["chart"] == "gpu-operator"
    assert release["version"] == "v26.7.0"
    assert release["repository"] == "https://helm.ngc.nvidia.com/nvidia"
    assert release["namespace"] == "gpu-operator"
    missing = [p for p in key_paths(release["values"]) if not chart_has(p)]
    assert missing == [], f"value keys not in the v26.7.0 chart: {missing}"


@pytest.mark.parametrize("stack", EKS_STACKS)
def test_eks_images_ship_driver_and_toolkit_so_the_operator_installs_neither(
    stack: str, tmp_path: Path
) -> None:
    code, out = plan(tmp_path, "--stack", stack)
    assert code == 0
    values = yaml.safe_load((out / "manifests" / "helm" / "gpu-operator.yaml").read_text())["values"]
    assert values["driver"]["enabled"] is False
    assert values["toolkit"]["enabled"] is False


@pytest.mark.parametrize("stack", NODE_GROUP_STACKS)
def test_gpu_node_groups_scale_from_zero_on_the_nvidia_image_with_the_gpu_taint(
    stack: str, tmp_path: Path
) -> None:
    code, out = plan(tmp_path, "--stack", stack)
    assert code == 0
    doc = json.loads((out / "plan.json").read_text())
    groups = [r for r in doc["resources"] if r["type"] == "aws:eks/nodeGroup:NodeGroup"]
    gpu_pools = {p["name"] for p in doc["pools"] if p["gpuModel"]}
    gpu_groups = [g for g in groups if g["inputs"]["amiType"].endswith("_NVIDIA")]
    assert {g["inputs"]["labels"]["gpukit.dev/pool"] for g in gpu_groups} == gpu_pools
    for group in gpu_groups:
        assert group["inputs"]["scalingConfig"]["minSize"] == 0
        assert group["inputs"]["amiType"] == "AL2023_x86_64_NVIDIA"
        assert {"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"} in group["inputs"][
            "taints"
        ]


@pytest.mark.parametrize("stack", NODE_GROUP_STACKS)
def test_eks_plans_show_zonal_labelled_gpu_groups_support_policy_log_group_and_core_addons(
    stack: str, tmp_path: Path
) -> None:
    code, out = plan(tmp_path, "--stack", stack)
    assert code == 0
    doc = json.loads((out / "plan.json").read_text())
    config = example_config(stack)
    resources = doc["resources"]
    of_type = lambda token: [r for r in resources if r["type"] == token]  # noqa: E731
    groups = of_type("aws:eks/nodeGroup:NodeGroup")
    tags = of_type("aws:autoscaling/tag:Tag")
    for pool in config["gpukit:nodePools"]:
        if not any(p["name"] == pool["name"] and p["gpuModel"] for p in doc["pools"]):
            continue
        mine = [g for g in groups if g["inputs"]["labels"]["gpukit.dev/pool"] == pool["name"]]
        # One node group per pinned zone, each in that zone only, with the autoscaler's GPU label.
        assert sorted(g["inputs"]["nodeGroupNamePrefix"] for g in mine) == sorted(
            f"{pool['name']}-{zone}-" for zone in pool["zones"]
        )
        for group in mine:
            assert len(group["inputs"]["subnetIds"]) == 1
            assert group["inputs"]["labels"]["k8s.amazonaws.com/accelerator"].startswith("nvidia-")
            assert sum(g["inputs"]["scalingConfig"]["maxSize"] for g in mine) == pool["maxNodes"]
        for zone in pool["zones"]:
            template = {
                t["inputs"]["tag"]["key"]
                for t in tags
                if t["name"].startswith(f"{config['gpukit:cluster']['name']}-{pool['name']}-{zone}-")
            }
            assert "k8s.io/cluster-autoscaler/node-template/label/k8s.amazonaws.com/accelerator" in template
    (cluster,) = of_type("aws:eks/cluster:Cluster")
    assert cluster["inputs"]["upgradePolicy"] == {"supportType": "STANDARD"}
    (logs,) = of_type("aws:cloudwatch/logGroup:LogGroup")
    assert logs["inputs"]["name"] == f"/aws/eks/{config['gpukit:cluster']['name']}/cluster"
    assert logs["inputs"]["retentionInDays"] == 30
    addons = {a["inputs"]["addonName"] for a in of_type("aws:eks/addon:Addon")}
    assert {"vpc-cni", "kube-proxy", "coredns"} <= addons


def test_plan_json_holds_no_plaintext_secret(planned: tuple[str, Path]) -> None:
    _, out = planned
    everything = "\n".join(p.read_text() for p in out.rglob("*") if p.is_file())
    doc = json.loads((out / "plan.json").read_text())
    (k8s_provider,) = [r for r in doc["resources"] if r["type"] == "pulumi:providers:kubernetes"]
    assert k8s_provider["inputs"]["kubeconfig"] == "[secret]"
    for leaked in ("certificate-authority-data", "get-token", "4dabf18193072939515e22adb298388d"):
        assert leaked not in everything


def test_text_report_shows_pools_costs_and_findings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--project", str(ROOT), "--stack", "eks-train"]) == 0
    text = capsys.readouterr().out
    assert "gpukit:index:GpuCluster  eks-train" in text
    assert "h100  p5.48xlarge  H100 x8    640 GB        0..2   on-demand  use1-az4      16" in text
    assert "EKS control plane (standard support): $0.100" in text
    assert "NAT gateway x3: $0.135" in text
    # 0.10 + 3 x 0.045 + 2 x m7i.xlarge 0.2016, a lower bound: the FSx checkpoints volume has no price.
    assert "total at idle (min nodes): at least $0.638" in text
    assert "Result: ready to `pulumi up`" in text


def test_json_flag_prints_the_plan_document(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--project", str(ROOT), "--stack", "eks-dev", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["stack"] == "eks-dev"
    # Control plane, NAT, the system node, the EFS model cache (200 GiB x $0.30 / 730 h), the metrics
    # volume (20 GiB of gp3 x $0.08 / 730 h) and the inference gateway's NLB.
    assert doc["costs"]["perHourIdle"] == pytest.approx(
        0.10 + 0.045 + 0.1008 + 200 * 0.30 / 730 + 20 * 0.08 / 730 + 0.0225
    )


CIPHERTEXT = "v1:QVdTX1NFQ1JFVF9LRVlfQ0lQSEVSVEVYVA=="


def test_encrypted_config_plans_without_a_passphrase(tmp_path: Path) -> None:
    config = example_config("eks-dev")
    config["aws:secretKey"] = {"secure": CIPHERTEXT}
    stack = tmp_path / "Pulumi.secret.yaml"
    stack.write_text(yaml.safe_dump({"config": config}))
    code = main(["plan", "--config", str(stack), "--out", str(tmp_path / "out")])
    assert code == 0
    everything = "\n".join(p.read_text() for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert CIPHERTEXT not in everything
    assert "gpukit-plan-secret-placeholder" not in everything


def test_encrypted_value_in_a_non_secret_gpukit_key_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = example_config("eks-dev")
    config["gpukit:cluster"]["tags"] = {"cost-center": {"secure": CIPHERTEXT}}
    stack = tmp_path / "Pulumi.secret.yaml"
    stack.write_text(yaml.safe_dump({"config": config}))
    assert main(["plan", "--config", str(stack), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "gpukit:cluster: holds encrypted (secure) values, but none of its fields is a secret" in err
    assert not (tmp_path / "out").exists()


def test_preflight_error_exits_1_and_still_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = example_config("eks-dev")
    config["gpukit:nodePools"].append(
        {"name": "rtx", "instanceType": "g7e.2xlarge", "minNodes": 0, "maxNodes": 1, "zones": ["usw2-az1"]}
    )
    stack = tmp_path / "Pulumi.g7e.yaml"
    stack.write_text(yaml.safe_dump({"config": config}))
    assert main(["plan", "--config", str(stack)]) == 1
    text = capsys.readouterr().out
    assert (
        "error: gpukit:nodePools[2].instanceType: g7e.2xlarge (RTX-PRO-6000, Blackwell) needs driver R595"
        in text
    )
    assert "Result: 1 preflight error(s)" in text


@pytest.mark.parametrize("stack", SDK_PROBE_STACKS)
def test_a_stack_imports_only_its_own_cloud_sdk(stack: str, sdk_imports: dict[str, list[str]]) -> None:
    """A GKE stack never imports pulumi_aws, an EKS one never pulumi_gcp, k3s over SSH neither."""
    config = example_config(stack)["gpukit:cluster"]
    platform, provider = Platform(config["platform"]), config.get("provider")
    on = registry().get(platform, Provider(provider) if provider else registry().implied_provider(platform))
    assert on is not None
    assert sdk_imports[stack] == ([on.sdk.module] if on.sdk else [])


def test_missing_stack_file_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--project", str(ROOT), "--stack", "no-such-stack"]) == 2
    err = capsys.readouterr().err
    assert "no stack 'no-such-stack'" in err
    assert "the stacks there are: eks-dev, eks-train, gke-dev" in err  # the stack files that exist
    assert "Traceback" not in err


def test_console_script_is_installed() -> None:
    assert shutil.which("gpukit", path=str(Path(sys.executable).parent)) is not None


def test_eks_dev_runs_karpenter_with_a_node_pool_per_gpu_pool_and_no_cluster_autoscaler(
    planned_stack: Callable[[str], PlannedStack],
) -> None:
    plan = planned_stack("eks-dev")
    assert plan.code == 0
    helm = plan.out / "manifests" / "helm"
    assert not (helm / "cluster-autoscaler.yaml").exists()
    release = yaml.safe_load((helm / "karpenter.yaml").read_text())
    assert (release["chart"], release["version"]) == ("oci://public.ecr.aws/karpenter/karpenter", "1.14.1")
    assert release["values"]["settings"] == {
        "clusterName": "eks-dev",
        "interruptionQueue": "eks-dev-karpenter",
    }
    assert [p for p in key_paths(release["values"]) if not chart_has(p, KARPENTER_CHART_VALUES)] == []
    crds = yaml.safe_load((helm / "karpenter-crd.yaml").read_text())
    assert (crds["chart"], crds["version"]) == ("oci://public.ecr.aws/karpenter/karpenter-crd", "1.14.1")
    config = example_config("eks-dev")
    gpu_pools = [p["name"] for p in config["gpukit:nodePools"] if p["instanceType"].startswith("g")]
    node_pools = sorted((plan.out / "manifests").glob("nodepool-*.yaml"))
    assert [yaml.safe_load(p.read_text())["metadata"]["name"] for p in node_pools] == gpu_pools
    for path in node_pools:
        spec = yaml.safe_load(path.read_text())["spec"]
        assert spec["template"]["spec"]["taints"][0]["key"] == "nvidia.com/gpu"
        assert spec["limits"]["cpu"]
    document = json.loads((plan.out / "plan.json").read_text())
    tags = [r["name"] for r in document["resources"] if r["type"] == "aws:autoscaling/tag:Tag"]
    assert tags and all(t.startswith("eks-dev-system-") for t in tags)  # no GPU group to tag
    groups = [r["name"] for r in document["resources"] if r["type"] == "aws:eks/nodeGroup:NodeGroup"]
    assert groups == ["eks-dev-system-ng"]


def test_eks_train_stays_on_the_cluster_autoscaler(planned_stack: Callable[[str], PlannedStack]) -> None:
    plan = planned_stack("eks-train")
    assert plan.code == 0
    helm = plan.out / "manifests" / "helm"
    assert (helm / "cluster-autoscaler.yaml").exists()
    assert not (helm / "karpenter.yaml").exists()
    assert not list((plan.out / "manifests").glob("nodepool-*.yaml"))


@pytest.mark.parametrize("stack", CLOUD_STACKS)
def test_cloud_example_stacks_idle_with_no_gpu_nodes(
    stack: str, planned_stack: Callable[[str], PlannedStack]
) -> None:
    document = json.loads((planned_stack(stack).out / "plan.json").read_text())
    gpu_pools = [p for p in document["pools"] if p["gpuModel"]]
    assert gpu_pools
    assert [(p["name"], p["minNodes"], p["costPerHourIdle"]) for p in gpu_pools] == [
        (p["name"], 0, 0) for p in gpu_pools
    ]

"""GpuCluster on GKE under the mocks: variations the example stacks do not cover."""

import copy
import json
import re
from typing import Any

import pytest
import yaml

from gpukit.program import build
from harness import (
    Recording,
    answer_gcp_quotas,
    example_config,
    is_secret,
    record,
    unknown_argument_names,
    unsecret,
)

GKE_DEV: dict[str, Any] = example_config("gke-dev")


def gke_config(**cluster: Any) -> dict[str, Any]:
    config = copy.deepcopy(GKE_DEV)
    config["gpukit:cluster"].update(cluster)
    return config


def run(config: dict[str, Any]) -> Recording:
    return record(lambda: build(config), region=config["gcp:region"], project=config["gcp:project"])


def pools(rec: Recording) -> dict[str, dict[str, Any]]:
    return {r.inputs["name"]: r.inputs for r in rec.of_type("gcp:container/nodePool:NodePool")}


def test_zonal_cluster_keeps_every_pool_in_its_zone() -> None:
    rec = run(gke_config(zone="us-central1-b"))
    cluster = rec.one("gcp:container/cluster:Cluster").inputs
    assert cluster["location"] == "us-central1-b"
    for pool in pools(rec).values():
        assert pool["location"] == "us-central1-b"
        assert pool["nodeLocations"] == ["us-central1-b"]


def test_regional_cluster_spreads_gpu_pools_over_the_zones_that_offer_the_gpu() -> None:
    rec = run(gke_config())
    assert rec.one("gcp:container/cluster:Cluster").inputs["location"] == "us-central1"
    by_name = pools(rec)
    assert by_name["l4"]["nodeLocations"] == ["us-central1-a", "us-central1-b", "us-central1-c"]
    assert "nodeLocations" not in by_name["system"] or by_name["system"]["nodeLocations"] == []


def test_n1_pool_with_attached_t4s() -> None:
    config = gke_config()
    config["gpukit:nodePools"][1] = {
        "name": "t4",
        "instanceType": "n1-standard-8",
        "minNodes": 0,
        "maxNodes": 4,
        "gpu": {"model": "T4", "count": 2},
    }
    node_config = pools(run(config))["t4"]["nodeConfig"]
    assert node_config["machineType"] == "n1-standard-8"
    (accelerator,) = node_config["guestAccelerators"]
    assert (accelerator["type"], accelerator["count"]) == ("nvidia-tesla-t4", 2)
    assert node_config["labels"]["gpukit.dev/gpu-model"] == "T4"


def test_hyperdisk_only_machines_boot_from_hyperdisk_and_get_a_storage_class() -> None:
    config = gke_config()
    config["gpukit:nodePools"].append(
        {"name": "h200", "instanceType": "a3-ultragpu-8g", "minNodes": 0, "maxNodes": 1}
    )
    rec = run(config)
    by_name = pools(rec)
    assert by_name["h200"]["nodeConfig"]["diskType"] == "hyperdisk-balanced"
    assert by_name["h200"]["nodeLocations"] == ["us-central1-b"]  # the one zone with H200s
    assert by_name["l4"]["nodeConfig"]["diskType"] == "pd-balanced"
    classes = {
        r.inputs["metadata"]["name"]: r.inputs
        for r in rec.of_type("kubernetes:storage.k8s.io/v1:StorageClass")
    }
    assert classes["hyperdisk-balanced"]["parameters"] == {"type": "hyperdisk-balanced"}
    assert (
        classes["hyperdisk-balanced"]["metadata"]["annotations"][
            "storageclass.kubernetes.io/is-default-class"
        ]
        == "false"
    )
    assert (
        classes["pd-balanced"]["metadata"]["annotations"]["storageclass.kubernetes.io/is-default-class"]
        == "true"
    )


def test_existing_network_is_reused_without_creating_one() -> None:
    config = gke_config(
        network={
            "networkId": "projects/acme-ml-dev/global/networks/shared",
            "subnetworkId": "projects/acme-ml-dev/regions/us-central1/subnetworks/gpu",
            "podsRangeName": "gke-pods",
            "servicesRangeName": "gke-services",
        }
    )
    rec = run(config)
    assert rec.of_type("gcp:compute/network:Network") == []
    assert rec.of_type("gcp:compute/routerNat:RouterNat") == []
    cluster = rec.one("gcp:container/cluster:Cluster").inputs
    assert cluster["subnetwork"] == "projects/acme-ml-dev/regions/us-central1/subnetworks/gpu"
    assert cluster["ipAllocationPolicy"] == {
        "clusterSecondaryRangeName": "gke-pods",
        "servicesSecondaryRangeName": "gke-services",
    }


def test_no_api_cidrs_makes_the_endpoint_private_and_pulumi_reaches_it_over_dns() -> None:
    """Nothing routes into a network the stack makes: Pulumi's Kubernetes provider talks to GKE's
    DNS-based endpoint (IAM-checked) instead of the private address."""
    rec = run(gke_config(apiAccessCidrs=[]))
    cluster = rec.one("gcp:container/cluster:Cluster").inputs
    assert cluster["privateClusterConfig"]["enablePrivateEndpoint"] is True
    assert cluster["controlPlaneEndpointsConfig"] == {"dnsEndpointConfig": {"allowExternalTraffic": True}}
    kubeconfig = yaml.safe_load(unsecret(rec.one("pulumi:providers:kubernetes").inputs["kubeconfig"]))
    (entry,) = kubeconfig["clusters"]
    assert re.fullmatch(
        r"https://gke-[0-9a-f]{32}\.us-central1(-[a-z])?\.gke\.goog", entry["cluster"]["server"]
    )
    assert "certificate-authority-data" not in entry["cluster"]  # a publicly trusted certificate


def test_a_public_api_keeps_its_address_and_no_dns_endpoint() -> None:
    rec = run(gke_config())
    # Stated closed, not left out: the provider would keep a DNS endpoint opened earlier open.
    assert rec.one("gcp:container/cluster:Cluster").inputs["controlPlaneEndpointsConfig"] == {
        "dnsEndpointConfig": {"allowExternalTraffic": False}
    }
    kubeconfig = yaml.safe_load(unsecret(rec.one("pulumi:providers:kubernetes").inputs["kubeconfig"]))
    assert kubeconfig["clusters"][0]["cluster"]["server"].startswith("https://34.118.")


def test_deletion_protection_is_on_unless_the_stack_turns_it_off() -> None:
    config = gke_config()
    del config["gpukit:cluster"]["deletionProtection"]
    assert run(config).one("gcp:container/cluster:Cluster").inputs["deletionProtection"] is True


def test_the_temporary_default_pool_uses_the_locked_down_service_account() -> None:
    rec = run(gke_config())
    cluster = rec.one("gcp:container/cluster:Cluster").inputs
    email = (
        rec.one("gcp:serviceaccount/account:Account", "gke-dev-nodes").inputs["accountId"]
        + "@acme-ml-dev.iam.gserviceaccount.com"
    )
    assert cluster["nodeConfig"]["serviceAccount"] == email


def test_kubeconfig_authenticates_with_the_gke_plugin() -> None:
    rec = run(gke_config())
    kubeconfig = rec.one("pulumi:providers:kubernetes").inputs["kubeconfig"]
    assert is_secret(kubeconfig)
    doc = yaml.safe_load(unsecret(kubeconfig))
    user = doc["users"][0]["user"]["exec"]
    assert user["command"] == "gke-gcloud-auth-plugin"
    assert user["provideClusterInfo"] is True
    assert doc["clusters"][0]["cluster"]["server"].startswith("https://34.118.")
    assert doc["current-context"] == "gke_acme-ml-dev_us-central1_gke-dev"


def test_explicit_gcp_provider_carries_project_region_and_labels() -> None:
    rec = run(gke_config())
    provider = rec.one("pulumi:providers:gcp", "gke-dev-gcp")
    enabler = rec.one("pulumi:providers:gcp", "gke-dev-gcp-apis")
    for p in (provider, enabler):
        assert (p.inputs["project"], p.inputs["region"]) == ("acme-ml-dev", "us-central1")
    for r in rec.resources:
        if r.custom and r.type.startswith("gcp:"):
            # Only the API services are enabled through the second provider (the first waits for them).
            expected = enabler if r.type == "gcp:projects/service:Service" else provider
            assert r.provider.startswith(expected.urn), f"{r.name} uses {r.provider}"


def test_every_gke_api_is_enabled_before_anything_uses_it_and_never_disabled() -> None:
    rec = run(gke_config())
    services = rec.of_type("gcp:projects/service:Service")
    assert {s.inputs["service"] for s in services} == {
        "container.googleapis.com",
        "compute.googleapis.com",
        "cloudkms.googleapis.com",
        "iam.googleapis.com",
        "cloudresourcemanager.googleapis.com",
        "cloudquotas.googleapis.com",  # the GPU quotas `pulumi up` reads first (providers/gcp/quotas.py)
    }
    for s in services:
        assert s.inputs["disableOnDestroy"] is False
        assert s.inputs["project"] == "acme-ml-dev"
    # Every resource built with the cluster's provider waits for the provider, which waits for them all.
    provider = rec.one("pulumi:providers:gcp", "gke-dev-gcp")
    assert set(provider.dependencies) >= {s.urn for s in services}


def _label_tags(**tags: str) -> dict[str, Any]:
    return gke_config(tags=tags)


def test_tags_become_labels_on_every_resource_and_on_the_node_vms() -> None:
    rec = run(_label_tags(team="ml", cost_center="cc-42"))
    expected = {"team": "ml", "cost_center": "cc-42", "gpukit-cluster": "gke-dev", "managed-by": "gpukit"}
    for p in rec.of_type("pulumi:providers:gcp"):
        assert json.loads(p.inputs["defaultLabels"]) == expected
    for pool in pools(rec).values():
        assert pool["nodeConfig"]["resourceLabels"] == expected


def test_secrets_are_encrypted_with_a_rotating_key_in_the_clusters_region() -> None:
    rec = run(gke_config())
    cluster = rec.one("gcp:container/cluster:Cluster")
    ring = rec.one("gcp:kms/keyRing:KeyRing")
    key = rec.one("gcp:kms/cryptoKey:CryptoKey")
    grant = rec.one("gcp:kms/cryptoKeyIAMMember:CryptoKeyIAMMember")
    assert ring.inputs["location"] == "us-central1"
    assert (
        "name" not in ring.inputs and "name" not in key.inputs
    )  # auto-named: a re-created stack gets new ones
    assert key.inputs["keyRing"] == ring.id
    assert key.inputs["rotationPeriod"] == "7776000s"  # 90 days
    assert cluster.inputs["databaseEncryption"] == {"state": "ENCRYPTED", "keyName": key.id}
    assert grant.inputs["cryptoKeyId"] == key.id
    assert grant.inputs["role"] == "roles/cloudkms.cryptoKeyEncrypterDecrypter"
    assert grant.inputs["member"] == (
        "serviceAccount:service-123456789012@container-engine-robot.iam.gserviceaccount.com"
    )
    assert grant.urn in cluster.dependencies


def test_a_zonal_cluster_keeps_its_key_in_the_zones_region() -> None:
    rec = run(gke_config(zone="us-central1-b"))
    assert rec.one("gcp:container/cluster:Cluster").inputs["location"] == "us-central1-b"
    assert rec.one("gcp:kms/keyRing:KeyRing").inputs["location"] == "us-central1"


def test_gke_default_class_is_switched_off_before_gpukits_own_default() -> None:
    rec = run(gke_config())
    (patch,) = rec.of_type("kubernetes:storage.k8s.io/v1:StorageClassPatch")
    assert patch.inputs["metadata"]["name"] == "standard-rwo"
    assert patch.inputs["metadata"]["annotations"]["storageclass.kubernetes.io/is-default-class"] == "false"
    classes = rec.of_type("kubernetes:storage.k8s.io/v1:StorageClass")
    defaults = [
        c.inputs["metadata"]["name"]
        for c in classes
        if c.inputs["metadata"]["annotations"]["storageclass.kubernetes.io/is-default-class"] == "true"
    ]
    assert defaults == ["pd-balanced"]
    for c in classes:
        assert patch.urn in c.dependencies


def test_a3_pools_get_gvnic_and_other_families_are_left_alone() -> None:
    config = gke_config()
    config["gpukit:nodePools"].append(
        {"name": "h100", "instanceType": "a3-megagpu-8g", "minNodes": 0, "maxNodes": 1}
    )
    by_name = pools(run(config))
    assert by_name["h100"]["nodeConfig"]["gvnic"] == {"enabled": True}
    assert "gvnic" not in by_name["l4"]["nodeConfig"]
    assert "gvnic" not in by_name["system"]["nodeConfig"]


def test_compact_placement_on_a_single_zone_pool() -> None:
    config = gke_config()
    config["gpukit:nodePools"][1].update(zones=["us-central1-a"], compactPlacement=True)
    by_name = pools(run(config))
    assert by_name["l4"]["placementPolicy"] == {"type": "COMPACT"}
    assert by_name["l4"]["nodeLocations"] == ["us-central1-a"]
    assert "placementPolicy" not in by_name["system"]


@pytest.mark.parametrize("stack", ["gke-dev", "gke-train"])
def test_every_resource_argument_is_one_the_provider_schema_knows(stack: str) -> None:
    config = example_config(stack)
    rec = run(config)
    unknown = {r.name: n for r in rec.resources if r.custom and (n := unknown_argument_names(r.inputs))}
    assert unknown == {}


def test_the_project_number_look_up_waits_for_the_apis_the_stack_enables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A preview on a fresh project must not call Resource Manager before the stack enables it:
    the look-up names the API services as its dependencies (invokes wait only for what they name)."""
    import pulumi_gcp as gcp

    original = gcp.organizations.get_project_output
    waited_for: list[list[str]] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        waited_for.append([s._name for s in kwargs["opts"].depends_on])
        return original(*args, **kwargs)

    monkeypatch.setattr(gcp.organizations, "get_project_output", spy)
    rec = run(gke_config())
    services = sorted(r.name for r in rec.of_type("gcp:projects/service:Service"))
    assert [sorted(names) for names in waited_for] == [services]
    assert "gke-dev-api-cloudresourcemanager" in services


def test_gke_driver_pools_share_gpus_through_gkes_own_fields() -> None:
    config = gke_config()
    config["gpukit:nodePools"][1]["sharing"] = {"mode": "time-slicing", "replicas": 4}
    config["gpukit:nodePools"].append(
        {
            "name": "h100",
            "instanceType": "a3-highgpu-8g",
            "minNodes": 0,
            "maxNodes": 1,
            "sharing": {"mode": "mig", "mig": {"profile": "1g.10gb"}},
        }
    )
    rec = run(config)
    l4 = pools(rec)["l4"]["nodeConfig"]
    assert l4["guestAccelerators"][0]["gpuSharingConfig"] == {
        "gpuSharingStrategy": "TIME_SHARING",
        "maxSharedClientsPerGpu": 4,
    }
    assert "nvidia.com/device-plugin.config" not in l4["labels"]  # GKE's plugin does it, not the Operator's
    h100 = pools(rec)["h100"]["nodeConfig"]
    assert h100["guestAccelerators"][0]["gpuPartitionSize"] == "1g.10gb"
    assert "nvidia.com/mig.config" not in h100["labels"]
    assert rec.of_type("kubernetes:helm.sh/v3:Release") == [] or all(
        "devicePlugin" not in r.inputs.get("values", {}) for r in rec.of_type("kubernetes:helm.sh/v3:Release")
    )


def test_operator_driver_pools_share_gpus_through_the_operator() -> None:
    config = gke_config()
    config["gpukit:gpuOperator"] = {"chartVersion": "v26.7.0", "driver": "operator"}
    config["gpukit:nodePools"][1]["sharing"] = {"mode": "mps", "replicas": 2}
    rec = run(config)
    l4 = pools(rec)["l4"]["nodeConfig"]
    assert "gpuSharingConfig" not in l4["guestAccelerators"][0]
    assert l4["labels"]["nvidia.com/device-plugin.config"] == "mps-2"
    release = rec.one("kubernetes:helm.sh/v3:Release", "gke-dev-gpu-operator-release").inputs
    assert set(release["values"]["devicePlugin"]["config"]["data"]) == {"none", "mps-2"}


def test_gke_driver_partitions_b200_gpus_with_their_mig_profile() -> None:
    """GKE's "Running multi-instance GPUs" lists B200 beside A100, H100 and H200; the API takes the
    NVIDIA MIG User Guide's profile names (AcceleratorConfig.gpuPartitionSize)."""
    config = gke_config()
    config["gpukit:nodePools"].append(
        {
            "name": "b200",
            "instanceType": "a4-highgpu-8g",
            "minNodes": 0,
            "maxNodes": 1,
            "sharing": {"mode": "mig", "mig": {"profile": "1g.23gb"}},
        }
    )
    b200 = pools(run(config))["b200"]["nodeConfig"]
    assert b200["guestAccelerators"][0]["gpuPartitionSize"] == "1g.23gb"
    assert "nvidia.com/mig.config" not in b200["labels"]


def test_the_critical_pod_quota_is_sized_from_the_pools_max_nodes() -> None:
    """GKE with `driver: operator` admits the Operator's critical-priority pods only under the quota;
    a fixed 100 starved GPU nodes past about the twelfth (issue 29, point 4). 40 L4 nodes: each runs the
    driver, toolkit, device plugin, GFD, DCGM exporter and MIG manager, the validator's three pods and
    one for a rollout (10), every node NFD's worker (+1 rollout), plus the controllers."""
    config = copy.deepcopy(GKE_DEV)
    config["gpukit:gpuOperator"] = {"chartVersion": "v26.7.0", "driver": "operator"}
    l4 = next(p for p in config["gpukit:nodePools"] if p["name"] == "l4")
    l4["maxNodes"] = 40
    rec = record(lambda: build(config))
    quota = rec.one("kubernetes:core/v1:ResourceQuota")
    system = next(p for p in config["gpukit:nodePools"] if p["name"] == "system")["maxNodes"]
    expected = 40 * 10 + (40 + system) * 2 + 4
    assert quota.inputs["spec"]["hard"] == {"pods": str(expected)}
    assert expected > 100


# What is registered before the quota read: the components, the providers and the API enablements
# (the read waits for the Cloud Quotas API through the provider).
BEFORE_THE_READ = {
    "gpukit:index:GpuCluster",
    "gpukit:index:GkeCluster",
    "pulumi:providers:gcp",
    "gcp:projects/service:Service",
}


def test_a_gpu_quota_too_low_for_what_starts_fails_before_the_cluster_is_created(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A new project's GPU quotas are often 0: `pulumi up` would create the cluster, then wait for GPU
    nodes that never come and time verification out. It reads the quotas first (issue 29, point 3)."""
    zero = {"PREEMPTIBLE-NVIDIA-L4-GPUS-per-project-region": "0", "NVIDIA-L4-GPUS-per-project-region": "0"}
    asked, registered, _ = answer_gcp_quotas(monkeypatch, zero)
    config = gke_config()
    config["gpukit:nodePools"][1]["minNodes"] = 1  # the spot L4 pool: a first node in each of 3 zones
    with pytest.raises(Exception) as failed:
        run(config)
    message = str(failed.value)
    assert message.startswith(
        "Compute Engine quota PREEMPTIBLE_NVIDIA_L4_GPUS (PREEMPTIBLE-NVIDIA-L4-GPUS-per-project-region) in "
        "region us-central1 of project acme-ml-dev is 0 GPUs and the standard quota NVIDIA_L4_GPUS "
        "(NVIDIA-L4-GPUS-per-project-region) Spot VMs fall back on is 0; pools l4 start 3 GPUs right away"
    )
    assert "--preferred-value=8" in message
    assert asked == list(zero)
    assert set(registered) <= BEFORE_THE_READ
    assert "gcp:projects/service:Service" in registered  # the APIs, Cloud Quotas among them


def test_a_gpu_quota_below_max_nodes_warns_and_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    _, registered, warned = answer_gcp_quotas(
        monkeypatch, {"PREEMPTIBLE-NVIDIA-L4-GPUS-per-project-region": "2"}
    )
    rec = run(gke_config())
    assert rec.of_type("gcp:container/nodePool:NodePool")
    (warning,) = warned
    assert warning.startswith(
        "gpukit: Compute Engine quota PREEMPTIBLE_NVIDIA_L4_GPUS (PREEMPTIBLE-NVIDIA-L4-GPUS-per-project-"
        "region) in region us-central1 of project acme-ml-dev is 2 GPUs; pools l4 need 8 at maxNodes"
    )
    assert "gcp:container/cluster:Cluster" in registered


def test_an_unreadable_gpu_quota_warns_and_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    """A refused permission, or the API still off: the engine reports a failed invoke (a plain Exception
    in the program); the run goes on with a warning per quota, never a refusal."""
    asked, _, warned = answer_gcp_quotas(monkeypatch, "googleapi: Error 403: Permission denied")
    config = gke_config()
    config["gpukit:nodePools"][1]["minNodes"] = 1
    rec = run(config)
    assert rec.of_type("gcp:container/nodePool:NodePool")
    assert asked == ["PREEMPTIBLE-NVIDIA-L4-GPUS-per-project-region", "GPUS-ALL-REGIONS-per-project"]
    assert [w.split(" could not be read")[0] for w in warned] == [
        "gpukit: Compute Engine quota PREEMPTIBLE_NVIDIA_L4_GPUS (PREEMPTIBLE-NVIDIA-L4-GPUS-per-project-"
        "region) in region us-central1 of project acme-ml-dev",
        "gpukit: Compute Engine quota GPUS_ALL_REGIONS (GPUS-ALL-REGIONS-per-project) in project acme-ml-dev "
        "(all regions)",
    ]


def test_a_quota_read_the_plan_fakes_refuse_fails_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Wrong arguments are no answer about the quota: the run stops, it does not warn and go on."""
    from gpukit.providers.gcp import quotas

    monkeypatch.setattr(quotas, "COMPUTE", "container.googleapis.com")
    with pytest.raises(ValueError, match="getSQuotaInfo takes parent projects/<project id or number>"):
        run(gke_config())

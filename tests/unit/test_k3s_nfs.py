"""NFS shared volumes on k3s: the driver's values against the pinned chart's own values.yaml, the
StorageClass (valid under kubernetes-validate --strict), and the checks of an `nfs` volume's keys."""

from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from gpukit.components.addons.storage.isolation import storage_egress_policy
from gpukit.components.addons.storage.nfs.chart import (
    CHART,
    CHART_REPOSITORY,
    CHART_VERSION,
    NAMESPACE,
    nfs_driver_values,
)
from gpukit.components.addons.storage.nfs.network import nfs_address_findings
from gpukit.components.addons.storage.nfs.storage_class import example_claim, nfs_storage_class
from gpukit.components.addons.storage.nfs.validation import NfsRules, nfs_problems
from gpukit.components.findings import Severity
from gpukit.components.pools import SERVER_TAINT
from harness import unknown_values

CHART_VALUES = yaml.safe_load(
    (Path(__file__).parents[1] / "reference/csi-driver-nfs-4.13.4/values.yaml").read_text()
)
SSH_HOSTS = ["192.0.2.10", "192.0.2.11", "gpu-2.lab.example"]
KEY = "gpukit:storage.shared[0]"


def test_the_chart_is_pinned_to_an_exact_version_from_its_own_repository() -> None:
    assert (CHART, CHART_VERSION) == ("csi-driver-nfs", "4.13.4")
    assert CHART_REPOSITORY == "https://kubernetes-csi.github.io/csi-driver-nfs"
    assert NAMESPACE == "kube-system"


def test_every_value_gpukit_sets_is_a_key_of_the_chart() -> None:
    assert unknown_values(nfs_driver_values(), CHART_VALUES) == []
    assert unknown_values({"controller": {"replica": 2}}, CHART_VALUES) == ["controller.replica"]


def test_the_controller_runs_on_the_servers_through_their_taint() -> None:
    controller = nfs_driver_values()["controller"]
    assert controller["nodeSelector"] == {"node-role.kubernetes.io/control-plane": "true"}
    tolerations = controller["tolerations"]
    # gpukit taints servers CriticalAddonsOnly=true:NoExecute; the chart tolerates it as NoSchedule only.
    assert {"key": SERVER_TAINT.key, "operator": "Exists", "effect": "NoExecute"} in tolerations
    assert all(t in tolerations for t in CHART_VALUES["controller"]["tolerations"])
    assert controller["replicas"] == 1


def test_the_node_plugin_keeps_running_on_every_node_gpu_nodes_included() -> None:
    assert "node" not in nfs_driver_values()  # the chart's own: tolerate every taint
    assert CHART_VALUES["node"]["tolerations"] == [{"operator": "Exists"}]


def test_no_snapshots_and_no_chart_made_storage_class() -> None:
    values = nfs_driver_values()
    assert values["externalSnapshotter"] == {"enabled": False}
    assert values["controller"]["enableSnapshotter"] is False
    assert values["storageClass"] == {"create": False}


def test_the_storage_class_mounts_the_export_retained_over_nfs_4_1() -> None:
    sc = nfs_storage_class("checkpoints", "192.0.2.10", "/srv/gpukit-nfs/checkpoints")
    kubernetes_validate.validate(sc, "1.35.0", strict=True)
    assert sc["metadata"]["name"] == "shared-checkpoints"
    assert sc["provisioner"] == "nfs.csi.k8s.io"
    assert sc["parameters"]["server"] == "192.0.2.10"
    assert sc["parameters"]["share"] == "/srv/gpukit-nfs/checkpoints"
    assert sc["reclaimPolicy"] == "Retain"
    assert sc["mountOptions"][0] == "nfsvers=4.1"


def test_the_example_claim_is_read_write_many_on_the_class() -> None:
    claim = example_claim("checkpoints", 500)
    kubernetes_validate.validate(claim, "1.35.0", strict=True)
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"]
    assert claim["spec"]["storageClassName"] == "shared-checkpoints"


# The rules of each k3s substrate's storage variant, without the VM disk the clouds' have (a volume that
# names no export is then refused there too).
RULES = {
    "ssh": NfsRules("k3s over ssh", hosts_serve=True),
    "aws": NfsRules("k3s over aws"),
    "gcp": NfsRules("k3s over gcp"),
}


def _keys(problems: list[Any]) -> list[str]:
    return [p.key for p in problems]


def test_good_nfs_volumes_pass() -> None:
    assert nfs_problems(KEY, {"host": "192.0.2.11"}, RULES["ssh"], SSH_HOSTS) == []
    assert nfs_problems(KEY, {"host": "GPU-2.lab.example"}, RULES["ssh"], SSH_HOSTS) == []
    assert (
        nfs_problems(KEY, {"server": "nas.lab.example", "path": "/volume1/ml"}, RULES["ssh"], SSH_HOSTS) == []
    )
    assert nfs_problems(KEY, {"server": "10.0.0.5", "path": "/export"}, RULES["gcp"], []) == []


@pytest.mark.parametrize(
    ("nfs", "provider", "key", "words"),
    [
        ({"host": "192.0.2.99"}, "ssh", "nfs.host", "one of the cluster's hosts"),
        ({"host": "192.0.2.10"}, "aws", "nfs.host", "only on k3s over SSH"),
        ({"server": "nas lab", "path": "/x"}, "ssh", "nfs.server", "not an IP address or DNS name"),
        ({"server": "localhost", "path": "/x"}, "ssh", "nfs.server", "localhost"),
        ({"server": "10.0.0.5", "path": "srv/nfs"}, "ssh", "nfs.path", "absolute path"),
        ({"server": "10.0.0.5", "path": "/srv/nfs\n"}, "ssh", "nfs.path", "absolute path"),
        ({"server": "10.0.0.5", "path": "/srv/../etc"}, "ssh", "nfs.path", "'..'"),
        (None, "ssh", "nfs", "required on k3s over ssh"),
        (None, "gcp", "nfs", "required on k3s over gcp"),  # a provider passing no VM disk
        # Plain-text NFS never goes to an internet-routed address, IPv4, IPv6 or IPv4-mapped.
        ({"server": "8.8.8.8", "path": "/x"}, "ssh", "nfs.server", "'8.8.8.8' is a public (global) address"),
        ({"server": "2001:4860::8888", "path": "/x"}, "aws", "nfs.server", "public (global) address"),
        ({"server": "::ffff:8.8.8.8", "path": "/x"}, "gcp", "nfs.server", "plain text"),
    ],
)
def test_bad_nfs_volumes_are_refused_naming_the_key(
    nfs: dict[str, str] | None, provider: str, key: str, words: str
) -> None:
    problems = nfs_problems(KEY, nfs, RULES[provider], SSH_HOSTS)
    assert _keys(problems) == [f"{KEY}.{key}"]
    assert words in problems[0].message


@pytest.mark.parametrize(
    "server", ["10.0.0.5", "172.16.4.2", "192.168.1.20", "100.64.1.2", "169.254.10.1", "fd12:3456::5"]
)
def test_private_cgnat_link_local_and_ula_servers_pass(server: str) -> None:
    assert nfs_problems(KEY, {"server": server, "path": "/export"}, RULES["gcp"], []) == []


def test_a_host_server_is_refused_when_it_or_a_host_it_exports_to_is_public() -> None:
    public_agent = ["192.0.2.10", "93.184.216.34", "gpu-2.lab.example"]
    (problem,) = nfs_problems(KEY, {"host": "192.0.2.10"}, RULES["ssh"], public_agent)
    assert problem.key == f"{KEY}.nfs.host"
    assert "public (global) addresses (93.184.216.34)" in problem.message
    assert "got host '192.0.2.10'" in problem.message
    (problem,) = nfs_problems(KEY, {"host": "93.184.216.34"}, RULES["ssh"], public_agent)
    assert "(93.184.216.34)" in problem.message


def test_dns_names_get_a_plain_text_warning_naming_the_key() -> None:
    storage = {
        "shared": [
            {"name": "a", "kind": "nfs", "nfs": {"server": "nas.lab.example", "path": "/x"}},
            {"name": "b", "kind": "auto", "nfs": {"host": "192.0.2.10"}},
            {"name": "c", "kind": "nfs", "nfs": {"server": "10.0.0.5", "path": "/x"}},
        ]
    }
    findings = nfs_address_findings(storage, SSH_HOSTS)
    assert [(f.severity, f.key) for f in findings] == [
        (Severity.WARNING, "gpukit:storage.shared[0].nfs.server"),
        (Severity.WARNING, "gpukit:storage.shared[1].nfs.host"),
    ]
    assert "plain text" in findings[0].message and "nas.lab.example" in findings[0].fix
    assert "gpu-2.lab.example is a DNS name" in findings[1].message
    assert nfs_address_findings(storage, ["192.0.2.10", "192.0.2.11"])[1:] == []


DOC = Path(__file__).parents[2] / "docs/shared-storage.md"


def _doc_network_policy() -> dict[str, Any]:
    """The NetworkPolicy example of docs/shared-storage.md (k3s, Security), as YAML."""
    text = DOC.read_text()
    start = text.index("```yaml\n", text.index("**Pods are kept off the server by a NetworkPolicy**"))
    block = text[start + len("```yaml\n") : text.index("```", start + 3)]
    return yaml.safe_load("\n".join(line.removeprefix("  ") for line in block.splitlines()))


def test_the_documented_network_policy_is_valid_and_keeps_pods_off_the_server() -> None:
    policy = _doc_network_policy()
    kubernetes_validate.validate(policy, "1.35.0", strict=True)
    assert policy["spec"]["podSelector"] == {} and policy["spec"]["policyTypes"] == ["Egress"]
    blocks = [
        peer["ipBlock"] for rule in policy["spec"]["egress"] for peer in rule["to"] if "ipBlock" in peer
    ]
    # The only address range allowed to every pod leaves the server's address out.
    assert blocks == [{"cidr": "0.0.0.0/0", "except": ["192.0.2.10/32"]}]
    # The copy for a namespace of yours is the policy gpukit applies for a server it made.
    assert policy["spec"] == storage_egress_policy("team-a", [("192.0.2.10", True)])["spec"]


def test_the_node_plugin_mounts_from_the_host_network_so_the_policy_never_blocks_a_mount() -> None:
    # The chart's node DaemonSet sets hostNetwork: true (templates/csi-nfs-node.yaml); its values give the
    # host-network DNS policy, and gpukit's values override neither.
    assert CHART_VALUES["node"]["dnsPolicy"] == "ClusterFirstWithHostNet"
    node = nfs_driver_values().get("node", {})
    assert "dnsPolicy" not in node and "hostNetwork" not in node
    assert "(RBAC)" not in DOC.read_text()


@pytest.mark.parametrize(
    ("nfs", "zones"),
    [
        ({"host": "192.0.2.10"}, ["host 192.0.2.10"]),
        ({"server": "nas.lab.example", "path": "/x"}, ["your server"]),
    ],
)
def test_the_plan_says_where_an_nfs_volume_lives(nfs: dict[str, str], zones: list[str]) -> None:
    from gpukit.components.addons.storage.backends import BACKENDS
    from gpukit.components.addons.storage.variant import storage_variant
    from gpukit.components.addons.storage.volume import PlannedVolume
    from gpukit.components.spec import StorageKind, StorageRole
    from gpukit.providers.ssh.substrate import K3sSshSubstrate

    row = BACKENDS[StorageKind.NFS]
    spec = {"name": "c", "kind": StorageKind.NFS, "role": StorageRole.CHECKPOINTS, "size_gb": 10, "nfs": nfs}
    volume = PlannedVolume(spec, row, row.tiers[0], "")  # type: ignore[arg-type]
    assert storage_variant(K3sSshSubstrate()).volume_zones(None, volume) == zones  # type: ignore[arg-type]

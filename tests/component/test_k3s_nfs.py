"""NFS shared volumes on k3s over SSH under the mocks (build_ssh_nfs on the k3s-ssh example's hosts):
what the engine recorded for the NFS server command, the driver release and the StorageClasses."""

from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest

from gpukit.components.pools import PoolFacts
from gpukit.providers.ssh.k3s.nfs import build_ssh_nfs
from harness import Recording, example_config, is_secret, record, substrate, unsecret
from tools import remote_script, script_input

KEY = "test-only-key"
CONFIG = example_config("k3s-ssh")
EXAMPLE_HOSTS = ["192.0.2.10", "192.0.2.11", "192.0.2.12"]


@dataclass(frozen=True)
class Volume:
    name: str
    spec: dict[str, Any]


def pools() -> list[PoolFacts]:
    ssh = substrate("k3s-ssh")
    return [ssh.pool_facts(p) for p in _snake_pools()]


def _snake_pools() -> list[Any]:
    return [
        {
            "name": p["name"],
            "role": p.get("role", "agent"),
            "hosts": [
                {"address": h["address"], "user": h["user"], "host_key": h["hostKey"]} for h in p["hosts"]
            ],
            **({"gpu": {"model": p["gpu"]["model"], "count": p["gpu"]["count"]}} if "gpu" in p else {}),
        }
        for p in CONFIG["gpukit:nodePools"]
    ]


VOLUMES = [
    Volume("checkpoints", {"nfs": {"host": "192.0.2.10"}}),
    Volume("datasets", {"nfs": {"host": "192.0.2.10"}}),
    Volume("models", {"nfs": {"server": "nas.lab.example", "path": "/volume1/models"}}),
]


def run(volumes: list[Volume]) -> Recording:
    def program() -> None:
        parent = pulumi.ComponentResource("gpukit:index:Test", "lab")
        kubernetes = k8s.Provider("lab-k8s", kubeconfig="{}", opts=pulumi.ResourceOptions(parent=parent))
        build_ssh_nfs("lab", volumes, pools(), pulumi.Output.secret(KEY), kubernetes, parent=parent)

    return record(program)


@pytest.fixture(scope="module")
def lab() -> Recording:
    return run(VOLUMES)


def test_one_server_command_per_host_over_its_pinned_key(lab: Recording) -> None:
    (setup,) = lab.of_type("command:remote:Command")
    assert setup.name == "lab-nfs-control-192-0-2-10-setup"
    assert is_secret(setup.inputs["connection"])
    connection = unsecret(setup.inputs["connection"])
    assert connection["host"] == "192.0.2.10"
    assert connection["hostKey"].startswith("ssh-ed25519 AAAA")
    assert KEY not in str(setup.inputs["create"])


def test_the_host_exports_its_volumes_to_every_node_address_alone(lab: Recording) -> None:
    (setup,) = lab.of_type("command:remote:Command")
    script = remote_script(setup.inputs["create"].split(" # gpukit ")[0])
    exports = script_input(script, "EXPORTS").splitlines()[1:]
    assert [line.split()[0] for line in exports] == [
        "/srv/gpukit-nfs/checkpoints",
        "/srv/gpukit-nfs/datasets",
    ]
    for line in exports:
        clients = [c.split("(")[0] for c in line.split()[1:]]
        assert clients == [f"{a}/32" for a in EXAMPLE_HOSTS]
        assert all("root_squash" in c and "sec=sys" in c for c in line.split()[1:])
    # Leaving the stack unexports and keeps the data.
    removal = remote_script(setup.inputs["delete"])
    assert script_input(removal, "EXPORTS_FILE") == "/etc/exports.d/gpukit.exports"
    assert "rm -rf" not in removal


def test_the_driver_is_the_pinned_chart_with_its_controller_on_the_servers(lab: Recording) -> None:
    release = lab.one("kubernetes:helm.sh/v3:Release")
    assert (release.inputs["chart"], release.inputs["version"]) == ("csi-driver-nfs", "4.13.4")
    assert release.inputs["repositoryOpts"]["repo"] == "https://kubernetes-csi.github.io/csi-driver-nfs"
    assert release.inputs["namespace"] == "kube-system"
    controller = release.inputs["values"]["controller"]
    assert controller["nodeSelector"] == {"node-role.kubernetes.io/control-plane": "true"}
    assert {"key": "CriticalAddonsOnly", "operator": "Exists", "effect": "NoExecute"} in controller[
        "tolerations"
    ]


def test_each_volume_gets_a_retained_class_on_its_export(lab: Recording) -> None:
    classes = {
        r.inputs["metadata"]["name"]: r.inputs
        for r in lab.of_type("kubernetes:storage.k8s.io/v1:StorageClass")
    }
    assert sorted(classes) == ["shared-checkpoints", "shared-datasets", "shared-models"]
    assert classes["shared-checkpoints"]["parameters"]["server"] == "192.0.2.10"
    assert classes["shared-checkpoints"]["parameters"]["share"] == "/srv/gpukit-nfs/checkpoints"
    assert classes["shared-models"]["parameters"]["server"] == "nas.lab.example"
    assert classes["shared-models"]["parameters"]["share"] == "/volume1/models"
    for inputs in classes.values():
        assert inputs["provisioner"] == "nfs.csi.k8s.io"
        assert inputs["reclaimPolicy"] == "Retain"
        assert "nfsvers=4.1" in inputs["mountOptions"]


def test_a_users_own_export_needs_no_server_command() -> None:
    rec = run([VOLUMES[2]])
    assert rec.of_type("command:remote:Command") == []
    assert len(rec.of_type("kubernetes:storage.k8s.io/v1:StorageClass")) == 1

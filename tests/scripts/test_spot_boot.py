"""A spot machine's first boot, executed against stub commands: the install a Compute Engine spot agent
runs writes the kubelet drop-in that makes its graceful node shutdown fit the preemption window, and an
on-demand agent's keeps the default. (EC2 spot nodes are drained by aws-node-termination-handler, a
DaemonSet: tests/unit/test_spot_drain.py checks its values.)"""

import hashlib
from pathlib import Path

import pytest
import yaml
from scripts.stubs import FAKE_BINARY, FAKE_INSTALLER, FakeHost

from gpukit.components.k3s.cloud_init import CloudNode, node_scripts
from gpukit.components.k3s.host_scripts import (
    KUBELET_DROP_IN,
    TOKEN_FILE,
    K3sDownload,
    agent_join,
    secrets_bundle,
)
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import DriverMode, NodePoolSpec, NodeRole
from gpukit.providers.gcp.k3s.iam import fetch_secrets_script
from gpukit.providers.gcp.k3s.preemption import preemption_ready
from harness import substrate
from tools import shellcheck_problems


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


DOWNLOAD = K3sDownload("v1.36.4+k3s1", {"amd64": _sha(FAKE_BINARY)}, _sha(FAKE_INSTALLER))
SERVER = "https://10.70.0.10:6443"
AGENT_BUNDLE = secrets_bundle({TOKEN_FILE: "K10abc::node:ag3nt-token"})


def l4_pool(capacity: str) -> PoolFacts:
    spec = {
        "name": "l4",
        "instance_type": "g2-standard-8",
        "min_nodes": 0,
        "max_nodes": 2,
        "capacity": capacity,
    }
    pool: NodePoolSpec = spec  # type: ignore[assignment]
    return substrate("k3s-gcp").pool_facts(pool)


def install_for(capacity: str) -> str:
    node = CloudNode(
        NodeRole.AGENT,
        DOWNLOAD,
        DriverMode.PREINSTALLED,
        labels={"gpukit.dev/pool": "l4"},
        join=agent_join([SERVER]),
    )
    scripts = node_scripts(
        preemption_ready(node, l4_pool(capacity)), fetch_secrets_script("projects/p/secrets/s/versions/1")
    )
    return scripts["install.sh"]


@pytest.mark.parametrize(
    ("capacity", "grace", "critical"), [("spot", "30s", "15s"), ("on-demand", "60s", "20s")]
)
def test_the_install_writes_the_pools_shutdown_window(
    tmp_path: Path, capacity: str, grace: str, critical: str
) -> None:
    host = FakeHost(tmp_path)
    (host.state / "answering").write_text(SERVER + "\n")
    result = host.run(install_for(capacity), stdin=AGENT_BUNDLE)
    assert result.code == 0, result.stderr
    drop_in = yaml.safe_load((host.root / KUBELET_DROP_IN.lstrip("/")).read_text())
    assert (drop_in["shutdownGracePeriod"], drop_in["shutdownGracePeriodCriticalPods"]) == (grace, critical)
    assert drop_in["kind"] == "KubeletConfiguration"
    # k3s-agent is (re)started with it: the kubelet reads the drop-in when it starts.
    assert any(c.startswith("sh ") and "EXEC=agent" in c for c in result.calls)


def test_the_spot_install_is_shellcheck_clean(tmp_path: Path) -> None:
    path = tmp_path / "install.sh"
    path.write_text(install_for("spot"))
    assert shellcheck_problems(path) == ""

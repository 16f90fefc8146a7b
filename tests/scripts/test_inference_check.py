"""The inference check's script (components/addons/inference/scripts/inference-check.sh), executed under
bash against a real HTTP server on localhost standing in for the Gateway (it answers /v1/models as the
simulators do, by the route's header) and a stub `getent` that resolves the headless Services to as
many addresses as a test says; and the rendered script shellcheck-clean."""

import http.server
import os
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gpukit.components.addons.inference import check_objects as co
from gpukit.components.addons.inference.gateway_names import GatewayTarget
from gpukit.components.addons.inference.names import IN_CLUSTER_PROMETHEUS_URL
from gpukit.components.addons.inference.scalers import Target
from gpukit.components.spec import SharingMode
from tools import shellcheck_problems

HOLDER = co.HolderUnit("l4", (), (), "nvidia.com/gpu", SharingMode.NONE)
STORE = Target("x", "y", IN_CLUSTER_PROMETHEUS_URL, 2, authenticated=False)


@dataclass
class Gateway:
    port: int
    honours_header: bool = True
    status: int = 200


class _Handler(http.server.BaseHTTPRequestHandler):
    gateway: Gateway

    def do_GET(self) -> None:
        gateway = self.server.gateway  # type: ignore[attr-defined]
        canary = gateway.honours_header and self.headers.get(co.ROUTE_HEADER) == co.ROUTE_HEADER_VALUE
        model = co.CANARY_MODEL if canary else co.STABLE_MODEL
        body = f'{{"object":"list","data":[{{"id":"{model}","object":"model"}}]}}'.encode()
        # The route matches its own hostname only (and the path).
        ok = (
            self.path == co.ROUTE_PATH and self.headers.get("Host") == co.ROUTE_HOST and gateway.status == 200
        )
        self.send_response(200 if ok else gateway.status if gateway.status != 200 else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def gateway() -> Iterator[Gateway]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    state = Gateway(server.server_address[1])
    server.gateway = state  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()


def plan(gateway: Gateway | None, store: bool = True, holder: bool = True) -> co.CheckPlan:
    target = GatewayTarget("127.0.0.1", gateway.port) if gateway else None
    return co.CheckPlan(5, STORE if store else None, target, False, HOLDER if holder else None)


def run(
    tmp_path: Path,
    check: co.CheckPlan,
    pods: dict[str, int],
    host: str = "127.0.0.1",
    dual_stack: bool = False,
) -> tuple[int, str]:
    """Run the rendered script; `pods`: how many pods each headless Service has ready (an address each,
    of each family where `dual_stack`)."""
    names = Path(tempfile.mkdtemp(dir=tmp_path))
    stubs = names / "bin"
    stubs.mkdir()
    for name, count in pods.items():
        (names / f"{name}.ahostsv4").write_text(
            "".join(f"10.0.0.{i + 1}  STREAM {name}\n" for i in range(count))
        )
        if dual_stack:
            (names / f"{name}.ahostsv6").write_text(
                "".join(f"fd00::{i + 1}  STREAM {name}\n" for i in range(count))
            )
    getent = stubs / "getent"
    # `getent ahostsv4|ahostsv6 NAME`: a line per address and socket type, as glibc's; exit 2 for none.
    getent.write_text(
        f'#!/usr/bin/env bash\nf="{names}/${{2%%.*}}.$1"\n[ -s "$f" ] || exit 2\ncat "$f" "$f"\n'
    )
    getent.chmod(0o755)
    script = co.check_script(check, "inference-check-0123abcd", wait_seconds=3, poll_seconds=1)
    env = {**os.environ, "PATH": f"{stubs}:{os.environ['PATH']}", "GATEWAY_HOST": host}
    done = subprocess.run(
        ["bash", "-c", script], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    return done.returncode, done.stdout + done.stderr


TWO = {f"{co.STABLE}-pods": 2, f"{co.WITNESS}-pods": 2}


def test_it_passes_once_routes_scaling_and_the_dcgm_witness_all_hold(
    tmp_path: Path, gateway: Gateway
) -> None:
    code, out = run(tmp_path, plan(gateway), TWO)
    assert code == 0, out
    assert f"gpukit-verify: ok: the Gateway routes a plain request to {co.STABLE_MODEL}" in out
    assert f"ok: the Gateway routes a request with {co.ROUTE_HEADER}: canary to {co.CANARY_MODEL}" in out
    assert "ok: KEDA scaled the simulator from 1 to 2 replicas on its queue depth (2 ready pods" in out
    assert "ok: the store holds a DCGM series of this pod of Job inference-check-0123abcd" in out
    assert out.rstrip().endswith("gpukit-verify: PASS")


def test_a_gateway_that_ignores_the_header_fails_naming_the_canary(tmp_path: Path, gateway: Gateway) -> None:
    gateway.honours_header = False
    code, out = run(tmp_path, plan(gateway), TWO)
    assert code == 1
    assert (
        f"gpukit-verify: FAIL: the Gateway (127.0.0.1:{gateway.port}) did not route a request with "
        f"{co.ROUTE_HEADER}: canary to {co.CANARY_MODEL} within 3s; last answer: HTTP/1.0 200 OK"
    ) in out


def test_an_unreachable_or_failing_gateway_fails_with_its_last_answer(
    tmp_path: Path, gateway: Gateway
) -> None:
    gateway.status = 503
    code, out = run(tmp_path, plan(gateway), TWO)
    assert code == 1 and "last answer: HTTP/1.0 503" in out
    code, out = run(tmp_path, plan(gateway), TWO, host="")
    assert code == 1 and "FAIL: the Gateway reported no address (status.addresses is empty)" in out
    # Nothing listening: the connection's own error is the last answer.
    gateway.status = 200
    closed = co.CheckPlan(5, STORE, GatewayTarget("127.0.0.1", 1), False, HOLDER)
    code, out = run(tmp_path, closed, TWO)
    assert code == 1 and "last answer: " in out and "Connection refused" in out


def test_one_replica_fails_the_scaling_step(tmp_path: Path, gateway: Gateway) -> None:
    code, out = run(tmp_path, plan(gateway), {**TWO, f"{co.STABLE}-pods": 1})
    assert code == 1
    assert (
        "FAIL: KEDA scaled the simulator from 1 to 2 replicas on its queue depth did not happen within 3s: "
        f"1 ready pod(s) behind {co.STABLE}-pods.{co.CHECK_NAMESPACE}.svc.cluster.local, want 2"
    ) in out
    # No address at all (getent exits 2) is 0 ready pods, not a crash of the script.
    code, out = run(tmp_path, plan(gateway), {f"{co.WITNESS}-pods": 2})
    assert code == 1 and "0 ready pod(s) behind" in out


def test_a_dual_stack_pod_counts_once(tmp_path: Path, gateway: Gateway) -> None:
    code, out = run(tmp_path, plan(gateway), {**TWO, f"{co.STABLE}-pods": 1}, dual_stack=True)
    assert code == 1 and "1 ready pod(s) behind" in out
    code, out = run(tmp_path, plan(gateway), TWO, dual_stack=True)
    assert code == 0 and "(2 ready pods after" in out, out


def test_a_witness_left_at_one_fails_the_dcgm_step(tmp_path: Path, gateway: Gateway) -> None:
    code, out = run(tmp_path, plan(gateway), {**TWO, f"{co.WITNESS}-pods": 1})
    assert (
        code == 1 and "FAIL: the store holds a DCGM series of this pod of Job inference-check-0123abcd" in out
    )


def test_only_the_steps_the_stack_has_run(tmp_path: Path, gateway: Gateway) -> None:
    # Gateway only: no pods are counted at all.
    code, out = run(tmp_path, plan(gateway, store=False, holder=False), {})
    assert code == 0 and "KEDA" not in out, out
    # No gateway: no request is made (the address is not looked at).
    code, out = run(tmp_path, plan(None), TWO, host="")
    assert code == 0 and "Gateway" not in out, out


def test_the_rendered_script_is_shellcheck_clean(tmp_path: Path) -> None:
    for i, check in enumerate((plan(Gateway(80)), plan(None, holder=False))):
        path = tmp_path / f"inference-check-{i}.sh"
        path.write_text(co.check_script(check, "inference-check-0123abcd"))
        assert shellcheck_problems(path) == ""

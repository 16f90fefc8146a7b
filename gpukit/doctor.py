"""`gpukit doctor`: the host preflight k3s nodes run before joining, run here by hand.

It renders the very script gpukit runs on SSH hosts (components/k3s/scripts/preflight.sh), runs it with
bash on this machine, and reports what it found. Exit status 0: ready to join as asked; 1: not.
"""

import json
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Any

from gpukit.components.catalog.drivers import CUDA_MIN_DRIVER, branch_of
from gpukit.components.k3s.host_scripts import preflight_script
from gpukit.components.spec import DriverMode

ANY_GPUS = -1
MARKS = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}


@dataclass
class DoctorReport:
    facts: dict[str, str] = field(default_factory=dict)
    checks: list[tuple[str, str]] = field(default_factory=list)
    exit_code: int = 1

    @property
    def ready(self) -> bool:
        return self.exit_code == 0 and not any(status == "fail" for status, _ in self.checks)

    def as_json(self) -> dict[str, Any]:
        return {
            "ready": self.ready,
            "exitCode": 0 if self.ready else 1,
            "facts": typed_facts(self.facts),
            "checks": [{"status": s, "message": m} for s, m in self.checks],
        }


def _count(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None


def _known(text: str | None) -> str | None:
    return None if text in (None, "", "none", "unknown") else text


def typed_facts(f: dict[str, str]) -> dict[str, Any]:
    """The script's facts (all text on the wire) as JSON types: counts as numbers, yes/no as booleans,
    "none"/"unknown" as null, keys in camelCase like plan.json's."""
    has_gpu = _known(f.get("gpu_model")) is not None
    mig = f.get("mig")
    return {
        "os": _known(f.get("os")),
        "kernel": _known(f.get("kernel")),
        "arch": _known(f.get("arch")),
        "nvidiaPciDevices": _count(f.get("nvidia_pci_devices")),
        "driverLoaded": f.get("driver_loaded") == "yes",
        "driverVersion": _known(f.get("driver_version")),
        "gpuCount": _count(f.get("gpu_count")),
        "gpuModel": _known(f.get("gpu_model")),
        "gpuMemoryMib": _count(f.get("gpu_memory_mib")) if has_gpu else None,
        "migCapable": {"capable": True, "not-capable": False}.get(mig or ""),
        "containerToolkit": f.get("container_toolkit") == "yes",
        "rdmaPorts": _count(f.get("rdma_ports")),
        "rdmaActivePorts": _count(f.get("rdma_active_ports")),
        "rdmaLinkLayer": _known(f.get("rdma_link_layer")),
        "rdmaRate": _known(f.get("rdma_rate")),
    }


def parse(output: str, exit_code: int) -> DoctorReport:
    report = DoctorReport(exit_code=exit_code)
    for line in output.splitlines():
        kind, _, rest = line.partition("\t")
        first, _, second = rest.partition("\t")
        if kind == "fact":
            report.facts[first] = second
        elif kind == "check":
            report.checks.append((first, second))
    return report


def run(expect_gpus: int, gpu_model: str, driver: DriverMode, cuda_version: str | None) -> DoctorReport:
    if shutil.which("bash") is None:
        return DoctorReport(checks=[("fail", "bash not found: the preflight is a bash script")])
    branch = branch_of(CUDA_MIN_DRIVER[cuda_version]) if cuda_version else 0
    script = preflight_script(expect_gpus, gpu_model, driver, branch, cuda_version or "", rdma=True)
    result = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=False)
    report = parse(result.stdout, result.returncode)
    if result.returncode not in (0, 1):
        report.checks.append(
            ("fail", f"the preflight script failed (exit {result.returncode}): {result.stderr.strip()}")
        )
    return report


def render(report: DoctorReport, role: str) -> str:
    f = report.facts
    gpus = f.get("gpu_count", "0")
    driver = f.get("driver_version") if f.get("driver_loaded") == "yes" else "not loaded"
    gpu_line = (
        f"{gpus}x {f.get('gpu_model')} ({f.get('gpu_memory_mib')} MiB each)"
        if f.get("gpu_model", "none") != "none"
        else f"none found ({f.get('nvidia_pci_devices', '0')} NVIDIA PCI devices)"
    )
    lines = [
        f"gpukit doctor: this host as {role}",
        f"  OS:                {f.get('os')}, kernel {f.get('kernel')}, {f.get('arch')}",
        f"  GPUs:              {gpu_line}",
        f"  NVIDIA driver:     {driver}",
        f"  container toolkit: {'installed' if f.get('container_toolkit') == 'yes' else 'not found'}",
        f"  MIG:               {f.get('mig')}",
        f"  RDMA NICs:         {_rdma_line(f)}",
        "",
        *(f"  [{MARKS.get(status, status)}] {message}" for status, message in report.checks),
        "",
        "Result: ready to join" if report.ready else "Result: NOT ready to join (exit status 1)",
    ]
    return "\n".join(lines) + "\n"


def _rdma_line(f: dict[str, str]) -> str:
    ports, active = f.get("rdma_ports", "0"), f.get("rdma_active_ports", "0")
    if ports in ("0", ""):
        return "none found"
    return f"{active} of {ports} ports active ({f.get('rdma_link_layer')}, {f.get('rdma_rate')})"


def describe_role(expect_gpus: int, gpu_model: str, driver: DriverMode) -> str:
    if expect_gpus == 0:
        return "a CPU node"
    gpus = "any NVIDIA GPUs" if expect_gpus == ANY_GPUS else f"{expect_gpus}x {gpu_model}"
    return f"a GPU node with {gpus}, driver: {driver.value}"


def print_json(report: DoctorReport) -> str:
    return json.dumps(report.as_json(), indent=2)

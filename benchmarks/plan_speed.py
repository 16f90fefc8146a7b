"""How much `gpukit plan` costs beyond importing the provider SDKs it needs (a benchmark, not a test).

For each stack: the median wall time of `gpukit plan --stack NAME` in a fresh process, and of the
floor, a bare `python -c` that imports exactly the provider SDK modules that plan imported. The ratio
says what gpukit itself adds (config, validation, the mocked program run, rendering); target <= 1.3.

Plan and floor runs alternate, so a machine that slows down during the run slows both alike. gpukit's
own modules are byte-compiled first, as pip installs them and as the SDKs the floor imports are:
where PYTHONDONTWRITEBYTECODE is set (CI machines often set it), an editable checkout would otherwise
re-parse every gpukit module on every run, which no installed gpukit does.

    python benchmarks/plan_speed.py [--runs 5] [STACK ...]      (default: every stacks/Pulumi.*.yaml)
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.3
SDK_PREFIXES = (
    "pulumi_aws",
    "pulumi_gcp",
    "pulumi_kubernetes",
    "pulumi_random",
    "pulumi_tls",
    "pulumi_command",
)

# Plans the stack in-process and prints the provider SDK modules it loaded.
PROBE = """
import json, sys
from gpukit.cli import main
import io, contextlib
with contextlib.redirect_stdout(io.StringIO()):
    rc = main(["plan", "--project", {root!r}, "--stack", {stack!r}])
mods = sorted(m for m in sys.modules if m.split(".")[0] in {prefixes!r})
print(json.dumps({{"rc": rc, "modules": mods}}))
"""


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def sdk_modules(stack: str) -> list[str]:
    probe = PROBE.format(root=str(ROOT), stack=stack, prefixes=SDK_PREFIXES)
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, check=True, capture_output=True, text=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if result["rc"] not in (0, 1):
        raise SystemExit(f"gpukit plan --stack {stack} failed (exit {result['rc']})")
    return list(result["modules"])


def bench(stack: str, runs: int) -> tuple[float, float, list[str]]:
    modules = sdk_modules(stack)
    gpukit = str(Path(sys.executable).parent / "gpukit")
    plan_cmd = [gpukit, "plan", "--project", str(ROOT), "--stack", stack]
    floor_cmd = [sys.executable, "-c", "; ".join(f"import {m}" for m in modules) or "pass"]
    timed(plan_cmd)  # warm the page cache once, for both
    plans, floors = [], []
    for _ in range(runs):  # alternating: drift in the machine's speed reaches both alike
        plans.append(timed(plan_cmd))
        floors.append(timed(floor_cmd))
    return statistics.median(plans), statistics.median(floors), modules


def byte_compile() -> None:
    """gpukit's modules as an installed gpukit has them: compiled once (the SDKs are, by pip)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    folders = [str(ROOT / d) for d in ("components", "providers", "gpukit")]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *folders], cwd=ROOT, env=env, check=True)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("stacks", nargs="*")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    stacks = args.stacks or sorted(
        p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in (ROOT / "stacks").glob("Pulumi.*.yaml")
    )
    byte_compile()
    worst = 0.0
    print(f"{'stack':<12} {'plan s':>7} {'floor s':>8} {'ratio':>6}  provider SDKs imported")
    for stack in stacks:
        plan, floor, modules = bench(stack, args.runs)
        ratio = plan / floor
        worst = max(worst, ratio)
        roots = sorted({m.split(".")[0] for m in modules})
        print(
            f"{stack:<12} {plan:7.2f} {floor:8.2f} {ratio:6.2f}  {', '.join(roots)} ({len(modules)} modules)"
        )
    print(f"worst ratio {worst:.2f} (target <= {TARGET})")
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())

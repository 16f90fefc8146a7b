"""The spine stays layered and acyclic (docs/architecture.md): the import contracts in pyproject.toml
hold, every gpukit module sits in a layer of them, and no import, deferred or TYPE_CHECKING-only, closes
a cycle."""

import subprocess
import sys
import tomllib
from pathlib import Path

import grimp

from harness import ROOT

# Package inits that sit above the layers: gpukit/__init__.py is the composition root (it hands the
# providers' registry to the seam), gpukit/components/__init__.py the library's lazy facade. Nothing
# imports them from below (the contracts would say so).
UNLAYERED = frozenset({"gpukit", "gpukit.components"})


def _contracts() -> list[dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts: list[dict[str, object]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def _layered_modules() -> list[str]:
    spine = next(c for c in _contracts() if c["id"] == "spine")
    layers = spine["layers"]
    assert isinstance(layers, list)
    return [name.strip() for layer in layers for name in layer.replace("|", ":").split(":")]


def _graph() -> grimp.ImportGraph:
    return grimp.build_graph("gpukit", cache_dir=None)


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_import_contracts_hold() -> None:
    lint_imports = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Contracts: {len(_contracts())} kept, 0 broken." in result.stdout


def test_every_module_sits_in_a_layer() -> None:
    """A new package or top-level module must be placed in the spine (pyproject.toml), not left free."""
    layered = _layered_modules()
    unplaced = sorted(
        module
        for module in _graph().modules
        if module not in UNLAYERED
        and not any(module == layer or module.startswith(f"{layer}.") for layer in layered)
    )
    assert unplaced == [], f"place these in a layer of the `spine` contract (pyproject.toml): {unplaced}"


def test_no_module_imports_itself_back_through_others() -> None:
    """0 import cycles among gpukit's modules, counting TYPE_CHECKING and function-level imports: a
    deferred import can make a stack load lazily, never hide a cycle."""
    assert _cycles(_graph()) == []


def test_the_cycle_count_sees_a_cycle() -> None:
    """The counter itself: a graph with one two-module cycle has one."""
    graph = grimp.ImportGraph()
    for module in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        graph.add_module(module)
    graph.add_import(importer="pkg.a", imported="pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.a")
    graph.add_import(importer="pkg.c", imported="pkg.a")
    assert _cycles(graph) == [["pkg.a", "pkg.b"]]


def test_the_registries_and_the_checks_load_without_pulumi() -> None:
    """Every command loads the substrates' and the add-ons' registries, and resolving, preflight and
    costs need no Pulumi: a module either keeps Pulumi out of what it imports at load time, or defers
    the import to where it builds (`gpukit catalog` or a config error stays quick)."""
    probe = (
        "import sys, gpukit, gpukit.components.addons.registry, gpukit.components.resolve.config, "
        "gpukit.components.preflight, gpukit.components.costs\n"
        "print(sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0].startswith('pulumi')}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


ADDONS = "gpukit.components.addons"
SEAM = {f"{ADDONS}.base", f"{ADDONS}.registry", f"{ADDONS}.build"}
"""What everything may import of the add-ons: the seam, the registry and the build loop."""


def _addon_folders(graph: grimp.ImportGraph) -> list[str]:
    return sorted(m for m in graph.find_children(ADDONS) if m not in SEAM)


def test_each_addon_stands_alone() -> None:
    """An add-on imports no other add-on (it names the ones it waits for in `after`); a new folder is
    covered without editing the contracts."""
    graph = _graph()
    folders = _addon_folders(graph)
    assert len(folders) >= 3
    crossings = [
        (a, b)
        for a in folders
        for b in folders
        if a != b and graph.chain_exists(importer=a, imported=b, as_packages=True)
    ]
    assert crossings == []


def test_generic_code_names_no_addon() -> None:
    """Resolution, preflight, costs, GpuCluster, the program, the plan and `gpukit verify` reach add-ons
    through the registry only: none imports an add-on's folder."""
    graph = _graph()
    generic = [
        "gpukit.components.resolve",
        "gpukit.components.preflight",
        "gpukit.components.budget",
        "gpukit.components.costs",
        "gpukit.components.cluster",
        "gpukit.program",
        "gpukit.plan",
        "gpukit.verify",
    ]
    named = sorted(
        (importer, imported)
        for package in generic
        for importer in {package, *graph.find_descendants(package)}
        for imported in graph.find_modules_directly_imported_by(importer)
        if imported.startswith(f"{ADDONS}.")
        and not any(imported == s or imported.startswith(f"{s}.") for s in SEAM)
    )
    assert named == []

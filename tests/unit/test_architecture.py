"""The structure the code keeps: components/ never imports providers/, no platform chains outside the
substrates, every provider package has the same files, and substrate key declarations match the schema."""

import ast
from pathlib import Path

import pytest

from gpukit.components.resolve.keys import unclaimed_keys, undeclared_keys
from gpukit.components.spec import Platform, Provider
from gpukit.components.substrate import Substrate, registry
from harness import ROOT

COMPONENTS, PROVIDERS = ROOT / "components", ROOT / "providers"
CODE = [*COMPONENTS.rglob("*.py"), *PROVIDERS.rglob("*.py"), *(ROOT / "gpukit").glob("**/*.py")]
CODE = [p for p in CODE if "gpukit/components" not in p.as_posix() and "gpukit/providers" not in p.as_posix()]
PROVIDER_PACKAGES = sorted(p for p in PROVIDERS.iterdir() if (p / "__init__.py").is_file())
# The files every provider package has (providers/__init__.py says what each holds).
PROVIDER_FILES = {
    "__init__.py",
    "substrate.py",
    "config.py",
    "catalog.py",
    "validation.py",
    "charges.py",
    "fakes.py",
}


def imported_modules(path: Path) -> list[str]:
    modules = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.append(node.module)
    return modules


@pytest.mark.parametrize("path", sorted(COMPONENTS.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_components_import_nothing_from_providers(path: Path) -> None:
    """The interfaces components consume live in components/; the registry is handed over by gpukit."""
    assert [m for m in imported_modules(path) if m.split(".")[:2] == ["gpukit", "providers"]] == []


SUBSTRATE_WORDS = {
    *(p.value for p in Platform),
    *(p.value for p in Provider),
    *(s.name for s in registry()),
}


def platform_chains(path: Path) -> list[str]:
    """Comparisons with, and tables keyed by, a Platform or Provider member: the `if platform == ...`
    chains a substrate's own methods replace. Outside providers/, also a literal that names a platform,
    provider or substrate (`"eks"`); inside, a provider package naming its own cloud is its business
    (`providers={"aws": provider}`)."""
    literals = PROVIDERS not in path.parents

    def is_member(node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return literals and node.value in SUBSTRATE_WORDS
        return (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in ("Platform", "Provider")
        )

    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Compare) and any(is_member(n) for n in (node.left, *node.comparators)):
            found.append(f"{path.name}:{node.lineno} compares with a platform or provider")
        elif isinstance(node, ast.Dict) and any(k is not None and is_member(k) for k in node.keys):
            found.append(f"{path.name}:{node.lineno} keys a table by platform or provider")
        elif isinstance(node, ast.Match):
            found.append(f"{path.name}:{node.lineno} matches on a value")
    return found


def test_no_platform_chain_outside_the_substrates() -> None:
    chains = [chain for path in CODE for chain in platform_chains(path)]
    assert chains == []


def test_the_chain_finder_finds_chains(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "if cluster['platform'] == Platform.EKS:\n    pass\nX = {Provider.GCP: 'present'}\n"
        "if substrate.name == 'k3s-aws':\n    pass\n"
    )
    assert len(platform_chains(sample)) == 3


@pytest.mark.parametrize("package", PROVIDER_PACKAGES, ids=lambda p: p.name)
def test_every_provider_package_has_the_same_files(package: Path) -> None:
    assert {p.name for p in package.glob("*.py")} >= PROVIDER_FILES


def test_substrate_key_declarations_match_the_schema() -> None:
    assert undeclared_keys() == [], "keys substrates declare that the schema does not mark specific"
    assert unclaimed_keys() == [], "substrate-specific schema keys no substrate takes"


def test_a_substrate_that_forgets_a_method_is_refused_when_registered() -> None:
    from gpukit.components.substrate import SubstrateRegistry
    from gpukit.providers.ssh.substrate import K3sSshSubstrate

    class Forgetful(K3sSshSubstrate):
        build = Substrate.build  # as if the subclass had none

    with pytest.raises(TypeError, match="substrate 'k3s-ssh' does not implement build"):
        SubstrateRegistry(Forgetful())

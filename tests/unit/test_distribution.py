"""What pip installs: every file gpukit reads at run time beside its modules is package data."""

import tomllib

from harness import ROOT


def test_every_script_folder_ships_in_the_distribution() -> None:
    """The host scripts are read from files next to the code that renders them: a folder of scripts
    that package-data leaves out works in this checkout and fails in an installed gpukit."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    folders = {
        path.parent.parent.relative_to(ROOT)
        for tree in ("components", "providers")
        for path in (ROOT / tree).glob("**/scripts/*.sh")
    }
    assert folders
    for folder in sorted(folders):
        package = "gpukit." + ".".join(folder.parts)
        assert "scripts/*.sh" in data.get(package, []), f"{package}: add scripts/*.sh to package-data"

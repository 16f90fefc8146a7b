"""The safety net for refactors: each example stack's whole `gpukit plan --out` result against its golden.

tests/golden/plans/<stack>/ holds the text report, plan.json, every manifest and every boot file, with
host script bodies folded into markers (tests/plan_golden.py) and each body goldened once under
tests/golden/plans/scripts/. After an intended change: `make golden`, then review the diff.
"""

from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import GOLDEN, PlannedStack
from harness import STACKS
from plan_golden import reviewable, script_goldens

PLANS = GOLDEN / "plans"


def compare_tree(folder: Path, files: dict[str, str], update: bool) -> None:
    """Every file of `files` equals its golden under `folder`, and the folder holds no other file."""
    if update:
        for stale in (p for p in folder.rglob("*") if p.is_file()):
            stale.unlink()
        for relative, text in files.items():
            (folder / relative).parent.mkdir(parents=True, exist_ok=True)
            (folder / relative).write_text(text)
        return
    goldens = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert goldens == set(files), (
        f"{folder.name}: files differ from the goldens: new {sorted(set(files) - goldens)}, "
        f"gone {sorted(goldens - set(files))}; review, then `make golden`"
    )
    changed = [relative for relative, text in files.items() if (folder / relative).read_text() != text]
    assert changed == [], (
        f"{folder.name}: these differ from their goldens: {changed}; review, then `make golden`"
    )


@pytest.mark.parametrize("stack", STACKS)
def test_whole_plan_matches_its_golden(
    stack: str, planned_stack: Callable[[str], PlannedStack], request: pytest.FixtureRequest
) -> None:
    plan = planned_stack(stack)
    assert plan.code == 0, f"{stack} should plan cleanly"
    update = request.config.getoption("--update-golden")
    compare_tree(PLANS / stack, reviewable(plan.out, plan.report), update)


def test_each_host_script_body_is_goldened_once(request: pytest.FixtureRequest) -> None:
    compare_tree(PLANS / "scripts", script_goldens(), request.config.getoption("--update-golden"))

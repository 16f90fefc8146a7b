"""`gpukit plan --program DIR`: one's own Pulumi program, planned offline as Pulumi would run it.

The program's folder (Pulumi.yaml's `main`, else the project folder) comes first on sys.path and is
the working folder while it runs, as under the Pulumi CLI, so its own modules (a `components/`
package of its own included) import as they do there. gpukit's own modules all live under `gpukit.`,
so nothing of the program's can shadow them.
"""

import contextlib
import os
import runpy
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

import pulumi

from gpukit.components.errors import ConfigError, MissingExtraError
from gpukit.components.name_rules import ResourceNameError
from gpukit.plan.engine import ProgramPlan, plan_program
from gpukit.plan.stack_file import LoadedStack, Project, StackFileError


class ProgramError(Exception):
    """The program failed for a reason of its own (its `str()` says which, in one line)."""


@contextlib.contextmanager
def _running_in(folder: Path) -> Iterator[None]:
    previous_cwd, previous_path = Path.cwd(), list(sys.path)
    sys.path.insert(0, str(folder))
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(previous_cwd)
        sys.path[:] = previous_path


def plan_project(project: Project, stack: LoadedStack) -> ProgramPlan:
    """Run `project`'s program with `stack`'s config under gpukit's mock engine.

    gpukit's own errors (ConfigError, MissingExtraError, ResourceNameError) pass through; a missing
    config value or a RunError the program raises becomes a ProgramError; any other exception is the
    program's own bug: its traceback is printed, then a ProgramError.
    """
    if not project.main.is_file():
        raise StackFileError(f"{project.main}: no program to plan (Pulumi.yaml `main`, or __main__.py)")

    def program() -> None:
        runpy.run_path(str(project.main), run_name="__main__")

    try:
        with _running_in(project.main.parent):
            return plan_program(
                program, stack.config, secret_keys=stack.secret_keys, project=project.name, stack=stack.name
            )
    except (ConfigError, MissingExtraError, ResourceNameError):
        raise
    except (pulumi.ConfigMissingError, pulumi.RunError) as err:
        raise ProgramError(f"{project.main}: {err}") from None
    except Exception as err:
        traceback.print_exc(file=sys.stderr)
        raise ProgramError(
            f"{project.main} failed ({type(err).__name__}: {err}); see the traceback above"
        ) from None

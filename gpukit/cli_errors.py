"""How every `gpukit` command reports a failure, in text or as JSON, with the same exit status.

Text goes to stderr: `gpukit: <error>` and one indented line per problem. With `--json` the same goes
to stdout as one JSON object, so a script reads the plan, the listing or the failure from one place:

    {"error": "<what failed>", "problems": [{"key": "<config key or flag>", "message": "..."}],
     "exitCode": <the status the command exits with>}

`problems` is empty where the failure is not about particular keys (a stack file that is not there).

Every problem goes out through components/errors.py's problem_line (the one sanitiser, `printable`):
one line each, control and bidi characters escaped, in text and JSON alike. The error itself keeps
the line breaks its own text has (a YAML parser's or the Pulumi CLI's multi-line message); each of its
lines is printable too.
"""

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from gpukit.components.errors import printable, problem_line

EXIT_PREFLIGHT = 1
EXIT_INVALID = 2


@dataclass(frozen=True)
class CliProblem:
    key: str
    """The config key (`gpukit:nodePools[1].zones[0]`) or flag (`--region`) at fault."""
    message: str


def _headline(error: str) -> str:
    """The error as shown: its own line breaks kept, each line printable."""
    return "\n".join(printable(line) for line in error.split("\n"))


def error_document(error: str, problems: Sequence[CliProblem], exit_code: int) -> dict[str, object]:
    return {
        "error": _headline(error),
        "problems": [{"key": printable(p.key), "message": printable(p.message)} for p in problems],
        "exitCode": exit_code,
    }


def report_error(
    error: str, *, as_json: bool, exit_code: int = EXIT_INVALID, problems: Sequence[CliProblem] = ()
) -> int:
    """Print the failure (JSON on stdout, or text on stderr); the exit status to return."""
    if as_json:
        print(json.dumps(error_document(error, problems, exit_code), indent=2))
    else:
        print(f"gpukit: {_headline(error)}", file=sys.stderr)
        for problem in problems:
            print(f"  {problem_line(problem.key, problem.message)}", file=sys.stderr)
    return exit_code

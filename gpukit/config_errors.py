"""How the CLI's commands report a config that cannot be used: one message per problem, exit 2."""

from gpukit.cli_errors import EXIT_INVALID, CliProblem, report_error
from gpukit.components.errors import ConfigError

__all__ = ["EXIT_INVALID", "report_invalid_config"]


def report_invalid_config(where: str, err: ConfigError, as_json: bool = False) -> int:
    """Every problem of `err` under the file it came from (stderr, or JSON on stdout); the exit status."""
    return report_error(
        f"invalid configuration in {where}",
        as_json=as_json,
        problems=[CliProblem(p.key, p.message) for p in err.problems],
    )

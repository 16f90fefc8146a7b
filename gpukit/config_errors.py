"""How the CLI's commands report a config that cannot be used: one message per problem, exit 2."""

import sys

from gpukit.components.errors import ConfigError

EXIT_INVALID = 2


def report_invalid_config(where: str, err: ConfigError) -> int:
    """Print every problem of `err` under the file it came from (stderr); the exit status to return."""
    print(f"gpukit: invalid configuration in {where}:", file=sys.stderr)
    for problem in err.problems:
        print(f"  {problem}", file=sys.stderr)
    return EXIT_INVALID

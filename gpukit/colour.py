"""Colour for what the CLI prints on a terminal: plain text when piped, redirected or NO_COLOR is set.

The reports stay plain text (goldens, pipes, `--out` files hold exactly what a terminal shows, minus
the colour); on a terminal their lines get styles by what they are: the verdict, section titles, table
headers, severities, fixes and missing prices. `rich` (a well-kept library) writes the escape codes,
and is imported only when colour is on, so a piped plan never pays for the import.

NO_COLOR (https://no-color.org): present and not empty, it turns colour off whatever the terminal.
"""

import os
import re
from typing import TextIO

# Most specific first: a later style on the same characters wins in rich, so general ones go first.
STYLES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.MULTILINE), style)
    for pattern, style in (
        (r"^\S[^\n]*:$", "bold"),  # section titles: "GPU pools:", "Preflight:", "Cost (...):"
        (r"^gpukit plan: [^\n]*$", "bold"),
        (r"^[^\n]+(?=\n-+(?:  -+)*$)", "bold cyan"),  # a table's header: the line above its rule
        (r"^-+(?:  -+)*$", "dim"),
        (r"^  error: ", "bold red"),
        (r"^  warning: ", "yellow"),
        (r"^  info: ", "cyan"),
        (r"^ +fix: ", "green"),
        (r"no price for \S+|NO PRICE|\bn/a\b", "yellow"),
        (r"^Result: ready to `pulumi up`$", "bold green"),
        (r"^Result: \d+ preflight error\(s\)$", "bold red"),
    )
)


def colour_wanted(stream: TextIO) -> bool:
    """Colour only on a terminal, never with NO_COLOR set (to anything but empty) or TERM=dumb."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def write(text: str, stream: TextIO) -> None:
    """`text` on `stream`: as is, or styled where colour is wanted (same characters, same lines)."""
    if not colour_wanted(stream):
        stream.write(text)
        return
    from rich.console import Console
    from rich.text import Text

    styled = Text(text)
    for pattern, style in STYLES:
        styled.highlight_regex(pattern, style)
    # soft_wrap: rich must not re-wrap long lines; the text is laid out already.
    Console(file=stream, force_terminal=True, highlight=False, soft_wrap=True).print(styled, end="")

"""Whole-plan goldens: every file `gpukit plan --out` writes, plus the text report, in reviewable form.

A plan embeds gpukit's host scripts many times (in each machine's user data, in each SSH command), so
the goldens fold every script body into a marker that names it, and keep what differs per machine:
the rendered variables above each body and the structure around it. Each body is goldened once,
under scripts/. Base64 user data in plan.json is replaced by the boot file it decodes to plus the
sha256 of the exact value. Folding replaces only exact, known text, so a golden that matches
proves the plan byte-identical, and a diff shows only what changed.
"""

import base64
import binascii
import gzip
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from harness import ROOT

# Every host script body: the shared ones, and those a provider keeps with its own code.
SCRIPT_SOURCES = [
    *(ROOT / "components").glob("**/scripts/*.sh"),
    *(ROOT / "providers").glob("**/scripts/*.sh"),
]
SCRIPTS_DIR = "scripts"


def _marker(name: str) -> str:
    return f"«{SCRIPTS_DIR}/{name}»"


def _bodies() -> list[tuple[str, str]]:
    """(file name, body) of every host script, longest first so that no body hides inside another."""
    bodies = [(p.name, p.read_text()) for p in SCRIPT_SOURCES]
    return sorted(bodies, key=lambda item: (-len(item[1]), item[0]))


def _indented(body: str, indent: str) -> str:
    """A body as a YAML literal block holds it: each non-empty line indented."""
    return "".join(indent + line if line.strip("\n") else line for line in body.splitlines(keepends=True))


def fold_scripts(text: str) -> str:
    """Replace each host script body in `text` (as written, shell-quoted, or YAML-indented) by a marker."""
    for name, body in _bodies():
        marker = _marker(name)
        text = text.replace(body, marker + "\n")
        # k3s over SSH: the command line carries the script inside shlex.quote's single quotes.
        text = text.replace(body.replace("'", "'\"'\"'"), marker + "\n")
        first = re.escape(body.splitlines()[0])
        for indent in sorted(set(re.findall(rf"^( +){first}$", text, flags=re.MULTILINE)), key=len):
            text = text.replace(_indented(body, indent), f"{indent}{marker}\n")
    return text


def _decoded(value: str) -> bytes | None:
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None
    return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw


def _fold_value(value: Any, boot: dict[str, str]) -> Any:
    """Boot text (plain, or base64 as EC2 takes it) -> the boot/ file it equals; scripts folded."""
    if isinstance(value, dict):
        return {k: _fold_value(v, boot) for k, v in value.items()}
    if isinstance(value, list):
        return [_fold_value(v, boot) for v in value]
    if not isinstance(value, str):
        return value
    if value in boot:
        return f"«the text of {boot[value]}»"
    decoded = _decoded(value) if len(value) > 200 else None
    text = decoded.decode(errors="replace") if decoded is not None else None
    if text is not None and text in boot:
        gzipped = " gzipped," if base64.b64decode(value)[:2] == b"\x1f\x8b" else ""
        digest = hashlib.sha256(value.encode()).hexdigest()[:16]
        return f"«base64,{gzipped} of the text of {boot[text]}; sha256 {digest}»"
    return fold_scripts(value)


def fold_plan_json(text: str, boot: dict[str, str]) -> str:
    """plan.json with boot text replaced by the boot/ file it equals and script bodies folded."""
    document = json.loads(text)
    return json.dumps(_fold_value(document, boot), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def reviewable(out: Path, report: str) -> dict[str, str]:
    """Relative path -> golden text, for one plan's --out folder and its text report."""
    texts = {p.relative_to(out).as_posix(): p.read_text() for p in sorted(out.rglob("*")) if p.is_file()}
    boot = {text: path for path, text in texts.items() if path.startswith("boot/")}
    files = {"report.txt": report}
    for path, text in texts.items():
        files[path] = fold_plan_json(text, boot) if path == "plan.json" else fold_scripts(text)
    return files


def script_goldens() -> dict[str, str]:
    """Each host script body, once."""
    return dict(sorted(_bodies()))

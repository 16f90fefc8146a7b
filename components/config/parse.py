"""The parser: raw `gpukit:*` values (a stack file's, or GpuCluster args turned back into one) against
the schema (components/config/schema.py), into snake_case attrs. Structure only: unknown keys with a
did-you-mean, missing keys, types, closed sets, and keys of capabilities not built yet. Every problem is
collected, none raised."""

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpukit.components.catalog.lookup import suggest
from gpukit.components.config.schema import NAMESPACE, TOP_LEVEL_FIELDS, Field, child_key
from gpukit.components.errors import Problem

_KIND_NAMES: dict[str, str] = {
    "str": "a string",
    "input": "a string (from Python: a string or a pulumi.Output)",
    "secret": "a string (from Python: a string or a secret Output)",
    "int": "an integer",
    "number": "a number",
    "bool": "true or false",
    "list[str]": "a list of strings",
    "map[str]": "a mapping of strings to strings",
    "map[int]": "a mapping of strings to integers",
    "object": "a mapping",
    "list[object]": "a list of mappings",
}


def is_output(value: Any) -> bool:
    """A pulumi.Output (or anything that resolves like one), told apart without importing pulumi: the
    parser runs for `gpukit plan` on a stack file too."""
    return hasattr(value, "apply") and not isinstance(value, str | bytes | Mapping | list)


def missing_problem(key: str, field: Field) -> Problem:
    """The parser's message for a missing required key, for keys only some platforms require."""
    return Problem(key, f"required key is missing ({field.description})")


def _type_problem(field: Field, key: str, value: Any) -> Problem:
    if is_output(value):  # GpuCluster from Python: say why this key cannot wait for a resource
        return Problem(
            key,
            f"must be {_KIND_NAMES[field.kind]}, got a pulumi.Output: gpukit checks this value, or names "
            "resources by it, before anything is created, so it must be plain (the keys that take an "
            "Output: docs/own-program.md)",
        )
    if field.kind == "secret":  # the value may be the secret itself: say only what type it has
        return Problem(key, f"must be {_KIND_NAMES[field.kind]}, got {_type_name(value)}")
    hint = ""
    if (
        field.kind in ("str", "input", "secret")
        and isinstance(value, int | float)
        and not isinstance(value, bool)
    ):
        # YAML has already turned 1.30 into 1.3 here, so say what happened rather than guess digits.
        hint = "; YAML read an unquoted number: quote the value as written in the file"
    return Problem(key, f"must be {_KIND_NAMES[field.kind]}{hint}, got {value!r}")


def _type_name(value: Any) -> str:
    """`a list`, `an integer`: a value's type, in the words _KIND_NAMES uses."""
    if isinstance(value, bool):
        return "a boolean"
    for kind, words in (
        (int, "an integer"),
        (float, "a number"),
        (dict, "a mapping"),
        (list, "a list"),
        (str, "a string"),
    ):
        if isinstance(value, kind):
            return words
    return "null" if value is None else f"a {type(value).__name__}"


def _did_you_mean(key: str, known: list[str]) -> str:
    close = suggest(key, known, n=1)
    if close:
        return f"did you mean '{close[0]}'?"
    return "allowed keys: " + ", ".join(known)


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class TextProblem(Problem):
    """A string with surrounding whitespace or control characters. The value is kept, and its section
    still gets its meaning checks (components/resolve/config.py): those name what the value must look
    like (an AZ ID, an IAM ARN), and every one of them matches whole strings, so it is refused there too."""


def text_problem(key: str, text: str) -> Problem | None:
    """What is wrong with a one-line config string, or None.

    Applied to every `str` and `list[str]` value (maps are their substrate's to check). Every gpukit
    string is one line (names, ids, CIDRs, versions, ARNs, host keys; only the secret SSH key spans
    lines, and it is not checked here). Surrounding whitespace and control characters are refused, not
    stripped: a YAML block scalar (`>` or `|`) keeps a trailing newline, and `name\n` would otherwise
    reach a cloud API, a tag or a script as written. Refusing with the key named shows the user the
    value gpukit would have used instead of silently changing it.
    """
    if text != text.strip():
        where = "a trailing newline" if text.rstrip(" \t") != text.rstrip() else "whitespace around it"
        return TextProblem(
            key,
            f"has {where}; remove it (a YAML `>` or `|` block keeps a final newline: use `>-`, `|-` or a "
            f"plain scalar); got {text!r}",
        )
    if _CONTROL.search(text):
        return TextProblem(key, f"must be one line without control characters (tabs, newlines); got {text!r}")
    return None


def _checked_text(key: str, text: str, problems: list[Problem]) -> None:
    found = text_problem(key, text)
    if found is not None:
        problems.append(found)


def _parse_value(field: Field, key: str, value: Any, problems: list[Problem]) -> Any:
    kind = field.kind
    if kind == "str":
        if not isinstance(value, str):
            problems.append(_type_problem(field, key, value))
            return None
        _checked_text(key, value, problems)
        if field.choices is not None:
            allowed = [c.value for c in field.choices]
            if value not in allowed:
                problems.append(Problem(key, f"must be one of {', '.join(allowed)}; got {value!r}"))
                return None
            return field.choices(value)
        return value
    if kind == "input":
        # From Python, the name of the user's own resource (their bucket's `.bucket`): it stays unread,
        # every check of the value skips it (it names a resource that exists by construction), and the
        # resources that take it take an Input.
        if is_output(value):
            return value
        if not isinstance(value, str):
            problems.append(_type_problem(field, key, value))
            return None
        _checked_text(key, value, problems)
        return value
    if kind == "secret":
        # A stack file's value is a string (or a placeholder for an encrypted one); from Python it may
        # be a pulumi.Output, which stays unread: only the hosts' SSH connections ever see it.
        if not (isinstance(value, str) or is_output(value)):
            problems.append(_type_problem(field, key, value))
            return None
        return value
    if kind == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            problems.append(_type_problem(field, key, value))
            return None
        return value
    if kind == "number":
        if not isinstance(value, int | float) or isinstance(value, bool):
            problems.append(_type_problem(field, key, value))
            return None
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            problems.append(_type_problem(field, key, value))
            return None
        return value
    if kind == "list[str]":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            problems.append(_type_problem(field, key, value))
            return None
        for i, item in enumerate(value):
            _checked_text(f"{key}[{i}]", item, problems)
        return list(value)
    if kind == "map[str]":
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            problems.append(_type_problem(field, key, value))
            return None
        # Map keys and values (tags, k3sSha256) are not checked here: each substrate checks them whole
        # against its provider's own character set (AWS tags, Google Cloud labels, SHA-256 digits),
        # which refuses a newline too, with the message that says what the provider takes.
        return dict(value)
    if kind == "map[int]":
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) for k, v in value.items()
        ):
            problems.append(_type_problem(field, key, value))
            return None
        return dict(value)
    if kind == "object":
        if not isinstance(value, dict):
            problems.append(_type_problem(field, key, value))
            return None
        return parse_object(value, field.fields, key, problems)
    # list[object]
    if not isinstance(value, list):
        problems.append(_type_problem(field, key, value))
        return None
    items = []
    for index, item in enumerate(value):
        item_key = f"{key}[{index}]"
        if not isinstance(item, dict):
            problems.append(Problem(item_key, f"must be a mapping, got {item!r}"))
            continue
        items.append(parse_object(item, field.fields, item_key, problems))
    return items


def parse_object(
    raw: Mapping[str, Any], fields: tuple[Field, ...], prefix: str, problems: list[Problem]
) -> dict[str, Any]:
    """Parse one mapping against its fields; returns snake_case attrs, appends to `problems`."""
    known = [f.key for f in fields if f.planned is None]
    by_key = {f.key: f for f in fields}
    out: dict[str, Any] = {}
    for key in raw:
        if key not in by_key:
            problems.append(Problem(child_key(prefix, key), f"unknown key; {_did_you_mean(str(key), known)}"))
    for field in fields:
        key = child_key(prefix, field.key)
        if field.key not in raw:
            if field.planned is not None:
                continue
            if field.required:
                problems.append(missing_problem(key, field))
            elif field.default is not None:
                out[field.attr] = _parse_value(field, key, field.default, problems)
            continue
        if field.planned is not None:
            problems.append(
                Problem(
                    key,
                    f"{field.planned} is not built yet in this version of gpukit; remove the key "
                    "(it is rejected rather than silently ignored)",
                )
            )
            continue
        value = _parse_value(field, key, raw[field.key], problems)
        if value is not None:
            out[field.attr] = value
    return out


def parse_namespace(config: Mapping[str, Any], problems: list[Problem]) -> dict[str, Any]:
    """Parse every `gpukit:*` key of a flat stack config into snake_case attrs."""
    own = {k.split(":", 1)[1]: v for k, v in config.items() if k.startswith(f"{NAMESPACE}:")}
    return parse_object(own, TOP_LEVEL_FIELDS, f"{NAMESPACE}:", problems)

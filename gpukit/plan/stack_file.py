"""Read a Pulumi project and its stack files the way the Pulumi CLI hands config to a program, minus
the CLI.

- YAML as the CLI reads it (Go's yaml.v3, YAML 1.2 booleans): `yes`, `no`, `on` and `off` are strings,
  so are timestamps and `1:30`; only `true`/`false` are booleans. PyYAML's default (YAML 1.1) would
  turn `yes` into True, and a plan would accept what `pulumi up` refuses.
- `Pulumi.yaml`'s config defaults apply to keys a stack file leaves out, as the CLI applies them.
- Keys without a namespace belong to the project.
- Encrypted (`secure:`) values cannot be decrypted without the stack's passphrase or KMS key, and a
  plan must not need either: each becomes a secret placeholder, marked secret like the CLI marks it.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

PLACEHOLDER_PREFIX = "gpukit-plan-secret-placeholder"


class StackFileError(Exception):
    """A project or stack file that cannot be read as Pulumi reads it (exit 2, like invalid config)."""


class PulumiYamlLoader(yaml.SafeLoader):
    """YAML with the scalar rules of the Pulumi CLI's parser (gopkg.in/yaml.v3)."""


PulumiYamlLoader.yaml_implicit_resolvers = {}
for _tag, _pattern, _first in (
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    # yaml.v3 drops underscores and parses with Go's base prefixes (0x, 0o, 0b, and a leading 0 for octal).
    ("int", r"^[-+]?(?:0[bB][01_]+|0[oO]?[0-7_]+|0[xX][0-9a-fA-F_]+|[1-9][0-9_]*|0)$", "-+0123456789"),
    (
        "float",
        r"^(?:[-+]?(?:\.[0-9_]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+.0123456789",
    ),
    ("merge", r"^(?:<<)$", "<"),
):
    PulumiYamlLoader.add_implicit_resolver(f"tag:yaml.org,2002:{_tag}", re.compile(_pattern), list(_first))


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = str(loader.construct_scalar(node)).replace("_", "")
    sign = -1 if text.startswith("-") else 1
    digits = text.lstrip("+-")
    base = 10
    if digits[:2].lower() in ("0x", "0o", "0b"):
        base, digits = {"x": 16, "o": 8, "b": 2}[digits[1].lower()], digits[2:]
    elif len(digits) > 1 and digits.startswith("0"):
        base = 8  # Go reads 0755 as octal, as YAML 1.1 did
    return sign * int(digits, base)


PulumiYamlLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    """A mapping whose keys are unique, as yaml.v3 requires: it refuses a key written twice in one
    mapping ("line N: mapping key "name" already defined at line M", go-yaml v3 decode.go,
    decoder.mapping), where PyYAML keeps the last value silently and a plan would show a value the
    Pulumi CLI never reads. Keys compare as written, as yaml.v3 compares them."""
    seen: dict[str, int] = {}
    for key_node, _ in node.value:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
            continue
        if key_node.value in seen:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"mapping key {key_node.value!r} already defined at line {seen[key_node.value]} (the Pulumi "
                "CLI refuses a key written twice in one mapping); keep one",
                key_node.start_mark,
            )
        seen[key_node.value] = key_node.start_mark.line + 1
    return loader.construct_mapping(node, deep=True)


def _construct_binary(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> str:
    """`!!binary`: yaml.v3 decodes the base64 into the string it holds; so does the plan."""
    raw = loader.construct_yaml_binary(node)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise yaml.constructor.ConstructorError(
            None, None, "a !!binary value must hold UTF-8 text (a config value is a string)", node.start_mark
        ) from None


PulumiYamlLoader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)
PulumiYamlLoader.add_constructor("tag:yaml.org,2002:binary", _construct_binary)


def load_yaml(text: str) -> Any:
    """A YAML document as the Pulumi CLI reads it."""
    return yaml.load(text, Loader=PulumiYamlLoader)


def _read_yaml_file(path: Path, missing: str) -> Any:
    """A project or stack file's document (None for an empty file); StackFileError saying `missing`
    where there is no such file, or what is wrong where it is not YAML."""
    try:
        return load_yaml(path.read_text())
    except FileNotFoundError:
        raise StackFileError(missing) from None
    except yaml.YAMLError as err:
        raise StackFileError(f"{path} is not valid YAML: {err}") from None


@dataclass
class LoadedStack:
    name: str
    path: Path
    config: dict[str, Any]
    """Full keys (`gpukit:cluster`, `aws:region`) to decoded YAML values."""
    secret_keys: list[str] = field(default_factory=list)
    defaulted_keys: frozenset[str] = frozenset()
    """Keys the stack file leaves out, whose values are the project's defaults (a copy of the stack
    that changes a default must know the stack never chose it)."""


@dataclass(frozen=True)
class Project:
    """What a program's Pulumi.yaml says about its config."""

    root: Path
    name: str
    stack_config_dir: Path
    defaults: dict[str, Any]
    """Full keys to the defaults its `config:` block declares."""
    main: Path
    """The program's entry file."""


def find_project_root(start: Path) -> Path:
    """The nearest folder at or above `start` that holds Pulumi.yaml."""
    for folder in (start, *start.parents):
        if (folder / "Pulumi.yaml").is_file():
            return folder
    raise StackFileError(f"no Pulumi.yaml in {start} or any folder above it; run gpukit from the project")


def _qualified(project: str, key: str) -> str:
    return key if ":" in key else f"{project}:{key}"  # bare keys belong to the project


def load_project(root: Path) -> Project:
    path = root / "Pulumi.yaml"
    settings = _read_yaml_file(path, f"no Pulumi.yaml in {root}") or {}
    if not isinstance(settings, dict) or not isinstance(settings.get("name"), str):
        raise StackFileError(f"{path}: expected a mapping with a project `name`")
    name = settings["name"]
    declared = settings.get("config") or {}
    if not isinstance(declared, dict):
        raise StackFileError(f"{path}: `config:` must be a mapping of keys to their declarations")
    defaults = {
        _qualified(name, str(key)): spec["default"]
        for key, spec in declared.items()
        if isinstance(spec, dict) and "default" in spec
    }
    main = root / str(settings.get("main", "."))
    return Project(
        root=root,
        name=name,
        stack_config_dir=root / str(settings.get("stackConfigDir", ".")),
        defaults=defaults,
        main=main / "__main__.py" if main.is_dir() else main,
    )


def load_program(folder: Path, option: str = "--program") -> Project:
    """One's own Pulumi program (`--program DIR` of `gpukit plan` and `gpukit ephemeral`): the project
    in `folder` and the entry file its Pulumi.yaml names. Every command that takes a program decides
    here, so they accept and refuse the same folders; StackFileError names `option` and the folder (or
    the Pulumi.yaml at fault)."""
    root = folder.expanduser().resolve()
    what = "the folder of your Pulumi program, with its Pulumi.yaml and __main__.py"
    if not root.is_dir():
        raise StackFileError(f"{option} {folder}: no such folder; pass {what}")
    if not (root / "Pulumi.yaml").is_file():
        raise StackFileError(f"{option} {folder}: no Pulumi.yaml in {root}; pass {what}")
    project = load_project(root)  # its errors name the Pulumi.yaml at fault
    if not project.main.is_file():
        raise StackFileError(
            f"{option} {folder}: no program to run: {project.main} is not a file (Pulumi.yaml `main`, "
            "or __main__.py)"
        )
    return project


def gpukit_project_defaults(folder: Path) -> Project:
    """gpukit's own project as its Pulumi.yaml declares it, for a stack file planned outside the
    repository: the defaults come from the same schema `make docs` writes Pulumi.yaml from."""
    from gpukit.components.config.schema import NAMESPACE, project_defaults

    return Project(folder, NAMESPACE, folder, project_defaults(), folder / "__main__.py")


def stack_file_path(project: Project, stack: str) -> Path:
    return project.stack_config_dir / f"Pulumi.{stack}.yaml"


def _replace_secure(value: Any, counter: list[int]) -> tuple[Any, bool]:
    if isinstance(value, dict):
        if set(value) == {"secure"}:
            counter[0] += 1
            return f"{PLACEHOLDER_PREFIX}-{counter[0]}", True
        found = False
        out = {}
        for k, v in value.items():
            out[k], hit = _replace_secure(v, counter)
            found = found or hit
        return out, found
    if isinstance(value, list):
        items = [_replace_secure(v, counter) for v in value]
        return [v for v, _ in items], any(hit for _, hit in items)
    return value, False


def _plain_problem(value: Any, key: str) -> str | None:
    """Where a config value holds something other than strings, numbers, booleans, null, lists and
    mappings (an explicit `!!timestamp` or `!!set`): the first such key and what it holds, or None.
    Pulumi hands a program config as JSON, which has none of them."""
    if value is None or isinstance(value, str | int | float | bool):
        return None
    if isinstance(value, list):
        return next((p for i, v in enumerate(value) if (p := _plain_problem(v, f"{key}[{i}]"))), None)
    if isinstance(value, dict):
        for k, v in value.items():
            if k is None:
                return f"{key}: a null mapping key; write the key as a string"
            if (found := _plain_problem(v, f"{key}.{k}")) is not None:
                return found
        return None
    return (
        f"{key}: a YAML {type(value).__name__} (an explicit tag such as !!timestamp or !!set); write a string"
    )


def load_stack_file(path: Path, project: Project, name: str | None = None) -> LoadedStack:
    """A stack file's config, with the project's defaults for the keys it leaves out."""
    doc = _read_yaml_file(path, f"stack file not found: {path}")
    if doc is None:
        doc = {}
    if not isinstance(doc, dict) or not isinstance(doc.get("config", {}), dict):
        raise StackFileError(f"{path}: expected a mapping with a 'config:' mapping")
    stack_name = name or path.name.removeprefix("Pulumi.").removesuffix(".yaml")
    config: dict[str, Any] = {}
    secret_keys: list[str] = []
    counter = [0]
    for key, value in (doc.get("config") or {}).items():
        full = _qualified(project.name, str(key))
        found = _plain_problem(value, full)
        if found is not None:
            raise StackFileError(f"{path}: {found}")
        config[full], secret = _replace_secure(value, counter)
        if secret:
            secret_keys.append(full)
    defaulted = frozenset(key for key in project.defaults if key not in config)
    for key, default in project.defaults.items():
        config.setdefault(key, default)
    return LoadedStack(stack_name, path, config, secret_keys, defaulted)

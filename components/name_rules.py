"""What a cloud accepts as a resource's name, and the name it ends up with, for the plan's fakes.

Each cloud's fakes (providers/<cloud>/names.py holds the table) ask `planned_name` for the name of every
resource type they know: the explicit name the program passed, a provider-made name from a prefix, or
Pulumi's auto-name from the resource's own name. A name the cloud (or the provider) would refuse raises
ResourceNameError, so `gpukit plan` fails where `pulumi up` would, instead of planning a name that
cannot exist.
"""

import re
from dataclasses import dataclass

from gpukit.components.plan_fakes import stable_hex

# What the Terraform-based providers append to a `name_prefix`: a 26-character unique id
# (terraform-plugin-sdk helper/id: UniqueIDSuffixLength).
PREFIX_SUFFIX = 26
# Pulumi's auto-name: the resource's name, "-", and 7 random characters; a name that leaves no room for
# them is refused, not cut (pulumi-terraform-bridge pkg/tfbridge/names.go AutoName, Randlen 7;
# pulumi sdk/go/common/resource/resource_id.go NewUniqueName: "name plus 7 random chars is longer than
# maximum length").
AUTO_NAME_SUFFIX = 8


class ResourceNameError(Exception):
    """A resource name the cloud would refuse. `str()` is one line naming the resource, the name, the
    cloud's limit and where that limit is documented."""


@dataclass(frozen=True)
class NameRule:
    """One name-like field of a resource type, and what the cloud accepts in it."""

    field: str
    """The input that holds the name (`name`, `accountId`, `secretId`, `nodeGroupName`)."""
    max_length: int
    pattern: re.Pattern[str]
    """The whole name, as the cloud's API reference states it."""
    shape: str
    """The pattern in words, for the message."""
    source: str
    """Where the limit is documented."""
    min_length: int = 1
    prefix_field: str | None = None
    """The provider's `namePrefix` input, where it has one: it appends a unique id to the prefix."""
    prefix_max: int | None = None
    """The longest prefix the provider takes (None: max_length less the id it appends)."""
    short_suffix_after: int | None = None
    """Prefixes longer than this get a shorter id (9 characters; Compute Engine instance templates)."""
    auto_named: bool = True
    """Pulumi names the resource after its own name when the program gives neither name nor prefix."""
    lowercase: bool = False
    """Pulumi lowercases the auto-name (Google Cloud resources)."""


def _refuse(token: str, resource: str, what: str, rule: NameRule) -> ResourceNameError:
    return ResourceNameError(
        f"{token} {resource!r}: {what} is refused: the cloud takes {rule.min_length}-{rule.max_length} "
        f"characters, {rule.shape} ({rule.source})"
    )


def _from_prefix(token: str, resource: str, prefix: str, rule: NameRule) -> str:
    longest = rule.prefix_max if rule.prefix_max is not None else rule.max_length - PREFIX_SUFFIX
    if len(prefix) > longest:
        raise ResourceNameError(
            f"{token} {resource!r}: {rule.prefix_field} {prefix!r} ({len(prefix)} characters) is refused: "
            f"the provider takes at most {longest} ({rule.source})"
        )
    short = rule.short_suffix_after is not None and len(prefix) > rule.short_suffix_after
    return prefix + stable_hex(resource, length=9 if short else PREFIX_SUFFIX)


def planned_name(token: str, resource: str, inputs: dict[str, object], rule: NameRule) -> str | None:
    """The name the resource `resource` of type `token` gets from `inputs` under `rule`; None where it
    gets none from the program or Pulumi (the provider or cloud picks one). Raises ResourceNameError for
    a name the cloud or provider would refuse."""
    explicit = inputs.get(rule.field)
    prefix = inputs.get(rule.prefix_field) if rule.prefix_field else None
    if isinstance(explicit, str) and explicit:
        name, what = explicit, f"{rule.field} {explicit!r} ({len(explicit)} characters)"
    elif isinstance(prefix, str):
        name = _from_prefix(token, resource, prefix, rule)
        what = f"{rule.prefix_field} {prefix!r} makes {name!r} ({len(name)} characters), which"
    elif rule.auto_named:
        base = resource.lower() if rule.lowercase else resource
        name = f"{base}-{stable_hex(resource, length=AUTO_NAME_SUFFIX - 1)}"
        if len(name) > rule.max_length:
            raise ResourceNameError(
                f"{token} {resource!r}: no {rule.field} is given, and Pulumi's auto-name (the resource "
                f"name, '-' and 7 random characters) would have {len(name)} characters; the cloud takes at "
                f"most {rule.max_length} ({rule.source}): shorten the resource name or give a {rule.field}"
            )
        what = f"Pulumi's auto-name {name!r}"
    else:
        return None
    if not rule.min_length <= len(name) <= rule.max_length or not rule.pattern.fullmatch(name):
        raise _refuse(token, resource, what, rule)
    return name

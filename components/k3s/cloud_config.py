"""The YAML body of a `#cloud-config` user data document, with scripts as literal blocks: the EC2 user
data of k3s machines (providers/aws/k3s/user_data.py) and of the NFS VMs
(components/addons/storage/nfs/vm.py).

Dumped by libyaml's emitter where PyYAML has it (its wheels do): PyYAML's own emitter looks at each
character of a scalar in Python, about 30 times slower on the tens of kilobytes of script a machine's
user data carries (most of what rendering costs a k3s-on-EC2 plan). Both write the same text for these
documents: the boot-file goldens were written by PyYAML's emitter, and the user data tests
(tests/scripts/test_cloud_boot.py, test_nfs_vm.py) render with both, so a PyYAML without libyaml renders
the same bytes. Pure.
"""

from typing import Any

import yaml
from yaml.representer import SafeRepresenter


class Literal(str):
    """A string dumped as a YAML literal block (`|`), so scripts stay readable in the user data."""


def _represent_literal(dumper: SafeRepresenter, data: Literal) -> yaml.ScalarNode:
    # A plain str: libyaml's emitter takes no str subclass as a scalar's value.
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(data), style="|")


class PythonDumper(yaml.SafeDumper):
    """PyYAML's pure-Python emitter: what DUMPER's text is held to."""


PythonDumper.add_representer(Literal, _represent_literal)

if yaml.__with_libyaml__:

    class _LibyamlDumper(yaml.CSafeDumper):
        """libyaml's emitter, with the same representers as PythonDumper."""

    _LibyamlDumper.add_representer(Literal, _represent_literal)
    DUMPER: type[SafeRepresenter] = _LibyamlDumper
else:  # PyYAML built without libyaml
    DUMPER = PythonDumper


def cloud_config_body(document: dict[str, Any]) -> str:
    """`document` as YAML, its keys in their own order; width 1000: a long value stays on one line."""
    return yaml.dump(document, Dumper=DUMPER, sort_keys=False, width=1000)

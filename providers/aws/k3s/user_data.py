"""EC2 user data for k3s machines: `#cloud-config` that writes the shared host scripts and runs
bootstrap.sh once at first boot (components/k3s/cloud_init.py says what a machine runs), in the form
EC2 takes it. Pure: golden-tested and checked with `cloud-init schema`; providers call it inside
`.apply` once the secret ids are known."""

import base64
import gzip
from collections.abc import Sequence
from dataclasses import dataclass

from gpukit.components.k3s.cloud_config import Literal, cloud_config_body
from gpukit.components.k3s.cloud_init import (
    BOOTSTRAP_DIR,
    BOOTSTRAP_UNIT,
    BOOTSTRAP_UNIT_PATH,
    START_BOOTSTRAP,
    CloudNode,
    node_scripts,
)

# EC2 takes at most 16 KiB of user data (before base64).
EC2_USER_DATA_LIMIT = 16 * 1024


@dataclass(frozen=True)
class BootService:
    """A systemd service the user data installs and starts besides the bootstrap: its unit and the
    script it runs (both written by cloud-init at first boot; the unit is enabled, so it runs at every
    boot after)."""

    unit_name: str
    unit: str
    script_path: str
    script: str


def node_user_data(
    node: CloudNode,
    fetch_secrets: str,
    release_identity: str | None = None,
    provider_id: str | None = None,
    services: Sequence[BootService] = (),
) -> str:
    """`#cloud-config` user data that writes the scripts and starts gpukit-bootstrap.service, and
    each of `services` (spot_notice.py) from the same boot.

    The service runs bootstrap.sh until it succeeds once (a failure retries a minute later, also
    across reboots); k3s itself starts on boot as a systemd service. `journalctl -u
    gpukit-bootstrap` on the machine (or its serial console) shows how it went.
    """
    scripts = node_scripts(node, fetch_secrets, release_identity, provider_id)
    document = {
        "write_files": [
            {
                "path": f"{BOOTSTRAP_DIR}/{name}",
                "owner": "root:root",
                "permissions": "0700",
                "content": Literal(text),
            }
            for name, text in scripts.items()
        ]
        + [
            {
                "path": BOOTSTRAP_UNIT_PATH,
                "owner": "root:root",
                "permissions": "0644",
                "content": BOOTSTRAP_UNIT,
            }
        ]
        + [
            file
            for service in services
            for file in (
                {
                    "path": service.script_path,
                    "owner": "root:root",
                    "permissions": "0700",
                    "content": Literal(service.script),
                },
                {
                    "path": f"/etc/systemd/system/{service.unit_name}",
                    "owner": "root:root",
                    "permissions": "0644",
                    "content": service.unit,
                },
            )
        ],
        "runcmd": [command.split() for command in START_BOOTSTRAP]
        + [["systemctl", "enable", "--now", "--no-block", service.unit_name] for service in services],
    }
    body = cloud_config_body(document)
    return "#cloud-config\n# Rendered by gpukit (providers/aws/k3s/user_data.py).\n" + body


def ec2_user_data(text: str) -> str:
    """Base64 user data; gzipped first only when the text is over EC2's limit (cloud-init reads gzip).

    mtime=0 keeps the bytes, and so the launch template, the same for the same text.
    """
    data = text.encode()
    if len(data) > EC2_USER_DATA_LIMIT:
        data = gzip.compress(data, mtime=0)
        if len(data) > EC2_USER_DATA_LIMIT:
            raise ValueError(f"user data is {len(data)} bytes gzipped; EC2 takes {EC2_USER_DATA_LIMIT}")
    return base64.b64encode(data).decode()

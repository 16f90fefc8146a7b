"""What cloud machines run at first boot, as planned: user data and startup scripts, decoded.

`gpukit plan --out DIR` writes them to DIR/boot/, so a reviewer (and the program tests, with
`cloud-init schema` and shellcheck) reads exactly what EC2 and Compute Engine would hand the
machines, not a re-rendering of it.
"""

import base64
import binascii
import gzip
import re
from typing import Any

from gpukit.plan.fakes import Recorded

# Type token -> the input holding base64 user data (EC2 takes launch template user data as base64).
BASE64_USER_DATA = {
    "aws:ec2/launchTemplate:LaunchTemplate": "userData",
    "aws:ec2/instance:Instance": "userDataBase64",
}
PLAIN_USER_DATA = {"aws:ec2/instance:Instance": "userData"}
# Compute Engine: boot code lives in instance metadata.
GCE_TYPES = ("gcp:compute/instanceTemplate:InstanceTemplate", "gcp:compute/instance:Instance")
GCE_KEYS = ("user-data", "startup-script")


def decode_user_data(value: str) -> str:
    """EC2 user data as the machine reads it: base64, then gzip where it starts with gzip's magic."""
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return value  # not base64: already plain text
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode()


def _file_name(resource: str, text: str) -> str:
    stem = re.sub(r"[^a-z0-9.-]+", "-", resource.lower())
    return f"{stem}.yaml" if text.startswith("#cloud-config") else f"{stem}.sh"


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def boot_files(resources: list[Recorded]) -> dict[str, str]:
    """File name -> boot text, for every machine definition that carries user data or a startup script."""
    files: dict[str, str] = {}
    for r in resources:
        texts: list[tuple[str, str]] = []
        encoded = _text(r.inputs.get(BASE64_USER_DATA.get(r.type, "")))
        if encoded:
            texts.append((r.name, decode_user_data(encoded)))
        plain = _text(r.inputs.get(PLAIN_USER_DATA.get(r.type, "")))
        if plain:
            texts.append((r.name, plain))
        if r.type in GCE_TYPES:
            metadata = r.inputs.get("metadata") or {}
            for key in GCE_KEYS:
                value = _text(metadata.get(key))
                if value:
                    texts.append((f"{r.name}-{key}", value))
        for name, text in texts:
            files[_file_name(name, text)] = text
    return files

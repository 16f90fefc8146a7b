"""SSH host keys as the stack gives them (`hostKey`), checked and turned into what pulumi-command takes.

What pulumi-command does with `host_key` (pulumi/pulumi-command v1.2.1,
provider/pkg/provider/remote/connection.go, `connectionBase.SSHConfig`, shared by the connection and
its `proxy`): no host key means `ssh.InsecureIgnoreHostKey()`, whoever answers is trusted. A host key
goes through `ssh.ParseAuthorizedKey` (golang.org/x/crypto ssh/keys.go), then `ssh.FixedHostKey`, and
the handshake offers only that key's type (`HostKeyAlgorithms = [key.Type()]`). ParseAuthorizedKey
reads the authorized_keys form, `[options] <type> <base64> [comment]`: it skips the written type
without comparing it to the type inside the blob, and would take a known_hosts host field for an
"options" field only by accident. So gpukit checks the key itself and hands over exactly
`<type> <base64>`, whatever form the stack wrote.
"""

import base64
import binascii
import contextlib
import hashlib
import hmac
import ipaddress
import re
import struct
from dataclasses import dataclass

from gpukit.components.addresses import same_host
from gpukit.components.spec import BastionSpec, HostSpec

KEY_TYPES = (
    "ssh-ed25519",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "ssh-rsa",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
)
# What a key type looks like, known or not: tells `<type> <base64>` from `<host> <type> <base64>`.
_TYPE_RE = re.compile(r"(ssh|ecdsa|sk|rsa)-[a-z0-9@.-]+")
# The SSH strings (RFC 4251 `string`/`mpint`) each type's blob holds after its name, as
# golang.org/x/crypto parses them: ed25519 the key; ecdsa the curve and point; rsa e and n; sk-* add
# the FIDO application.
_FIELDS = {
    "ssh-ed25519": 1,
    "ecdsa-sha2-nistp256": 2,
    "ecdsa-sha2-nistp384": 2,
    "ecdsa-sha2-nistp521": 2,
    "ssh-rsa": 2,
    "sk-ssh-ed25519@openssh.com": 2,
    "sk-ecdsa-sha2-nistp256@openssh.com": 3,
}


@dataclass(frozen=True)
class HostKey:
    key_type: str
    blob: bytes

    @property
    def authorized_key(self) -> str:
        """`<type> <base64>`: the form pulumi-command's ParseAuthorizedKey reads."""
        return f"{self.key_type} {base64.b64encode(self.blob).decode()}"

    @property
    def fingerprint(self) -> str:
        """`SHA256:...`, as `ssh-keygen -lf` and the host's console print it."""
        digest = base64.b64encode(hashlib.sha256(self.blob).digest()).decode().rstrip("=")
        return f"SHA256:{digest}"


def _strings(blob: bytes) -> list[bytes] | None:
    """The blob as its SSH strings (4-byte big-endian length, then the bytes); None if malformed."""
    found: list[bytes] = []
    rest = blob
    while rest:
        if len(rest) < 4:
            return None
        (length,) = struct.unpack(">I", rest[:4])
        if len(rest) < 4 + length:
            return None
        found.append(rest[4 : 4 + length])
        rest = rest[4 + length :]
    return found


def _blob_problem(key_type: str, blob: bytes) -> str | None:
    strings = _strings(blob)
    if not strings:
        return "its base64 is cut short, or holds no SSH public key"
    inner = strings[0].decode("ascii", "replace")
    if not _TYPE_RE.fullmatch(inner):  # random bytes that happen to parse: print no garbage
        return "its base64 is cut short, or holds no SSH public key"
    if inner != key_type:
        return f"it says {key_type} but its base64 holds a {inner} key"
    if len(strings) - 1 != _FIELDS[key_type]:
        return f"its base64 is not a whole {key_type} key"
    if "ed25519" in key_type and len(strings[1]) != 32:
        return f"its base64 is not a whole {key_type} key"
    if key_type.startswith("ecdsa-") and strings[1].decode("ascii", "replace") != key_type.rsplit("-", 1)[1]:
        return f"its base64 is not a whole {key_type} key"
    return None


def _names(address: str, port: int) -> list[str]:
    """What ssh may have written (or hashed) for this host: the address as given, lowercased and
    normalised, each as `[address]:port` off port 22."""
    spellings = {address, address.lower()}
    with contextlib.suppress(ValueError):
        spellings.add(str(ipaddress.ip_address(address)))
    return sorted(s if port == 22 else f"[{s}]:{port}" for s in spellings)


def _names_host(entry: str, address: str, port: int) -> bool:
    """Whether one entry of a known_hosts host field (plain, `[host]:port`, or hashed `|1|salt|hash`)
    is this host."""
    if entry.startswith("|1|"):
        parts = entry.split("|")
        try:
            salt, expected = (base64.b64decode(part, validate=True) for part in parts[2:4])
        except (ValueError, binascii.Error):
            return False
        return len(parts) == 4 and any(
            hmac.compare_digest(hmac.new(salt, name.encode(), hashlib.sha1).digest(), expected)
            for name in _names(address, port)
        )
    written_port = 22
    if entry.startswith("[") and "]:" in entry:
        entry, _, number = entry[1:].partition("]:")
        written_port = int(number) if number.isdigit() else -1
    return written_port == port and same_host(entry) == same_host(address)


def parse_host_key(text: str, address: str, port: int) -> HostKey | str:
    """The host key `text` gives for the host at `address`:`port`, or what is wrong with it.

    `text` is `<type> <base64> [comment]` (a host's /etc/ssh/ssh_host_*_key.pub) or a known_hosts line
    for this host, `<host> <type> <base64>`, its host field plain or hashed, as `ssh-keyscan` prints it.
    """
    fields = text.split()
    if fields and fields[0].startswith("@"):
        return f"{fields[0]} lines are not host keys: give the host's own key"
    known_hosts = (
        len(fields) >= 3 and not _TYPE_RE.fullmatch(fields[0]) and bool(_TYPE_RE.fullmatch(fields[1]))
    )
    # A line scanned from another host is a likely paste mistake: it would fail every connection.
    if known_hosts and not any(_names_host(e, address, port) for e in fields[0].split(",")):
        other = "another (hashed) host" if fields[0].startswith("|1|") else repr(fields[0])
        return (
            f"is a known_hosts line for {other}, not for {_names(address, port)[0]}; give the line "
            "`ssh-keyscan` prints for this host's address (and port), or the key alone "
            "(`ssh-ed25519 AAAA...`)"
        )
    key_fields = fields[1:] if known_hosts else fields
    if len(key_fields) < 2:
        return "must be a known_hosts line (`<host> <type> <base64>`) or `<type> <base64>`"
    key_type, encoded = key_fields[0], key_fields[1]
    if key_type not in KEY_TYPES:
        return f"unknown key type {key_type!r}; known types: {', '.join(KEY_TYPES)}"
    try:
        blob = base64.b64decode(encoded, validate=True)
    except (ValueError, binascii.Error):
        return f"the {key_type} key's base64 does not decode"
    problem = _blob_problem(key_type, blob)
    return f"the {key_type} key is malformed: {problem}" if problem else HostKey(key_type, blob)


def connection_host_key(endpoint: HostSpec | BastionSpec) -> str | None:
    """The `host_key` of a pulumi-command connection to a host or bastion (`<type> <base64>`), or None
    where the stack lets it through unchecked (cluster.insecureIgnoreHostKeys)."""
    text = endpoint.get("host_key")
    if text is None:
        return None
    key = parse_host_key(text, endpoint["address"], endpoint.get("port", 22))
    if isinstance(key, str):  # validation refuses this before anything is built
        raise ValueError(f"host key of {endpoint['address']}: {key}")
    return key.authorized_key


NOT_CHECKED = "NOT CHECKED"


def describe_host_key(endpoint: HostSpec | BastionSpec) -> str:
    """What the plan shows for an endpoint's host key: its type and fingerprint, to compare with the
    machine's console before `pulumi up`, or NOT_CHECKED."""
    text = endpoint.get("host_key")
    if text is None:
        return NOT_CHECKED
    key = parse_host_key(text, endpoint["address"], endpoint.get("port", 22))
    return key if isinstance(key, str) else f"{key.key_type} {key.fingerprint}"

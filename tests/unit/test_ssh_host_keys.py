"""SSH host keys as a stack gives them: what is accepted, the form pulumi-command gets, what is refused.

The keys, fingerprints and hashed lines come from OpenSSH's own tools (tests/ssh_host_keys.py)."""

import base64
import struct

import pytest

from gpukit.providers.ssh.host_keys import HostKey, parse_host_key
from tests.ssh_host_keys import (
    ECDSA_256,
    ECDSA_256_FINGERPRINT,
    ECDSA_384,
    ECDSA_384_FINGERPRINT,
    ED25519_11,
    ED25519_11_FINGERPRINT,
    ED25519_OTHER,
    ED25519_OTHER_FINGERPRINT,
    ED25519_OTHER_PUB,
    HASHED_11,
    HASHED_11_PORT_2222,
    HASHED_198_51_100_5,
    RSA_3072,
)

ADDRESS = "192.0.2.11"


def parsed(text: str, address: str = ADDRESS, port: int = 22) -> HostKey:
    key = parse_host_key(text, address, port)
    assert isinstance(key, HostKey), key
    return key


def refusal(text: str, address: str = ADDRESS, port: int = 22) -> str:
    key = parse_host_key(text, address, port)
    assert isinstance(key, str), f"accepted: {key}"
    return key


@pytest.mark.parametrize(
    ("text", "address", "port", "authorized", "fingerprint"),
    [
        (ED25519_11, ADDRESS, 22, ED25519_11, ED25519_11_FINGERPRINT),
        (f"{ADDRESS} {ED25519_11}", ADDRESS, 22, ED25519_11, ED25519_11_FINGERPRINT),
        (f"gpu1.lab,{ADDRESS} {ED25519_11}", ADDRESS, 22, ED25519_11, ED25519_11_FINGERPRINT),
        (f"[{ADDRESS}]:2222 {ED25519_11}", ADDRESS, 2222, ED25519_11, ED25519_11_FINGERPRINT),
        (HASHED_11, ADDRESS, 22, ED25519_11, ED25519_11_FINGERPRINT),
        (HASHED_11_PORT_2222, ADDRESS, 2222, ED25519_11, ED25519_11_FINGERPRINT),
        (f"GPU1.Lab {ED25519_11}", "gpu1.lab", 22, ED25519_11, ED25519_11_FINGERPRINT),
        (f"2001:db8::1 {ED25519_11}", "2001:DB8:0::1", 22, ED25519_11, ED25519_11_FINGERPRINT),
        (ED25519_OTHER_PUB, ADDRESS, 22, ED25519_OTHER, ED25519_OTHER_FINGERPRINT),
        (f"  {ED25519_OTHER}\n", ADDRESS, 22, ED25519_OTHER, ED25519_OTHER_FINGERPRINT),
        (ECDSA_256, ADDRESS, 22, ECDSA_256, ECDSA_256_FINGERPRINT),
        (f"{ADDRESS} {ECDSA_384}", ADDRESS, 22, ECDSA_384, ECDSA_384_FINGERPRINT),
        (RSA_3072, ADDRESS, 22, RSA_3072, None),
    ],
    ids=[
        "key-alone",
        "known-hosts-line",
        "known-hosts-line-with-two-names",
        "known-hosts-line-off-port-22",
        "hashed-line",
        "hashed-line-off-port-22",
        "dns-name-in-other-case",
        "ipv6-in-other-spelling",
        "pub-file-with-comment",
        "surrounding-whitespace",
        "ecdsa-256",
        "ecdsa-384-line",
        "rsa",
    ],
)
def test_accepted_forms_become_type_and_base64_with_openssh_fingerprints(
    text: str, address: str, port: int, authorized: str, fingerprint: str | None
) -> None:
    key = parsed(text, address, port)
    # pulumi-command's ParseAuthorizedKey reads exactly this: no host field, no comment.
    assert key.authorized_key == authorized
    if fingerprint is not None:
        assert key.fingerprint == fingerprint


def _ssh_string(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def _key(key_type: str, *fields: bytes) -> str:
    blob = _ssh_string(key_type.encode()) + b"".join(_ssh_string(f) for f in fields)
    return base64.b64encode(blob).decode()


ED25519_BASE64 = ED25519_11.split()[1]


@pytest.mark.parametrize(
    ("text", "port", "fragment"),
    [
        ("ssh-dss AAAAB3NzaC1kc3MAAACBAP", 22, "unknown key type 'ssh-dss'; known types: ssh-ed25519"),
        (f"ssh-ed25519-cert-v01@openssh.com {ED25519_BASE64}", 22, "unknown key type"),
        ("ssh-ed25519 not*base64", 22, "the ssh-ed25519 key's base64 does not decode"),
        (f"ssh-rsa {ED25519_BASE64}", 22, "it says ssh-rsa but its base64 holds a ssh-ed25519 key"),
        (f"ecdsa-sha2-nistp384 {ECDSA_256.split()[1]}", 22, "holds a ecdsa-sha2-nistp256 key"),
        (f"ssh-ed25519 {_key('ssh-ed25519', bytes(31))}", 22, "not a whole ssh-ed25519 key"),
        (f"ssh-ed25519 {_key('ssh-ed25519', bytes(32), b'x')}", 22, "not a whole ssh-ed25519 key"),
        (f"ssh-ed25519 {ED25519_BASE64[:-8]}", 22, "its base64 is cut short, or holds no SSH public key"),
        (f"ssh-ed25519 {ED25519_BASE64[:-1]}", 22, "the ssh-ed25519 key's base64 does not decode"),
        (f"ssh-ed25519 {base64.b64encode(b'abc').decode()}", 22, "cut short, or holds no SSH public key"),
        (f"ssh-ed25519 {_key(chr(7) * 4, bytes(32))}", 22, "cut short, or holds no SSH public key"),
        (
            f"ecdsa-sha2-nistp256 {_key('ecdsa-sha2-nistp256', b'nistp384', b'point')}",
            22,
            "not a whole ecdsa-sha2-nistp256 key",
        ),
        ("ssh-ed25519", 22, "must be a known_hosts line (`<host> <type> <base64>`) or `<type> <base64>`"),
        ("", 22, "must be a known_hosts line"),
        (f"198.51.100.5 {ED25519_11}", 22, "is a known_hosts line for '198.51.100.5', not for 192.0.2.11"),
        (f"{ADDRESS} {ED25519_11}", 2222, "not for [192.0.2.11]:2222"),
        (f"[{ADDRESS}]:2222 {ED25519_11}", 22, "not for 192.0.2.11"),
        (HASHED_198_51_100_5, 22, "is a known_hosts line for another (hashed) host"),
        (HASHED_11, 2222, "is a known_hosts line for another (hashed) host"),
        (f"@cert-authority *.lab {ED25519_11}", 22, "@cert-authority lines are not host keys"),
        (f"@revoked {ADDRESS} {ED25519_11}", 22, "@revoked lines are not host keys"),
    ],
    ids=[
        "dsa",
        "certificate",
        "not-base64",
        "written-type-differs-from-blob",
        "ecdsa-curve-differs",
        "ed25519-key-short",
        "trailing-junk",
        "truncated-base64",
        "base64-missing-a-character",
        "blob-not-ssh-strings",
        "blob-names-no-key-type",
        "ecdsa-curve-field-differs",
        "type-without-key",
        "empty",
        "line-for-another-address",
        "line-for-port-22-on-port-2222",
        "line-for-port-2222-on-port-22",
        "hashed-line-for-another-host",
        "hashed-line-for-another-port",
        "cert-authority-marker",
        "revoked-marker",
    ],
)
def test_refused_host_keys_say_why(text: str, port: int, fragment: str) -> None:
    assert fragment in refusal(text, port=port)

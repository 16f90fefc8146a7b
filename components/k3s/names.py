"""Names and URLs of k3s nodes, from host addresses (pure; shared by validation and providers)."""

import re


def node_name(pool: str, address: str) -> str:
    """`l40s` + `192.0.2.11` -> `l40s-192-0-2-11`: stable per host, a valid Kubernetes node name.

    Case and punctuation are folded, so `gpu1.lab` and `GPU1-lab` give the same name: validation
    refuses such pairs (they would be the same node twice).
    """
    slug = re.sub(r"[^a-z0-9]+", "-", address.lower()).strip("-")
    return f"{pool}-{slug}"[:63].rstrip("-")


def url_host(address: str) -> str:
    """An address as the host part of a URL: IPv6 literals in brackets."""
    return f"[{address}]" if ":" in address else address

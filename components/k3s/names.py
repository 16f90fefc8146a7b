"""Names and URLs of k3s nodes, from host addresses (pure; shared by validation and providers)."""

import re

from gpukit.components.names import fit_name

# A node name is also a label value (kubernetes.io/hostname): at most 63 characters.
NODE_NAME_MAX = 63
# Cloud machines register as `<hostname>-<8 hex digits>` (`with-node-id`, k3s `ensureNodeID`), so their
# hostname, which Compute Engine takes from the instance name, must leave room for 9 characters.
NODE_ID_SUFFIX = 9
CLOUD_HOSTNAME_MAX = NODE_NAME_MAX - NODE_ID_SUFFIX


def node_name(pool: str, address: str) -> str:
    """`l40s` + `192.0.2.11` -> `l40s-192-0-2-11`: stable per host, a valid Kubernetes node name.

    Case and punctuation are folded, so `gpu1.lab` and `GPU1-lab` give the same name: validation
    refuses such pairs (they would be the same node twice). A name too long is cut and hashed, so
    two long addresses that differ only past the cut still give two nodes.
    """
    slug = re.sub(r"[^a-z0-9]+", "-", address.lower()).strip("-")
    return fit_name(f"{pool}-{slug}", "", NODE_NAME_MAX)


def url_host(address: str) -> str:
    """An address as the host part of a URL: IPv6 literals in brackets."""
    return f"[{address}]" if ":" in address else address

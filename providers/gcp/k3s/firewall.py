"""VPC firewall rules of a k3s cluster on Compute Engine (pure table; the cluster creates one
gcp.compute.Firewall per rule).

A custom VPC denies all ingress unless a rule allows it, so these rules are everything that reaches
the machines: the API from the configured client ranges, and k3s's own ports between the cluster's
machines, matched by network tag (every machine carries the node tag, servers the server tag too).
Nothing comes from 0.0.0.0/0 unless `apiAccessCidrs` says so, and there is no SSH rule: machines are
reached through OS Login by whoever adds one (or through the serial console). Ports: k3s's
"Inbound Rules for K3s Nodes" (docs.k3s.io/installation/requirements).
"""

from dataclasses import dataclass

from gpukit.components.k3s.host_scripts import API_PORT

FLANNEL_VXLAN_PORT = 8472
KUBELET_PORT = 10250
ETCD_PORTS = "2379-2380"


@dataclass(frozen=True)
class FirewallRule:
    name: str
    """Suffix of the rule's name (`<cluster>-<name>`)."""
    description: str
    protocol: str
    ports: tuple[str, ...]
    target_tag: str
    source_tag: str | None = None
    source_ranges: tuple[str, ...] = ()


def node_tag(cluster_name: str) -> str:
    return f"{cluster_name}-k3s-node"


def server_tag(cluster_name: str) -> str:
    return f"{cluster_name}-k3s-server"


def firewall_rules(cluster_name: str, api_access_cidrs: list[str]) -> list[FirewallRule]:
    node, server = node_tag(cluster_name), server_tag(cluster_name)
    rules = []
    if api_access_cidrs:  # none: the API is reachable from the cluster's own machines only
        rules.append(
            FirewallRule(
                "k3s-api-clients",
                "Kubernetes API from apiAccessCidrs",
                "tcp",
                (str(API_PORT),),
                server,
                source_ranges=tuple(api_access_cidrs),
            )
        )
    rules += [
        FirewallRule(
            "k3s-api-nodes",
            "k3s supervisor and Kubernetes API from every node (agents join and run through it)",
            "tcp",
            (str(API_PORT),),
            server,
            source_tag=node,
        ),
        FirewallRule(
            "k3s-flannel",
            "flannel VXLAN between nodes (pod-to-pod traffic)",
            "udp",
            (str(FLANNEL_VXLAN_PORT),),
            node,
            source_tag=node,
        ),
        FirewallRule(
            "k3s-kubelet",
            "kubelet between nodes (logs, exec, metrics-server)",
            "tcp",
            (str(KUBELET_PORT),),
            node,
            source_tag=node,
        ),
        FirewallRule(
            "k3s-etcd",
            "embedded etcd between servers only",
            "tcp",
            (ETCD_PORTS,),
            server,
            source_tag=server,
        ),
    ]
    return rules

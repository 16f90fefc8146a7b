"""VPC firewall rules of a k3s cluster on Compute Engine (pure table; the cluster creates one
gcp.compute.Firewall per rule).

A custom VPC denies all ingress unless a rule allows it, so these rules are everything that reaches
the machines: the API from the configured client ranges, and k3s's own ports between the cluster's
machines, matched by service account (servers run as the servers' account, agents as the agents'),
never by network tag: anyone who may set tags on any VM of the network could give it the cluster's
tags and reach etcd and the kubelets, while running a VM as an account takes
`iam.serviceAccounts.actAs` on that account (VPC firewall rules guide, "Filtering by service
account versus network tag"). A rule cannot mix the two, so tags appear in none.
Nothing comes from 0.0.0.0/0 unless `apiAccessCidrs` says so, and there is no SSH rule: machines are
reached through OS Login by whoever adds one (or through the serial console). Ports: k3s's
"Inbound Rules for K3s Nodes" (docs.k3s.io/installation/requirements).
"""

from dataclasses import dataclass

from gpukit.components.addons.inference.gateway_names import GATEWAY_NODE_PORT
from gpukit.components.k3s.host_scripts import API_PORT
from gpukit.components.spec import NodeRole

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
    targets: tuple[NodeRole, ...]
    """The machines it admits traffic to, by the service account of their role."""
    sources: tuple[NodeRole, ...] = ()
    """The machines it admits traffic from, by the service account of their role."""
    source_ranges: tuple[str, ...] = ()


SERVERS = (NodeRole.SERVER,)
NODES = (NodeRole.SERVER, NodeRole.AGENT)


def node_tag(cluster_name: str) -> str:
    return f"{cluster_name}-k3s-node"


def server_tag(cluster_name: str) -> str:
    return f"{cluster_name}-k3s-server"


def firewall_rules(
    api_access_cidrs: list[str], gateway_ranges: list[str] | None = None
) -> list[FirewallRule]:
    """`gateway_ranges`: who reaches the inference Gateway's node port (components/addons/inference);
    none without it."""
    rules = []
    if gateway_ranges:
        rules.append(
            FirewallRule(
                "k3s-inference-gateway",
                "inference Gateway's node port from allowedCidrs (or the VPC)",
                "tcp",
                (str(GATEWAY_NODE_PORT),),
                NODES,
                source_ranges=tuple(dict.fromkeys(gateway_ranges)),
            )
        )
    if api_access_cidrs:  # none: the API is reachable from the cluster's own machines only
        rules.append(
            FirewallRule(
                "k3s-api-clients",
                "Kubernetes API from apiAccessCidrs",
                "tcp",
                (str(API_PORT),),
                SERVERS,
                source_ranges=tuple(api_access_cidrs),
            )
        )
    rules += [
        FirewallRule(
            "k3s-api-nodes",
            "k3s supervisor and Kubernetes API from every node (agents join and run through it)",
            "tcp",
            (str(API_PORT),),
            SERVERS,
            sources=NODES,
        ),
        FirewallRule(
            "k3s-flannel",
            "flannel VXLAN between nodes (pod-to-pod traffic)",
            "udp",
            (str(FLANNEL_VXLAN_PORT),),
            NODES,
            sources=NODES,
        ),
        FirewallRule(
            "k3s-kubelet",
            "kubelet between nodes (logs, exec, metrics-server)",
            "tcp",
            (str(KUBELET_PORT),),
            NODES,
            sources=NODES,
        ),
        FirewallRule(
            "k3s-etcd",
            "embedded etcd between servers only",
            "tcp",
            (ETCD_PORTS,),
            SERVERS,
            sources=SERVERS,
        ),
    ]
    return rules

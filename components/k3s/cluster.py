"""K3sCluster: k3s on hosts gpukit can run commands on, with the PKI made by Pulumi.

Per host, in order: a preflight (refuses before joining when the host does not match its pool), the
install (secrets on stdin, never in the command line or environment), and for every node but the
first server a drain that runs on the first server when the node leaves the stack. Destroying the
stack drains the nodes and uninstalls k3s from every host.

Re-running: a command whose script or config changed runs again through its update (the script's
fingerprint is part of the command); `triggers` are used only on the preflight, because a trigger
change replaces a command, which for the install would mean uninstall-then-reinstall.
"""

from typing import NotRequired, Optional, TypedDict

import pulumi
import pulumi_command as command
import pulumi_kubernetes as k8s

from gpukit.components.k3s.host_scripts import (
    API_PORT,
    agent_join,
    drain_script,
    fingerprint,
    install_script,
    k3s_config,
    k3s_download,
    kubelet_shutdown_config,
    preflight_script,
    remote_command,
    secrets_bundle,
    server_join,
    uninstall_script,
)
from gpukit.components.k3s.names import url_host
from gpukit.components.k3s.pki import K3sPki
from gpukit.components.spec import DriverMode, NodeRole, PodSecurityLevel

TYPE_TOKEN = "gpukit:index:K3sCluster"


class K3sHostArgs(TypedDict):
    node_name: str
    """Kubernetes node name: stable per host, so hosts can come and go without renaming others."""
    address: str
    """Address other nodes and clients reach this host at (server URL and TLS SANs use it)."""
    role: NodeRole
    labels: dict[str, str]
    taints: list[str]
    """`key=value:Effect`, set at registration."""
    expect_gpus: int
    gpu_model: str
    connection: command.remote.ConnectionArgs
    """How to run a command on the host (pulumi-command remote connection; its key is a secret)."""


class K3sClusterArgs(TypedDict):
    cluster_name: str
    k3s_version: str
    api_address: str
    hosts: list[K3sHostArgs]
    driver: DriverMode
    min_driver_branch: NotRequired[int]
    cuda_version: NotRequired[str]
    traefik: NotRequired[bool]
    """Keep k3s's packaged traefik ingress (default false)."""
    system_namespaces: NotRequired[list[str]]
    """The add-ons' namespaces the servers' admission policy admits (ResolvedCluster.system_namespaces)."""
    k3s_sha256: NotRequired[dict[str, str]]
    """Architecture -> SHA-256 of the k3s binary, for a release gpukit has no sum pinned for."""
    pod_security: NotRequired[PodSecurityLevel]
    """The Pod Security Standard enforced by default (baseline)."""


class K3sCluster(pulumi.ComponentResource):
    kubeconfig: pulumi.Output[str]
    """Secret: admin kubeconfig with a client certificate, for https://<api_address>:6443."""
    kubernetes: k8s.Provider
    """A Kubernetes provider built from `kubeconfig`."""
    servers: list[command.remote.Command]

    def __init__(self, name: str, args: K3sClusterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        pki = K3sPki(
            f"{name}-pki", {"cluster_name": args["cluster_name"]}, opts=pulumi.ResourceOptions(parent=self)
        )
        servers = [h for h in args["hosts"] if h["role"] == NodeRole.SERVER]
        first = servers[0]
        server_urls = [f"https://{url_host(h['address'])}:{API_PORT}" for h in servers]
        download = k3s_download(args["k3s_version"], args.get("k3s_sha256"))
        tls_sans = sorted({args["api_address"], *(h["address"] for h in servers)})
        server_bundle = pki.server_files.apply(secrets_bundle)
        agent_bundle = pki.agent_files.apply(secrets_bundle)

        first_install: command.remote.Command | None = None
        self.servers = []
        for host in [first, *(h for h in args["hosts"] if h is not first)]:
            node = host["node_name"]
            is_first = host is first
            role = host["role"]
            preflight = preflight_script(
                host["expect_gpus"],
                host["gpu_model"],
                args["driver"],
                args.get("min_driver_branch", 0),
                args.get("cuda_version", ""),
                # No `rdma=True` here (gpukit doctor reports RDMA NICs): a changed preflight re-runs on
                # hosts that have joined, where `driver: operator` finds the GPU Operator's driver loaded.
            )
            check = command.remote.Command(
                f"{name}-{node}-preflight",
                connection=host["connection"],
                create=remote_command(preflight),
                triggers=[fingerprint(preflight)],
                opts=pulumi.ResourceOptions(parent=self),
            )
            config = k3s_config(
                role,
                node,
                host["labels"],
                host["taints"],
                tls_sans=tls_sans,
                traefik=args.get("traefik", False),
            )
            # Servers join through the other servers (the first starts the cluster when none answers);
            # agents through any server.
            join = (
                server_join(servers.index(host), server_urls)
                if role == NodeRole.SERVER
                else agent_join(server_urls)
            )
            install = install_script(
                role,
                download,
                config,
                kubelet_shutdown_config(),
                join,
                args.get("pod_security", PodSecurityLevel.BASELINE),
                system_namespaces=tuple(args.get("system_namespaces", [])),
            )
            waits: list[pulumi.Resource] = [check] if first_install is None else [check, first_install]
            installed = command.remote.Command(
                f"{name}-{node}-k3s",
                connection=host["connection"],
                create=f"{remote_command(install)} # gpukit {fingerprint(install)}",
                delete=remote_command(uninstall_script(role)),
                stdin=server_bundle if role == NodeRole.SERVER else agent_bundle,
                opts=pulumi.ResourceOptions(parent=self, depends_on=waits),
            )
            if is_first:
                first_install = installed
            else:
                assert first_install is not None  # the first server is always installed first
                command.remote.Command(
                    f"{name}-{node}-drain",
                    connection=first["connection"],
                    delete=remote_command(drain_script(node)),
                    # Deleted before this host's install (it depends on it), so the node is drained
                    # while k3s still runs on both hosts.
                    opts=pulumi.ResourceOptions(parent=self, depends_on=[installed, first_install]),
                )
            if role == NodeRole.SERVER:
                self.servers.append(installed)

        server_url = f"https://{url_host(args['api_address'])}:{API_PORT}"
        self.kubeconfig = pki.kubeconfig(args["cluster_name"], server_url)
        self.kubernetes = k8s.Provider(
            f"{name}-k8s",
            kubeconfig=self.kubeconfig,
            # The API answers once every server runs k3s.
            opts=pulumi.ResourceOptions(parent=self, depends_on=list(self.servers)),
        )
        self.register_outputs({"kubeconfig": self.kubeconfig})

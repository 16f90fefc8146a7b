"""The SSH substrate: k3s on machines the user already has (bare metal, other clouds, lab workstations),
reached over SSH. gpukit creates no machines and no cloud resources; it checks and joins the hosts."""

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from gpukit.components.addons.storage.variant import STORAGE
from gpukit.components.catalog.k3s import k3s_version_for
from gpukit.components.errors import Problem
from gpukit.components.findings import Finding
from gpukit.components.k3s_substrates import K3sSubstrate
from gpukit.components.plan_fakes import PlanFakes
from gpukit.components.pools import PoolFacts, make_pool_facts
from gpukit.components.pricing import Charge
from gpukit.components.spec import ClusterConfig, NodePoolSpec, Provider
from gpukit.components.substrate import PlannedHost, ResolvedCluster
from gpukit.providers.ssh.catalog import SSH_CATALOG, host_instance
from gpukit.providers.ssh.charges import ssh_charges
from gpukit.providers.ssh.config import K3S_SSH_KEYS, REQUIRED_KEYS
from gpukit.providers.ssh.fakes import ssh_plan_fakes
from gpukit.providers.ssh.findings import fixed_size_findings, host_key_findings
from gpukit.providers.ssh.host_keys import describe_host_key
from gpukit.providers.ssh.k3s.nfs_variant import SshNfs
from gpukit.providers.ssh.validation import validate_ssh_cluster

if TYPE_CHECKING:
    import pulumi

    from gpukit.components.handle import ClusterHandle


class K3sSshSubstrate(K3sSubstrate):
    provider = Provider.SSH
    name = "k3s-ssh"
    title = "k3s on existing hosts (provider ssh)"
    where = "k3s on existing hosts (provider ssh)"
    builds_machines = False
    sdk = None
    settings = ()
    accepts = K3S_SSH_KEYS
    requires = REQUIRED_KEYS
    catalog = SSH_CATALOG
    addon_variants = MappingProxyType({STORAGE: SshNfs()})

    def pool_facts(self, pool: NodePoolSpec) -> PoolFacts:
        """An SSH pool is its hosts: as many nodes as it lists, each with the GPUs the pool declares."""
        hosts = pool.get("hosts", [])
        facts = make_pool_facts(pool, host_instance(pool), len(hosts), len(hosts), self.gpu_taint_value)
        return replace(facts, hosts=tuple(hosts))

    def validate(self, args: ClusterConfig, pools_ok: bool) -> list[Problem]:
        return validate_ssh_cluster(args, pools_ok)

    def preinstalled_driver_branch(self, cluster: ResolvedCluster, pool: PoolFacts) -> int | None:
        """Unknown until each host's own preflight reads it (it refuses a driver too old for CUDA)."""
        return None

    def findings(self, cluster: ResolvedCluster) -> list[Finding]:
        return host_key_findings(cluster) + fixed_size_findings(cluster)

    def charges(self, cluster: ResolvedCluster) -> list[Charge]:
        return ssh_charges(cluster)

    def planned_hosts(self, cluster: ResolvedCluster) -> list[PlannedHost]:
        from gpukit.providers.ssh.k3s.hosts import k3s_hosts

        spec = cluster.spec
        version = k3s_version_for(spec["kubernetes_version"], spec.get("k3s_version"))
        by_address = {host["address"]: host for pool in cluster.pools for host in pool.hosts}
        return [
            PlannedHost(
                h["node_name"],
                h["role"].value,
                h["address"],
                version,
                [f"{k}={v}" for k, v in sorted(h["labels"].items())],
                list(h["taints"]),
                describe_host_key(by_address[h["address"]]),
            )
            for h in k3s_hosts(cluster.pools, "")
        ]

    def plan_fakes(self, config: Mapping[str, Any]) -> PlanFakes | None:
        return ssh_plan_fakes(config)

    def build(self, name: str, cluster: ResolvedCluster, parent: "pulumi.Resource") -> "ClusterHandle":
        from gpukit.providers.ssh.k3s.cluster import build_k3s_ssh

        return build_k3s_ssh(name, cluster, parent)

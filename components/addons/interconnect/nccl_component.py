"""NcclCheck: the NCCL check of a cluster's fabric pools under `pulumi up` (nccl_check.py renders what
it applies and says how it runs and why it is trusted).

Pulumi waits for each pool's Job as it does for the GPU verification's (components/awaited_jobs.py):
Complete, or Failed at once, or the Job's deadline; a failed Job is replaced on the next `pulumi up`.
"""

from typing import Any, Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s
import pulumi_tls as tls

from gpukit.components.addons.interconnect.nccl_check import (
    KNOWN_HOSTS_PATTERN,
    NcclPoolCheck,
    job_manifest,
    keys_manifest,
    namespace_manifest,
    network_policy_manifest,
    service_manifest,
    tools_manifest,
)
from gpukit.components.awaited_jobs import await_timeouts, awaited_metadata

TYPE_TOKEN = "gpukit:index:NcclCheck"


class NcclCheckArgs(TypedDict):
    checks: list[NcclPoolCheck]
    """One per fabric pool with two nodes or more (Python-only values)."""
    timeout_minutes: int
    """Each check Job's deadline, node start from zero included."""


class NcclCheck(pulumi.ComponentResource):
    """Namespace `gpukit-verify-nccl`, the check's ssh keys, judge and NetworkPolicy, and per pool a
    headless Service and an Indexed Job of two pods; `pulumi up` succeeds only once every Job has.
    Pass the cluster's Kubernetes provider through `opts.providers` and make it depend on the GPU
    stack."""

    job_names: dict[str, pulumi.Output[str]]
    """Pool name -> its Job's name."""

    def __init__(self, name: str, args: NcclCheckArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        # Made here, kept as secrets in the state; no key is ever printed. The tls provider runs on the
        # deployer's machine (no cloud call).
        client = tls.PrivateKey(f"{name}-client-key", algorithm="ED25519", opts=child)
        host = tls.PrivateKey(f"{name}-host-key", algorithm="ED25519", opts=child)
        namespace_object = namespace_manifest()
        namespace = k8s.core.v1.Namespace(
            f"{name}-namespace",
            metadata=namespace_object["metadata"],
            opts=pulumi.ResourceOptions(parent=self, depends_on=opts.depends_on if opts else None),
        )
        in_namespace = pulumi.ResourceOptions(parent=self, depends_on=[namespace])
        keys_object: Any = keys_manifest(
            client.private_key_openssh,
            client.public_key_openssh,
            host.private_key_openssh,
            pulumi.Output.concat(KNOWN_HOSTS_PATTERN, host.public_key_openssh),
        )
        # Each object names the namespace as its manifest does, and waits for it (`in_namespace`).
        keys = k8s.core.v1.Secret(
            f"{name}-ssh",
            metadata=keys_object["metadata"],
            type=keys_object["type"],
            string_data=pulumi.Output.secret(keys_object["stringData"]),
            opts=in_namespace,
        )
        tools_object: Any = tools_manifest()
        tools = k8s.core.v1.ConfigMap(
            f"{name}-tools",
            metadata=tools_object["metadata"],
            data=tools_object["data"],
            opts=in_namespace,
        )
        policy_object: Any = network_policy_manifest()
        policy = k8s.networking.v1.NetworkPolicy(
            f"{name}-peers-only",
            metadata=policy_object["metadata"],
            spec=policy_object["spec"],
            opts=in_namespace,
        )
        timeout = args["timeout_minutes"]
        waits = await_timeouts(timeout)
        self.job_names = {}
        for check in args["checks"]:
            service_object: Any = service_manifest(check)
            service = k8s.core.v1.Service(
                f"{name}-{check.pool}-service",
                metadata=service_object["metadata"],
                spec=service_object["spec"],
                opts=in_namespace,
            )
            job = job_manifest(check, timeout)
            metadata: Any = awaited_metadata(job["metadata"], timeout)
            created = k8s.batch.v1.Job(
                f"{name}-{check.pool}",
                metadata=metadata,
                spec=job["spec"],
                opts=pulumi.ResourceOptions(
                    parent=self, depends_on=[keys, tools, service, policy], custom_timeouts=waits
                ),
            )
            self.job_names[check.pool] = created.metadata["name"]
        self.register_outputs({"job_names": self.job_names})

"""K3sEc2Servers: the k3s servers of a cluster on EC2, fixed instances behind the API load balancer.

Each server owns a network interface that is a resource of its own, so its private address (which
the other nodes join and which is in the API certificate) stays the same when the instance is
replaced. Servers are not in an autoscaling group: their number is the etcd quorum (1 or 3), and
each one's user data differs (each joins through the others; the first starts the cluster when none
of them answers: components/k3s/host_scripts.py `server_join`).
"""

import functools
from dataclasses import replace
from typing import Optional, TypedDict

import pulumi
import pulumi_aws as aws

from gpukit.components.k3s.cloud_init import CloudNode
from gpukit.components.k3s.host_scripts import API_PORT, server_join
from gpukit.components.k3s.names import url_host
from gpukit.components.pools import PoolFacts
from gpukit.providers.aws.k3s.iam import fetch_secrets_script, provider_id_script
from gpukit.providers.aws.k3s.images import k3s_image
from gpukit.providers.aws.k3s.launch import node_launch_template
from gpukit.providers.aws.k3s.user_data import ec2_user_data, node_user_data

TYPE_TOKEN = "gpukit:index:K3sEc2Servers"


class K3sEc2ServersArgs(TypedDict):
    cluster_name: str
    pool: PoolFacts
    """The server pool (Python-only: this component is internal to K3sEc2Cluster)."""
    node: CloudNode
    """What every server runs; cluster-init and TLS SANs are set here per server."""
    region: str
    subnet_ids: pulumi.Input[list[str]]
    """Private subnets: server i gets subnet i mod n, so three servers spread over the zones."""
    security_group_ids: list[pulumi.Input[str]]
    instance_profile_arn: pulumi.Input[str]
    secret_arn: pulumi.Input[str]
    secret_version_id: pulumi.Input[str]
    """The version of the join secret this cluster's servers read (never "the current one")."""
    api_dns_name: pulumi.Input[str]
    target_group_arn: pulumi.Input[str]
    tags: dict[str, str]
    """Put on the instances and their volumes."""
    boot_after: list[pulumi.Resource]
    """What must exist before a server boots: its join secret's value and the grant to read it."""


class K3sEc2Servers(pulumi.ComponentResource):
    instances: list[pulumi.Resource]
    join_urls: pulumi.Output[list[str]]
    """https://<server's network interface address>:6443 of every server: addresses that outlive
    the instances, so a replacement server or a new agent always finds the others there."""
    api_url: pulumi.Output[str]
    """https://<the API load balancer>:6443."""

    def __init__(self, name: str, args: K3sEc2ServersArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        pool = args["pool"]
        cluster = args["cluster_name"]
        count = pool.min_nodes
        subnets = pulumi.Output.from_input(args["subnet_ids"])

        template = node_launch_template(
            f"{name}-lt",
            description=f"gpukit k3s servers of {cluster}",
            image=k3s_image(pool.instance.arch, pool.is_gpu, args["node"].driver),
            disk_size_gb=pool.disk_size_gb,
            instance_profile_arn=args["instance_profile_arn"],
            tags=args["tags"],  # the instances add their Name; the same keys keep them free of drift
            opts=child,
        )
        interfaces = [
            aws.ec2.NetworkInterface(
                f"{name}-{i}-eni",
                subnet_id=subnets.apply(functools.partial(_pick, i)),
                security_groups=args["security_group_ids"],
                description=f"k3s server {i} of {cluster}: its address outlives the instance",
                tags={"Name": f"{cluster}-{pool.name}-{i}"},
                opts=child,
            )
            for i in range(count)
        ]
        addresses = [eni.private_ip for eni in interfaces]
        self.join_urls = pulumi.Output.all(*addresses).apply(
            lambda ips: [f"https://{url_host(ip)}:{API_PORT}" for ip in ips]
        )
        self.api_url = pulumi.Output.concat("https://", args["api_dns_name"], f":{API_PORT}")

        self.instances = []
        for i, eni in enumerate(interfaces):
            user_data = pulumi.Output.all(
                pulumi.Output.from_input(args["api_dns_name"]),
                pulumi.Output.from_input(args["secret_arn"]),
                pulumi.Output.from_input(args["secret_version_id"]),
                *addresses,
            ).apply(functools.partial(_server_user_data, args, i))
            instance = aws.ec2.Instance(
                f"{name}-{i}",
                instance_type=pool.instance.name,
                launch_template={"id": template.id, "version": template.latest_version.apply(str)},
                primary_network_interface={"network_interface_id": eni.id},
                user_data_base64=user_data,
                tags={**args["tags"], "Name": f"{cluster}-{pool.name}-{i}"},
                opts=pulumi.ResourceOptions(
                    parent=self,
                    depends_on=args["boot_after"],
                    # Its network interface (and address) attaches to one instance at a time: a
                    # replacement must free it first.
                    delete_before_replace=True,
                    # cloud-init runs the bootstrap at first boot only, so new user data would do
                    # nothing on a running server, and a new template version would replace it (its
                    # disk holds the cluster's datastore). Both apply to servers created later; k3s
                    # upgrades of running servers are a separate, later step.
                    ignore_changes=["userDataBase64", "launchTemplate"],
                ),
            )
            aws.lb.TargetGroupAttachment(
                f"{name}-{i}-api",
                target_group_arn=args["target_group_arn"],
                target_id=instance.id,
                port=API_PORT,
                opts=child,
            )
            self.instances.append(instance)

        self.register_outputs({"join_urls": self.join_urls})


def _pick(index: int, subnet_ids: list[str]) -> str:
    return subnet_ids[index % len(subnet_ids)]


def _server_user_data(args: K3sEc2ServersArgs, index: int, values: list[str]) -> str:
    """Each server joins through the others; the first starts the cluster when none answers. Servers
    keep their instance profile once joined (agents give theirs up): the Cluster Autoscaler runs on
    them with it, and the server join secret it can read holds nothing a server's disk does not."""
    dns_name, secret_arn, version_id, *addresses = values
    urls = [f"https://{url_host(ip)}:{API_PORT}" for ip in addresses]
    node = replace(args["node"], join=server_join(index, urls), tls_sans=(dns_name, *addresses))
    fetch = fetch_secrets_script(args["region"], secret_arn, version_id)
    return ec2_user_data(node_user_data(node, fetch, provider_id=provider_id_script()))

"""InferenceVerification: applies the inference check (check_objects.py) and makes `pulumi up` wait for
it. Its namespace, then the fixtures in order (Services, simulators, the route, the ScaledObjects), then
the holder and the check Job, awaited as every Job gpukit proves something with
(components/awaited_jobs.py): the update fails with the check's FAIL line if a step does not happen.
"""

from typing import Any, NotRequired, Optional, TypedDict

import pulumi

from gpukit.components.addons.inference.check_objects import GATEWAY_HOST_ENV
from gpukit.components.awaited_jobs import await_timeouts, awaited_metadata
from gpukit.components.custom_objects import custom_object

TYPE_TOKEN = "gpukit:index:InferenceVerification"
BUILT_IN_KINDS = ("Service", "Deployment")


class InferenceVerificationArgs(TypedDict):
    namespace: dict[str, Any]
    fixtures: list[dict[str, Any]]
    jobs: list[dict[str, Any]]
    """The holder (where the DCGM step runs) and the check Job, last."""
    timeout_minutes: int
    gateway_status: NotRequired[pulumi.Input[Any]]
    """The Gateway's status, where the check reaches it at its own address (GKE): the check pod's
    GATEWAY_HOST is its first address."""


def first_address(status: Any) -> str:
    """The first of a Gateway status's addresses; empty where it has none (the check then says so)."""
    addresses = (status or {}).get("addresses") or [{}]
    return str(addresses[0].get("value", ""))


def _with_gateway_host(job: dict[str, Any], host: pulumi.Input[str]) -> dict[str, Any]:
    """The check Job with its pod's GATEWAY_HOST set to `host` (an Output)."""
    template = job["spec"]["template"]
    container = template["spec"]["containers"][0]
    env = [
        {"name": e["name"], "value": host} if e["name"] == GATEWAY_HOST_ENV else e for e in container["env"]
    ]
    containers = [{**container, "env": env}, *template["spec"]["containers"][1:]]
    spec = {**job["spec"], "template": {**template, "spec": {**template["spec"], "containers": containers}}}
    return {**job, "spec": spec}


class InferenceVerification(pulumi.ComponentResource):
    """Pass the cluster's Kubernetes provider through `opts.providers`, and make it depend on what the
    check uses (InferenceServing: the store, KEDA, the Gateway; the GPU verification)."""

    check_job: pulumi.Output[str]

    def __init__(
        self, name: str, args: InferenceVerificationArgs, opts: Optional[pulumi.ResourceOptions] = None
    ):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        waits = list(opts.depends_on) if opts and isinstance(opts.depends_on, list) else []
        namespace = custom_object(
            f"{name}-namespace", args["namespace"], pulumi.ResourceOptions(parent=self, depends_on=waits)
        )
        after: list[pulumi.Resource] = [namespace]
        workloads: list[pulumi.Resource] = []
        for obj in args["fixtures"]:
            # A CRD's object (the route, a ScaledObject, a health-check policy) after what it names.
            built_in = obj["kind"] in BUILT_IN_KINDS
            applied = custom_object(
                f"{name}-{obj['kind'].lower()}-{obj['metadata']['name']}",
                obj,
                pulumi.ResourceOptions(parent=self, depends_on=[namespace, *([] if built_in else workloads)]),
            )
            if built_in:
                workloads.append(applied)
            after.append(applied)
        deadline = args["timeout_minutes"]
        last = len(args["jobs"]) - 1
        for index, rendered in enumerate(args["jobs"]):
            job = rendered
            if index == last and "gateway_status" in args:
                address = pulumi.Output.from_input(args["gateway_status"]).apply(first_address)
                job = _with_gateway_host(rendered, address)
            manifest = {**job, "metadata": awaited_metadata(job["metadata"], deadline)}
            custom_object(
                # The Job's role, not its name: a changed check is a new Job (its name carries the
                # check's hash) replacing the old one under the same resource.
                f"{name}-{'check' if index == last else 'gpu-holder'}",
                manifest,
                pulumi.ResourceOptions(
                    parent=self, depends_on=after, custom_timeouts=await_timeouts(deadline)
                ),
            )
        self.check_job = pulumi.Output.from_input(args["jobs"][-1]["metadata"]["name"])
        self.register_outputs({"check_job": self.check_job})

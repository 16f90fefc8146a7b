"""How `pulumi up` waits for a Kubernetes Job that proves something (GPU verification, the NCCL check).

pulumi-kubernetes 4.34.2's batch/v1 Job await (pulumi_kubernetes/batch/v1/Job.py docstring): a Job
counts as created once its `Complete` condition is True, and a `Failed` condition fails it at once; by
default it times out after 10 minutes, which the `customTimeouts` resource option overrides
(pulumi/pulumi-kubernetes#672: customTimeouts first, then the `pulumi.com/timeoutSeconds` annotation,
then the default; both are set to the same value, so the plan shows it). The wait is the Job's own
deadline plus a margin: at the deadline Kubernetes fails the Job (DeadlineExceeded), the clearer message.
A failed Job stays in the stack marked not ready; `pulumi.com/replaceUnready: "true"` makes the next
`pulumi up` replace it, so fixing the cause and running `pulumi up` again checks again.
`pulumi.com/skipAwait` is never set: without the await a deploy would prove nothing.
"""

from typing import Any

import pulumi

AWAIT_MARGIN_MINUTES = 2


def await_seconds(deadline_minutes: int) -> int:
    """How long `pulumi up` waits for a Job whose activeDeadlineSeconds is `deadline_minutes`."""
    return (deadline_minutes + AWAIT_MARGIN_MINUTES) * 60


def awaited_metadata(metadata: dict[str, Any], deadline_minutes: int) -> dict[str, Any]:
    """The Job's metadata with the await annotations."""
    return {
        **metadata,
        "annotations": {
            **metadata.get("annotations", {}),
            "pulumi.com/timeoutSeconds": str(await_seconds(deadline_minutes)),
            "pulumi.com/replaceUnready": "true",
        },
    }


def await_timeouts(deadline_minutes: int) -> pulumi.CustomTimeouts:
    """The Job resource's customTimeouts."""
    seconds = await_seconds(deadline_minutes)
    return pulumi.CustomTimeouts(create=f"{seconds}s", update=f"{seconds}s")

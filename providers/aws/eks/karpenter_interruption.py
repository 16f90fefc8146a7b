"""Karpenter's interruption queue: EventBridge sends EC2 and AWS Health events about the cluster's
machines to an SQS queue the controller reads, so it drains a node before EC2 takes it (a spot
interruption warning gives two minutes) and replaces it ahead of time on a rebalance recommendation or
scheduled maintenance (Karpenter docs, "Disruption" > "Interruption").

Queue, policy and rules as Karpenter's CloudFormation reference at v1.14.1 has them
(tests/reference/karpenter-v1.14.1/cloudformation.yaml: KarpenterInterruptionQueue, its QueuePolicy and
the five rules): SSE with SQS-managed keys, messages kept 300 seconds (an event older than that is about
a machine already gone).
"""

import json

import pulumi
import pulumi_aws as aws

from gpukit.providers.aws.iam_policies import interruption_queue_policy

MESSAGE_RETENTION_SECONDS = 300
# Rule suffix -> EventBridge event pattern.
INTERRUPTION_EVENTS: dict[str, dict[str, list[str]]] = {
    "health": {"source": ["aws.health"], "detail-type": ["AWS Health Event"]},
    "spot": {"source": ["aws.ec2"], "detail-type": ["EC2 Spot Instance Interruption Warning"]},
    "rebalance": {"source": ["aws.ec2"], "detail-type": ["EC2 Instance Rebalance Recommendation"]},
    "state": {"source": ["aws.ec2"], "detail-type": ["EC2 Instance State-change Notification"]},
    "reservation": {
        "source": ["aws.ec2"],
        "detail-type": ["EC2 Capacity Reservation Instance Interruption Warning"],
    },
}


def interruption_queue_name(cluster_name: str) -> str:
    return f"{cluster_name}-karpenter"


def interruption_queue(name: str, cluster_name: str, parent: pulumi.Resource) -> aws.sqs.Queue:
    """The queue, who may send to it, and one EventBridge rule per kind of event."""
    child = pulumi.ResourceOptions(parent=parent)
    queue = aws.sqs.Queue(
        f"{name}-interruption-queue",
        name=interruption_queue_name(cluster_name),
        message_retention_seconds=MESSAGE_RETENTION_SECONDS,
        sqs_managed_sse_enabled=True,
        opts=child,
    )
    aws.sqs.QueuePolicy(
        f"{name}-interruption-queue-policy",
        queue_url=queue.url,
        policy=queue.arn.apply(interruption_queue_policy),
        opts=child,
    )
    for suffix, pattern in INTERRUPTION_EVENTS.items():
        rule = aws.cloudwatch.EventRule(
            f"{name}-{suffix}-rule",
            name=f"{cluster_name}-karpenter-{suffix}",
            description=f"Karpenter interruption handling of {cluster_name}: {pattern['detail-type'][0]}",
            event_pattern=json.dumps(pattern),
            opts=child,
        )
        aws.cloudwatch.EventTarget(
            f"{name}-{suffix}-target",
            rule=rule.name,
            target_id="KarpenterInterruptionQueueTarget",
            arn=queue.arn,
            opts=child,
        )
    return queue

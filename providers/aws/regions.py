"""The AWS regions gpukit builds in: every region of the commercial `aws` partition, all of which offer
EKS.

Source: boto/botocore `botocore/data/endpoints.json` @0e6e2404 (2026-08-07): the `aws` partition's
`regions` (34), each also listed under `services.eks.endpoints`. The other partitions (aws-cn,
aws-us-gov, the ISO partitions, aws-eusc) are left out on purpose: gpukit writes `arn:aws:` ARNs
(providers/aws/iam_policies.py), which those partitions refuse.

To update: take the newest botocore's endpoints.json, list `partitions[partition == "aws"].regions`,
and keep those under `services.eks.endpoints`; update the commit and date above.
"""

AWS_REGIONS_SOURCE = "botocore endpoints.json @0e6e2404, 2026-08-07"

AWS_REGIONS: frozenset[str] = frozenset(
    {
        "af-south-1",
        "ap-east-1",
        "ap-east-2",
        "ap-northeast-1",
        "ap-northeast-2",
        "ap-northeast-3",
        "ap-south-1",
        "ap-south-2",
        "ap-southeast-1",
        "ap-southeast-2",
        "ap-southeast-3",
        "ap-southeast-4",
        "ap-southeast-5",
        "ap-southeast-6",
        "ap-southeast-7",
        "ca-central-1",
        "ca-west-1",
        "eu-central-1",
        "eu-central-2",
        "eu-north-1",
        "eu-south-1",
        "eu-south-2",
        "eu-west-1",
        "eu-west-2",
        "eu-west-3",
        "il-central-1",
        "me-central-1",
        "me-south-1",
        "mx-central-1",
        "sa-east-1",
        "us-east-1",
        "us-east-2",
        "us-west-1",
        "us-west-2",
    }
)

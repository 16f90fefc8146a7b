"""The EKS kubeconfig: it authenticates with `aws eks get-token`, as the AWS CLI's own does."""

from gpukit.components.kubeconfig import exec_kubeconfig


def eks_kubeconfig(cluster_name: str, endpoint: str, ca_data: str, region: str) -> str:
    """A kubeconfig that authenticates with `aws eks get-token` (no static credentials inside)."""
    return exec_kubeconfig(
        cluster_name,
        endpoint,
        ca_data,
        {
            "command": "aws",
            "args": [
                "eks",
                "get-token",
                "--cluster-name",
                cluster_name,
                "--region",
                region,
                "--output",
                "json",
            ],
            "interactiveMode": "Never",
        },
    )

"""EKS: the cluster, its managed node groups, the Cluster Autoscaler, EBS storage and the kubeconfig."""

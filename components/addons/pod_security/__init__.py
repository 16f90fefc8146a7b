"""The pod-security add-on: on platforms whose API server takes no cluster-wide Pod Security default
(EKS, GKE), the `podSecurity` level as labels on the namespaces workloads start in. k3s enforces the
level in its API server's admission configuration instead (components/k3s/host_scripts.py)."""

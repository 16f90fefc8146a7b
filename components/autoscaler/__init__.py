"""The Kubernetes Cluster Autoscaler, whatever runs it: chart, image per minor, shared flags."""

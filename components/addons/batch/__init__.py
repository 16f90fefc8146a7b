"""The batch add-on: Kueue with queues and GPU quotas generated from the pools, gang admission, and
Kubeflow Trainer v2 with JobSet (docs/batch.md)."""

"""The inference add-on (`gpukit:inference`): the metrics store each substrate uses naturally, the GPU
and workload metrics it collects, and KEDA scaling pods on its queries.

- names.py, charts.py: where it installs and what (pinned charts);
- settings.py: a cluster's settings, resolved once; variant.py: what a substrate declares for it;
- sizing.py: the in-cluster Prometheus's series, volume and memory at the pools' max;
- values.py: the charts' values; monitors.py: what the store scrapes; scalers.py: KEDA's objects and
  the example ScaledObjects docs/inference.md shows; policies.py: the NetworkPolicy on the store and
  the admission policy on KEDA's triggers; objects.py: the namespaces;
- validate.py, findings.py, report.py: bad input, preflight findings, the plan's lines;
- addon.py: the seam's entry; component.py: the Pulumi component that applies it all.
"""

"""The charts the batch add-on installs, pinned; their values are checked against the vendored
values.yaml of each (tests/reference/)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Chart:
    name: str
    version: str
    repository: str
    """An OCI registry path: the chart is `<repository>/<name>`."""

    @property
    def reference(self) -> str:
        return f"{self.repository}/{self.name}"


# kubernetes-sigs/kueue v0.19.2 (2026-08-20): site/content/en/docs/getting-started/installation.md.
KUEUE = Chart("kueue", "0.19.2", "oci://registry.k8s.io/kueue/charts")
# kubeflow/trainer v2.3.0 (2026-08-06): docs/operator-guides/installation.md; it installs JobSet as a
# dependency (charts/kubeflow-trainer/Chart.yaml: jobset 0.12.0 from oci://registry.k8s.io/jobset/charts).
TRAINER = Chart("kubeflow-trainer", "2.3.0", "oci://ghcr.io/kubeflow/charts")
JOBSET = Chart("jobset", "0.12.0", "oci://registry.k8s.io/jobset/charts")

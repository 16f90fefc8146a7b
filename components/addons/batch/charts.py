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
# kubeflow/trainer v2.2.1, not the newer v2.3.0: Kueue v0.19.2 is built against Trainer v2.2.1 (its
# go.mod), and Trainer v2.3 changed how TrainJob runtimePatches merge, which Kueue's TrainJob integration
# writes ("Trainer v2.2 and v2.3 don't have API compatibility", kubernetes-sigs/kueue#14504, in Kueue's
# main branch only). Move both together. The chart installs JobSet as a dependency
# (charts/kubeflow-trainer/Chart.yaml at v2.2.1: jobset 0.11.0 from oci://registry.k8s.io/jobset/charts).
TRAINER = Chart("kubeflow-trainer", "2.2.1", "oci://ghcr.io/kubeflow/charts")
JOBSET = Chart("jobset", "0.11.0", "oci://registry.k8s.io/jobset/charts")

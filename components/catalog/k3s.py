"""k3s releases gpukit installs, one pinned patch per Kubernetes minor.

Source: k3s-io/k3s, the August 2026 release cycle: #14553 "Update stable to v1.36.4+k3s1"
(2026-08-27), and the Kubernetes bumps #14544 (v1.35.8) and #14543 (v1.34.11). k3s ships a patch for
each supported minor every month (v1.36.5, v1.35.9, v1.34.12 followed on 2026-09-30, seen only in
third-party notes so far); `gpukit:cluster.k3sVersion` picks another one.
"""

K3S_VERSIONS: dict[str, str] = {
    "1.34": "v1.34.11+k3s1",
    "1.35": "v1.35.8+k3s1",
    "1.36": "v1.36.4+k3s1",
}


def k3s_minor(version: str) -> str:
    """`v1.35.7+k3s1` -> `1.35`."""
    return ".".join(version.lstrip("v").split(".")[:2])


def k3s_version_for(kubernetes_version: str, override: str | None = None) -> str:
    return override or K3S_VERSIONS[kubernetes_version]

"""k3s releases gpukit installs, one pinned patch per Kubernetes minor, and the SHA-256 sums gpukit
checks the downloaded installer and binary against before anything of them runs as root.

Versions: k3s-io/k3s, the August 2026 release cycle: #14553 "Update stable to v1.36.4+k3s1"
(2026-08-27), and the Kubernetes bumps #14544 (v1.35.8) and #14543 (v1.34.11). k3s ships a patch for
each supported minor every month (v1.36.5, v1.35.9, v1.34.12 followed on 2026-09-30, seen only in
third-party notes so far); `gpukit:cluster.k3sVersion` picks another one.

Checksums: a release's binaries are listed in its `sha256sum-<arch>.txt` asset
(https://github.com/k3s-io/k3s/releases/download/<version>/sha256sum-amd64.txt, the `k3s` line; the
arm64 file's `k3s-arm64` line). gpukit could not download those files where it was built (no internet
there), so it pins only sums it found published by two or more independent projects that state they
took them from those files or from hashing the downloads (read 2026-12):
- v1.36.4+k3s1 amd64 835873f3...: rediacc/renet's k3s pin (Dockerfile K3S_SHA256_AMD64, with both
  derivations written out), a DAWO appliance installer (DEFAULT_K3S_BINARY_SHA256) and a vLLM canary
  script (K3S_AMD64_SHA256); arm64 c9207063...: rediacc/renet (K3S_SHA256_ARM64, both derivations).
- v1.35.8+k3s1 amd64 12f81c9b...: a homelab's k3s bootstrap record ("streamed binary SHA256 matched
  the official AMD64 manifest and GitHub asset digest", 2026-09-26) and a Go cluster tool's
  K3sCatalog (which lists the v1.36.4 sums above too); arm64 898476e0...: that catalog,
  saiyam1814/kiac (k3sARM64Assets, downloaded and verified) and an upgrade runbook that copied it from
  sha256sum-arm64.txt (2026-09-23).
- v1.34.11+k3s1 amd64 c1991a83...: a Terraform production host (k3s_binary_sha256), a Packer image
  build ("from the release's sha256sum-amd64.txt") and a Python bundle installer (K3S_SHA); arm64
  272f45b9...: saiyam1814/kiac, the same Packer build, the upgrade runbook above and an air-gap bundle
  manifest.
- install.sh at the v1.36.4+k3s1 tag, 46177d4c...: rediacc/renet (K3S_INSTALL_SHA256, commit
  4dedb15b), the Goblin installer and the DAWO appliance installer (both for the v1.36.4+k3s1 tag).
For any other release the stack gives the sums itself (`gpukit:cluster.k3sSha256`); gpukit never
installs a binary it cannot check.
"""

K3S_VERSIONS: dict[str, str] = {
    "1.34": "v1.34.11+k3s1",
    "1.35": "v1.35.8+k3s1",
    "1.36": "v1.36.4+k3s1",
}

# The installer gpukit runs (with INSTALL_K3S_SKIP_DOWNLOAD: it only writes the systemd unit and the
# helper scripts; gpukit downloads and checks the binary itself). install.sh installs any release.
INSTALLER_TAG = "v1.36.4+k3s1"
INSTALLER_SHA256 = "46177d4c99440b4c0311b67233823a8e8a2fc09693f6c89af1a7161e152fbfad"

ARCHES = ("amd64", "arm64")
"""What gpukit's machines run (catalog InstanceType.arch); the key of a binary's sum."""

BINARY_SHA256: dict[str, dict[str, str]] = {
    "v1.34.11+k3s1": {
        "amd64": "c1991a83985375d318560ac10f2def2fa117995d94d0319d801f283ca074d1b0",
        "arm64": "272f45b9efc69d0bbdb7042156156c6903087829a5003d4593af0ad2d08d76d4",
    },
    "v1.35.8+k3s1": {
        "amd64": "12f81c9bb5b71e098a4f7a2d187e350902a9339a6c3d5e56c20a03f7a417e07f",
        "arm64": "898476e008704289382377ef19946f23b511cf2678042cb5c8aef991e64f840a",
    },
    "v1.36.4+k3s1": {
        "amd64": "835873f37245fc615f547a2fe2af9402a347875f13fa64a1f136de644955ea3f",
        "arm64": "c920706346d5ad4e5cd3c7bf1bb09ce71ebe07fec829e513e40f1caf98aed8bb",
    },
}


def k3s_minor(version: str) -> str:
    """`v1.35.7+k3s1` -> `1.35`."""
    return ".".join(version.lstrip("v").split(".")[:2])


def k3s_version_for(kubernetes_version: str, override: str | None = None) -> str:
    return override or K3S_VERSIONS[kubernetes_version]


def installer_url() -> str:
    """install.sh at the pinned tag (raw.githubusercontent.com serves a tag's files). The `+` stays
    literal, as in the release URLs k3s's own installer builds."""
    return f"https://raw.githubusercontent.com/k3s-io/k3s/{INSTALLER_TAG}/install.sh"


def binary_url(version: str, arch: str) -> str:
    """The release asset of one architecture: `k3s` on amd64, `k3s-arm64` on arm64."""
    asset = "k3s" if arch == "amd64" else f"k3s-{arch}"
    return f"https://github.com/k3s-io/k3s/releases/download/{version}/{asset}"


def checksum_list_url(version: str, arch: str) -> str:
    """Where a stack's author reads the sums gpukit has not pinned."""
    return f"https://github.com/k3s-io/k3s/releases/download/{version}/sha256sum-{arch}.txt"


def binary_sha256(version: str, arch: str, given: dict[str, str] | None = None) -> str | None:
    """The sum to check `version`'s `arch` binary against: the stack's own (k3sSha256) first, then
    gpukit's pin; None when neither has one (validation refuses that stack)."""
    if given and arch in given:
        return given[arch]
    return BINARY_SHA256.get(version, {}).get(arch)

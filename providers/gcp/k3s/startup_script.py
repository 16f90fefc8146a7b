"""The Compute Engine startup script of k3s machines: it writes the shared host scripts and runs
bootstrap.sh once (components/k3s/cloud_init.py says what a machine runs). Pure: golden-tested and
shellcheck-checked. GCE takes 256 KiB per metadata value."""

from gpukit.components.k3s.cloud_init import (
    BOOTSTRAP_DIR,
    BOOTSTRAP_UNIT,
    BOOTSTRAP_UNIT_PATH,
    DONE_MARKER,
    START_BOOTSTRAP,
    CloudNode,
    node_scripts,
)


def gce_startup_script(node: CloudNode, fetch_secrets: str, provider_id: str | None = None) -> str:
    """A `startup-script` (GCE metadata) that writes the scripts and starts gpukit-bootstrap.service.

    Compute Engine's guest agent runs startup scripts on every image gpukit uses (Ubuntu and the
    Deep Learning VM images), on every boot: once bootstrap.sh has succeeded (its marker exists),
    later boots do nothing; until then the service retries a failed bootstrap a minute later. Each
    file is written with a quoted here-document, so nothing in it is expanded.
    """
    scripts = node_scripts(node, fetch_secrets, provider_id=provider_id)
    lines = [
        "#!/usr/bin/env bash",
        "# Rendered by gpukit (providers/gcp/k3s/startup_script.py): Compute Engine runs it at every boot.",
        "set -euo pipefail",
        f"if [ -e {DONE_MARKER} ]; then",
        '  echo "gpukit: bootstrapped at first boot; nothing to do"',
        "  exit 0",
        "fi",
        "umask 077",
        f"mkdir -p {BOOTSTRAP_DIR}",
    ]
    for name, text in scripts.items():
        delimiter = f"GPUKIT_{name.split('.')[0].upper().replace('-', '_')}_EOF"
        if delimiter in text.splitlines():
            raise ValueError(f"{name} contains its own here-document delimiter {delimiter}")
        lines += [f"cat > {BOOTSTRAP_DIR}/{name} <<'{delimiter}'", text.rstrip("\n"), delimiter]
        lines.append(f"chmod 700 {BOOTSTRAP_DIR}/{name}")
    lines += [f"cat > {BOOTSTRAP_UNIT_PATH} <<'GPUKIT_UNIT_EOF'", BOOTSTRAP_UNIT, "GPUKIT_UNIT_EOF"]
    lines += [f"chmod 644 {BOOTSTRAP_UNIT_PATH}", *START_BOOTSTRAP, ""]
    return "\n".join(lines)

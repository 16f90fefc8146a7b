"""Existing machines reached over SSH (bare metal, other clouds, lab workstations), joined into k3s."""

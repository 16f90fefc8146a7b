"""The NVIDIA GPU Operator: its component (component.py) and Helm values derived from what the nodes have
(values.py)."""

"""Test helpers for gpukit users: the `gpukit_cluster` pytest fixture (pytest_plugin.py)."""

"""Data tables (GPU models, instance types, drivers) and pure look-ups over them.

Every table names its source next to it; nothing here imports Pulumi.
"""

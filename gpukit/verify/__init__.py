"""`gpukit verify`: the GPU verification of `pulumi up`, run against an existing cluster."""

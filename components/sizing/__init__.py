"""`gpukit size`: which GPU sharing setting runs a mix of workloads on the fewest GPUs and dollars.

Pure: workloads and targets (GPU model, GPUs per node, $/h) in, options and a recommendation out.
"""

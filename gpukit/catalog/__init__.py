"""`gpukit catalog`: the GPU machines a cloud offers gpukit's pools, with their prices in a region."""

"""gpu_operator."""

"""Software gpukit installs into a cluster, one folder per add-on (gpu_operator/, storage/,
verification/), each an entry of registry.py. base.py is the seam: what an add-on declares, and what
its `build` is given. docs/architecture.md has the checklist for adding one."""

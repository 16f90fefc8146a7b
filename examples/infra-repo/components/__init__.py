"""This repository's own components: a package named like gpukit's folder, which gpukit never shadows
(installed, gpukit's are gpukit.components)."""

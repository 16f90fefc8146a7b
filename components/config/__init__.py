"""The config contract (schema.py), its parser (parse.py), and the one way in: resolve.py for stack
files, library.py for GpuCluster args from code."""

"""gpukit's command line and program entry: `gpukit plan` and the Pulumi program behind __main__.py."""

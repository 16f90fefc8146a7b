"""`gpukit size`: the command around components/sizing (which GPUs a stack offers, files, exit codes)."""

"""`gpukit plan`: the Pulumi program run in-process under a mock engine, then reported."""

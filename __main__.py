"""The Pulumi program (`pulumi up`): everything happens in gpukit.program, shared with `gpukit plan`."""

from gpukit.program import main

main()

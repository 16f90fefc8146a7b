"""Provider-neutral gpukit components, their Args, and the pure logic they are built from."""

"""`gpukit ephemeral`: throwaway copies of a stack that expire, deployed through the Pulumi Automation
API and destroyed by `down`, by `reap` once expired, or by the `gpukit_cluster` pytest fixture."""

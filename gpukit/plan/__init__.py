"""`gpukit plan`: a Pulumi program run in-process under a mock engine, then reported.

`plan_program` plans one's own program (an infra repo composing GpuCluster with its own resources)
the way `gpukit plan` plans gpukit's; `gpukit plan --program DIR` is the same from the command line.
"""

from gpukit.plan.engine import PlanResult, ProgramPlan, plan_program

__all__ = ["PlanResult", "ProgramPlan", "plan_program"]

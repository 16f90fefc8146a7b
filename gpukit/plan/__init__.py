"""`gpukit plan`: a Pulumi program run in-process under a mock engine, then reported.

`plan_program` plans one's own program (an infra repo composing GpuCluster with its own resources)
the way `gpukit plan` plans gpukit's; `gpukit plan --program DIR` is the same from the command line.
`render_program` prints its report, `write_artifacts` writes plan.json, manifests/ and boot/.
"""

from gpukit.plan.artifacts import plan_document, write_artifacts
from gpukit.plan.engine import PlanResult, ProgramPlan, plan_program
from gpukit.plan.report import render_program, render_text

__all__ = [
    "PlanResult",
    "ProgramPlan",
    "plan_document",
    "plan_program",
    "render_program",
    "render_text",
    "write_artifacts",
]

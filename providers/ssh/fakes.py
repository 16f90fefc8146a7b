"""`gpukit plan` fakes of k3s on existing hosts: none of its own. It creates no cloud resources; its SSH
commands, certificates and token are faked by the plan's shared fakes (gpukit/plan/fakes.py)."""

from collections.abc import Mapping
from typing import Any

from gpukit.components.plan_fakes import PlanFakes


def ssh_plan_fakes(config: Mapping[str, Any]) -> PlanFakes | None:
    return None

"""The stack snippet for a recommended option, in the shape issue 12 §1 plans for the `sharing` key.

`gpukit plan` does not accept `sharing` yet (it is refused until issue 12 §1-4 are built); the snippet
says so in a comment, so it is never mistaken for something that works today.
"""

from typing import Any

import yaml

from gpukit.components.sizing.modes import Mode
from gpukit.components.sizing.sizing import Option

NOT_YET = "# `sharing` is planned (issue 12), not accepted by `gpukit plan` yet"


def sharing_setting(option: Option) -> dict[str, Any]:
    if option.mode is Mode.WHOLE_GPU:
        return {"mode": Mode.WHOLE_GPU.value}
    if option.mode is Mode.MIG:
        layout = dict(option.mig_layout or {})
        if len(layout) == 1:  # one profile on every GPU: pods request nvidia.com/gpu
            return {"mode": "mig", "mig": {"strategy": "single", "profile": next(iter(layout))}}
        return {"mode": "mig", "mig": {"strategy": "mixed", "layout": layout}}
    return {"mode": option.mode.value, "replicas": option.replicas_per_gpu}


def stack_snippet(option: Option) -> str:
    pool = {
        "name": option.target.pool or f"{option.target.gpu.name.lower()}-shared",
        "instanceType": option.target.machine,
        "maxNodes": option.nodes,
        "sharing": sharing_setting(option),
    }
    body = yaml.safe_dump({"gpukit:nodePools": [pool]}, sort_keys=False, default_flow_style=False)
    return f"{NOT_YET}\n{body}"

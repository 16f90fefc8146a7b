"""The stack snippet for a recommended option: the pool with its `sharing` key, as the config
contract takes it (components/config/schema.py). Which settings a substrate takes (GKE: no mixed MIG)
is `gpukit plan`'s to check, and the snippet's comment says to run it.
"""

from typing import Any

import yaml

from gpukit.components.sizing.modes import Mode
from gpukit.components.sizing.sizing import Option

SNIPPET_NOTE = (
    "# merge into the pool in your stack, then run `gpukit plan` (it checks what the platform takes)"
)


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
    return f"{SNIPPET_NOTE}\n{body}"

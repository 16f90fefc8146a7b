"""What a substrate fakes for `gpukit plan`: outputs and invoke results of its cloud's resources.

The plan runs the real program under Pulumi's mock engine (gpukit/plan/fakes.py). Each cloud's fakes
(providers/<cloud>/fakes.py) make its resources' outputs look like what the cloud returns (ids,
ARNs, resource paths, endpoints), so everything derived from them renders as it would for real. An
invoke a cloud's fakes do not know fails the plan loudly: a silent all-None answer would plan a broken
cluster.
"""

import base64
import hashlib
from typing import Any, Protocol

FAKE_CA = base64.b64encode(b"-----BEGIN CERTIFICATE-----\ngpukit plan: fake CA\n-----END CERTIFICATE-----\n")


def stable_hex(*parts: str, length: int = 17) -> str:
    """A stable fake hex string for `parts`: the same names give the same ids in every plan."""
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:length]


class PlanFakes(Protocol):
    package: str
    """The Pulumi package whose resources and invokes these fake (`aws` owns `aws:...` tokens)."""

    def resource(self, token: str, name: str, inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """(id, outputs) for a resource of this package; resources it does not model get a stable id
        and no outputs beyond their inputs."""
        ...

    def invoke(self, token: str, args: dict[str, Any]) -> dict[str, Any] | None:
        """The result of an invoke of this package; None for one it does not know (the plan fails)."""
        ...

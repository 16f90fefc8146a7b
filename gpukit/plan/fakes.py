"""The mock engine behind `gpukit plan`: realistic fake outputs, strict invokes, and a record.

Each cloud's fakes live with its substrate (providers/<cloud>/fakes.py): they make outputs look like
what the cloud returns (ids, ARNs, endpoints), so everything the program derives from them renders as
it would for real. Here: the fakes for what runs on the deployer's machine or on the hosts (tls,
random, command), and the generic fallback for any other resource (a stable id, its inputs as its
outputs), so a plan of one's own program that mixes gpukit with other resources runs too. An invoke
no fakes know raises: a silent all-None answer would plan a broken cluster, and so does a resource name
its cloud would refuse (components/name_rules.py ResourceNameError).
"""

import asyncio
import atexit
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pulumi
from pulumi.runtime.mocks import MockCallArgs, MockMonitor, MockResourceArgs

from gpukit.components.plan_fakes import PlanFakes
from gpukit.components.plan_fakes import stable_hex as _hex  # short: the fakes below are full of ids
from gpukit.components.substrate import registry


def _pem(kind: str, name: str) -> str:
    return f"-----BEGIN {kind}-----\ngpukit plan fake {_hex(kind, name, length=32)}\n-----END {kind}-----\n"


class UnmockedInvokeError(RuntimeError):
    pass


@dataclass
class Recorded:
    urn: str
    type: str
    name: str
    parent: str
    provider: str
    custom: bool
    inputs: dict[str, Any]
    id: str = ""
    delete_before_replace: bool = False
    """The resource option: a replacement deletes the old resource before creating the new one."""
    ignore_changes: list[str] = field(default_factory=list)
    """The resource option: input properties whose changes an update leaves alone."""
    retain_on_delete: bool = False
    """The resource option: deleting it from the stack leaves the cloud or cluster object in place."""
    dependencies: list[str] = field(default_factory=list)
    """URNs the resource waits for (depends_on and the resources its inputs came from)."""


def substrate_fakes(config: Mapping[str, Any]) -> list[PlanFakes]:
    """Every registered substrate's cloud fakes (one per package), set up from the stack's config."""
    fakes: dict[str, PlanFakes] = {}
    for substrate in registry():
        found = substrate.plan_fakes(config)
        if found is not None:
            fakes.setdefault(found.package, found)
    return list(fakes.values())


GATEWAY = "kubernetes:gateway.networking.k8s.io/v1:Gateway"


def _octet(name: str) -> int:
    return 1 + int(_hex(name, length=4), 16) % 254


class PlanMocks(pulumi.runtime.Mocks):
    def __init__(self, fakes: Iterable[PlanFakes]) -> None:
        self.fakes = {f.package: f for f in fakes}
        # The engine registers resources from a thread pool: each thread hands its own call's args
        # to RecordingMonitor through this, so a record never pairs one resource with another's inputs.
        self.current = threading.local()

    @classmethod
    def for_config(cls, config: Mapping[str, Any]) -> "PlanMocks":
        """Mocks with every substrate's fakes, from a stack config's provider keys (aws:region ...)."""
        return cls(substrate_fakes(config))

    # --- resources
    def new_resource(self, args: MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        self.current.args = args
        state = dict(args.inputs)
        token, name = args.typ, args.name
        if not args.custom:
            return None, {}
        fakes = self.fakes.get(token.split(":", 1)[0])
        if fakes is not None:
            rid, outputs = fakes.resource(token, name, state)
        else:
            rid, outputs = f"{name}-{_hex(token, name, length=8)}", self._local_outputs(token, name)
        state.update(outputs)
        return rid, state

    def _local_outputs(self, token: str, name: str) -> dict[str, Any]:
        """Providers that run on the deployer's machine (tls, random) or on the hosts (command)."""
        if token == "random:index/randomPassword:RandomPassword":
            return {"result": f"plan-fake-{_hex(name, length=40)}"}
        if token == "tls:index/privateKey:PrivateKey":
            return {
                "privateKeyPem": _pem("PRIVATE KEY", name),
                "publicKeyPem": _pem("PUBLIC KEY", name),
                "privateKeyOpenssh": _pem("OPENSSH PRIVATE KEY", name),
                "publicKeyOpenssh": f"ssh-ed25519 gpukitplanfake{_hex('openssh', name, length=32)}\n",
            }
        if token in (
            "tls:index/selfSignedCert:SelfSignedCert",
            "tls:index/locallySignedCert:LocallySignedCert",
        ):
            return {"certPem": _pem("CERTIFICATE", name)}
        if token == "tls:index/certRequest:CertRequest":
            return {"certRequestPem": _pem("CERTIFICATE REQUEST", name)}
        if token in ("command:remote:Command", "command:local:Command"):
            return {"stdout": "", "stderr": ""}
        if token == GATEWAY:
            # What `pulumi up` reads once the Gateway is Programmed (its await): an address of
            # 192.0.2.0/24, which documentation reserves (RFC 5737), so a plan never names a real one.
            return {"status": {"addresses": [{"type": "IPAddress", "value": f"192.0.2.{_octet(name)}"}]}}
        return {}

    # --- invokes
    def call(self, args: MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
        fakes = self.fakes.get(args.token.split(":", 1)[0])
        result = fakes.invoke(args.token, dict(args.args)) if fakes is not None else None
        if result is None:
            raise UnmockedInvokeError(
                f"gpukit plan has no fake result for invoke {args.token!r}: a resource or data source "
                "gpukit's plan does not know; plan without it, or report it to gpukit"
            )
        return result, []


class RecordingMonitor(MockMonitor):
    """MockMonitor that also keeps each registration's parent and provider, for the resource tree."""

    def __init__(self, mocks: PlanMocks) -> None:
        super().__init__(mocks)
        self.plan_mocks = mocks
        self.recorded: list[Recorded] = []
        self._lock = threading.Lock()

    def RegisterResource(self, request: Any) -> Any:
        self.plan_mocks.current.args = None
        response = super().RegisterResource(request)  # type: ignore[no-untyped-call]
        args: MockResourceArgs | None = self.plan_mocks.current.args
        if args is None:  # the root Stack, which never reaches the mocks
            return response
        recorded = Recorded(
            urn=response.urn,
            type=request.type,
            name=request.name,
            parent=request.parent,
            provider=request.provider,
            custom=bool(request.custom),
            inputs=args.inputs,
            id=response.id,
            delete_before_replace=bool(request.deleteBeforeReplace),
            ignore_changes=list(request.ignoreChanges),
            retain_on_delete=bool(request.retainOnDelete),
            dependencies=list(request.dependencies),
        )
        with self._lock:
            self.recorded.append(recorded)
            _OPENED_LOOPS.add(asyncio.get_event_loop_policy().get_event_loop())
        return response


# The mock monitor opens an event loop per worker thread and never closes it. Worker threads (and
# their loops) are reused by later runs in the same process, so the loops are closed only at exit:
# left to the garbage collector during interpreter shutdown, one can fail noisily after its file
# descriptors are gone ("Exception ignored in BaseEventLoop.__del__").
_OPENED_LOOPS: set[asyncio.AbstractEventLoop] = set()


@atexit.register
def _close_opened_loops() -> None:
    for loop in _OPENED_LOOPS:
        if not loop.is_running() and not loop.is_closed():
            loop.close()

"""The plan's Kubernetes manifests as files a user can apply."""

from gpukit.plan.artifacts import kubernetes_object
from gpukit.plan.fakes import Recorded


def test_whole_numbers_are_written_as_integers() -> None:
    """The engine hands every number over as a double; an API server refuses `port: 80.0` for an int32
    field, so the written manifest says 80 (fractions stay as they are)."""
    recorded = Recorded(
        urn="urn:pulumi:s::p::kubernetes:core/v1:Service::svc",
        type="kubernetes:core/v1:Service",
        name="svc",
        parent="",
        provider="",
        custom=True,
        inputs={"metadata": {"name": "svc"}, "spec": {"ports": [{"port": 80.0}], "weight": 0.5}},
    )
    obj = kubernetes_object(recorded)
    assert obj["spec"]["ports"] == [{"port": 80}] and isinstance(obj["spec"]["ports"][0]["port"], int)
    assert obj["spec"]["weight"] == 0.5

"""The egress policy that keeps workload pods off the storage servers (issue 29, point 15): what it
allows, what it leaves out, and that Kubernetes takes it."""

import kubernetes_validate
import pytest

from gpukit.components.addons.storage.isolation import (
    INLINE_NFS_LABEL,
    POLICY_NAME,
    inline_nfs_policy,
    storage_egress_policy,
)


def test_pods_reach_everything_but_dedicated_servers() -> None:
    policy = storage_egress_policy("team-a", [("10.0.1.20", True), ("10.0.1.20", True), ("10.0.2.5", True)])
    assert policy["metadata"] == {
        "name": POLICY_NAME,
        "namespace": "team-a",
        "labels": {"app.kubernetes.io/managed-by": "gpukit"},
    }
    spec = policy["spec"]
    assert spec["podSelector"] == {} and spec["policyTypes"] == ["Egress"]
    assert spec["egress"] == [
        {"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.1.20/32", "10.0.2.5/32"]}}]},
        {"to": [{"namespaceSelector": {}}]},
    ]
    kubernetes_validate.validate(policy, "1.35.0", strict=True)


def test_a_host_that_serves_more_than_nfs_stays_reachable_but_on_the_nfs_port() -> None:
    """Over SSH the NFS host may be the k3s server: pods that call the API (10.43.0.1 goes to its :6443)
    must still reach it, so only TCP and UDP 2049 are left out there."""
    policy = storage_egress_policy("default", [("192.0.2.10", False)])
    egress = policy["spec"]["egress"]
    assert egress[0] == {"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["192.0.2.10/32"]}}]}
    rule = egress[2]
    assert rule["to"] == [{"ipBlock": {"cidr": "192.0.2.10/32"}}]
    allowed = {(p["protocol"], port) for p in rule["ports"] for port in (p["port"], p["endPort"])}
    assert ("TCP", 2048) in allowed and ("TCP", 2050) in allowed and ("UDP", 65535) in allowed
    for p in rule["ports"]:
        assert not p["port"] <= 2049 <= p["endPort"]
    assert {p["protocol"] for p in rule["ports"]} == {"TCP", "UDP"}
    kubernetes_validate.validate(policy, "1.35.0", strict=True)


def test_a_server_both_dedicated_and_shared_is_left_out_whole() -> None:
    egress = storage_egress_policy("default", [("10.0.1.20", False), ("10.0.1.20", True)])["spec"]["egress"]
    assert len(egress) == 2


def test_an_ipv6_server_gets_its_own_rule_and_names_are_left_out() -> None:
    """A DNS name cannot be an ipBlock (the report says such a server is not covered); an IPv6 host
    (an SSH host given by its v6 address) is excepted from ::/0."""
    policy = storage_egress_policy(
        "default", [("nas.lab.example", False), ("2001:db8::10", True), ("192.0.2.10", True)]
    )
    assert policy["spec"]["egress"][:2] == [
        {"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["192.0.2.10/32"]}}]},
        {"to": [{"ipBlock": {"cidr": "::/0", "except": ["2001:db8::10/128"]}}]},
    ]
    kubernetes_validate.validate(policy, "1.35.0", strict=True)


@pytest.mark.parametrize("servers", [[], [("nas.lab.example", False)]])
def test_without_an_address_nothing_is_excepted(servers: list[tuple[str, bool]]) -> None:
    egress = storage_egress_policy("default", servers)["spec"]["egress"]
    assert egress == [{"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}]}, {"to": [{"namespaceSelector": {}}]}]


def test_the_platforms_required_allows_are_named_with_their_port() -> None:
    """GKE: the metadata server's addresses, which its network policy guide says to allow explicitly."""
    policy = storage_egress_policy("default", [("10.0.1.20", True)], [("169.254.169.252/32", 988)])
    assert policy["spec"]["egress"][-1] == {
        "to": [{"ipBlock": {"cidr": "169.254.169.252/32"}}],
        "ports": [{"protocol": "TCP", "port": 988}],
    }
    kubernetes_validate.validate(policy, "1.35.0", strict=True)


def _admits(pod_spec: dict[str, object]) -> bool:
    import celpy

    policy, _ = inline_nfs_policy()
    (validation,) = policy["spec"]["validations"]
    env = celpy.Environment()
    program = env.program(env.compile(validation["expression"]))
    return bool(program.evaluate({"object": celpy.json_to_cel({"spec": pod_spec})}))


def test_inline_nfs_volumes_are_refused_and_claims_are_not() -> None:
    """An inline `nfs` volume is mounted by the kubelet with the node's address, which the servers
    admit, so the NetworkPolicy never sees it: the admission policy refuses it (Pod Security baseline
    allows the volume type)."""
    assert not _admits({"volumes": [{"name": "x", "nfs": {"server": "10.0.1.20", "path": "/srv"}}]})
    assert not _admits(
        {"volumes": [{"name": "c", "persistentVolumeClaim": {"claimName": "c"}}, {"name": "x", "nfs": {}}]}
    )
    assert _admits({"volumes": [{"name": "c", "persistentVolumeClaim": {"claimName": "shared-checkpoints"}}]})
    assert _admits({"containers": []})


def test_the_inline_nfs_policy_spares_kube_system_and_namespaces_that_opt_out() -> None:
    policy, binding = inline_nfs_policy()
    expressions = policy["spec"]["matchConstraints"]["namespaceSelector"]["matchExpressions"]
    assert {
        "key": "kubernetes.io/metadata.name",
        "operator": "NotIn",
        "values": ["kube-system"],
    } in expressions
    assert {"key": INLINE_NFS_LABEL, "operator": "NotIn", "values": ["allowed"]} in expressions
    assert policy["spec"]["failurePolicy"] == "Fail"
    assert binding["spec"] == {"policyName": policy["metadata"]["name"], "validationActions": ["Deny"]}
    for manifest in (policy, binding):
        kubernetes_validate.validate(manifest, "1.35.0", strict=True)

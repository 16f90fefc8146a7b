"""IAM policy documents: least privilege for the autoscaler, Pod Identity trust, node role policies."""

import json

from gpukit.providers.aws.iam_policies import (
    KEY_ADMIN_ACTIONS,
    NODE_ROLE_POLICIES,
    cluster_autoscaler_policy,
    join_secret_key_policy,
    pod_identity_trust_policy,
)

MUTATING = {"autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup"}


def _actions(statement: dict) -> list[str]:
    action = statement["Action"]
    return [action] if isinstance(action, str) else list(action)


def _statements(document: str) -> list[dict]:
    parsed = json.loads(document)
    assert parsed["Version"] == "2012-10-17"
    return parsed["Statement"]


def test_mutating_autoscaler_actions_only_on_groups_this_cluster_owns():
    statements = _statements(cluster_autoscaler_policy("c1"))
    with_mutation = [s for s in statements if MUTATING & set(_actions(s))]
    assert len(with_mutation) == 1
    statement = with_mutation[0]
    assert set(_actions(statement)) == MUTATING
    assert statement["Effect"] == "Allow"
    assert statement["Condition"] == {
        "StringEquals": {
            "aws:ResourceTag/k8s.io/cluster-autoscaler/c1": "owned",
            "aws:ResourceTag/k8s.io/cluster-autoscaler/enabled": "true",
        }
    }


def test_autoscaler_condition_follows_the_cluster_name():
    statements = _statements(cluster_autoscaler_policy("gpu-prod"))
    conditions = [s["Condition"]["StringEquals"] for s in statements if "Condition" in s]
    assert conditions == [
        {
            "aws:ResourceTag/k8s.io/cluster-autoscaler/gpu-prod": "owned",
            "aws:ResourceTag/k8s.io/cluster-autoscaler/enabled": "true",
        }
    ]


def test_unconditioned_statements_only_describe():
    for statement in _statements(cluster_autoscaler_policy("c1")):
        if "Condition" not in statement:
            verbs = [a.split(":", 1)[1] for a in _actions(statement)]
            assert all(v.startswith(("Describe", "Get")) for v in verbs), verbs


def test_autoscaler_can_describe_node_groups():
    allowed = {
        a for s in _statements(cluster_autoscaler_policy("c1")) if s["Effect"] == "Allow" for a in _actions(s)
    }
    assert "eks:DescribeNodegroup" in allowed
    assert "autoscaling:DescribeAutoScalingGroups" in allowed
    assert "ec2:DescribeInstanceTypes" in allowed


def test_no_statement_allows_wildcard_actions():
    for statement in _statements(cluster_autoscaler_policy("c1")):
        for action in _actions(statement):
            assert "*" not in action, action


def test_pod_identity_trust_policy():
    statements = _statements(pod_identity_trust_policy())
    assert len(statements) == 1
    statement = statements[0]
    assert statement["Effect"] == "Allow"
    assert statement["Principal"] == {"Service": "pods.eks.amazonaws.com"}
    assert set(_actions(statement)) == {"sts:AssumeRole", "sts:TagSession"}


def test_node_role_uses_pull_only_registry_policy():
    names = [arn.rsplit("/", 1)[1] for arn in NODE_ROLE_POLICIES]
    assert "AmazonEC2ContainerRegistryPullOnly" in names
    assert "AmazonEC2ContainerRegistryReadOnly" not in names
    assert "AmazonEKSWorkerNodePolicy" in names
    # Not the VPC CNI's: on the node role every hostNetwork pod could re-address any interface.
    assert "AmazonEKS_CNI_Policy" not in names
    assert all(arn.startswith("arn:aws:iam::aws:policy/") for arn in NODE_ROLE_POLICIES)


# --- the k3s servers' join key

CRYPTOGRAPHIC = ("kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey", "kms:ReEncrypt", "kms:*")
SERVERS = "arn:aws:iam::123456789012:role/c-server-role-1a2b3c"
DEPLOYER = "arn:aws:iam::123456789012:role/Deployer"
SECRETS = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:gpukit/c/k3s-server-join-*"


def _join_key_statements(*deployers: str) -> dict[str, dict]:
    document = join_secret_key_policy(
        account_id="123456789012",
        partition="aws",
        region="eu-west-1",
        deployer_arns=list(deployers or (DEPLOYER,)),
        reader_arn=SERVERS,
        secret_arns=SECRETS,
    )
    return {s["Sid"]: s for s in _statements(document)}


def test_join_key_decrypts_only_for_the_servers_and_the_deployer_through_secrets_manager():
    statements = _join_key_statements()
    decrypting = {
        sid: s["Principal"]["AWS"]
        for sid, s in statements.items()
        if any(a.startswith(CRYPTOGRAPHIC) for a in _actions(s))
    }
    assert decrypting == {
        "DeployerWritesThroughSecretsManager": DEPLOYER,
        "ServersDecryptThroughSecretsManager": SERVERS,
    }
    assert _actions(statements["ServersDecryptThroughSecretsManager"]) == ["kms:Decrypt"]
    for sid in decrypting:
        assert statements[sid]["Condition"] == {
            "StringEquals": {"kms:ViaService": "secretsmanager.eu-west-1.amazonaws.com"},
            "StringLike": {"kms:EncryptionContext:SecretARN": SECRETS},
        }


def test_join_key_is_administered_by_the_deployer_and_managed_not_used_by_the_account():
    statements = _join_key_statements()
    assert _actions(statements["DeployerAdministers"]) == list(KEY_ADMIN_ACTIONS)
    assert statements["DeployerAdministers"]["Principal"] == {"AWS": DEPLOYER}
    account = statements["AccountAdministersOnly"]
    assert account["Principal"] == {"AWS": "arn:aws:iam::123456789012:root"}
    # Keeps the key manageable (PutKeyPolicy) without handing decryption, or grants, to IAM policies.
    assert "kms:Put*" in _actions(account)
    assert set(_actions(account)) == set(KEY_ADMIN_ACTIONS) - {"kms:Create*"}
    assert "Condition" not in account


def test_every_deployer_of_the_stack_stays_in_the_join_key_policy():
    """A teammate's or CI's run must not rewrite the others out (their next refresh reads the secret):
    the caller and cluster.adminPrincipalArns are all named, once each."""
    ci = "arn:aws:iam::123456789012:role/ci-deployer"
    statements = _join_key_statements(DEPLOYER, ci, DEPLOYER)
    for sid in ("DeployerAdministers", "DeployerWritesThroughSecretsManager"):
        assert statements[sid]["Principal"] == {"AWS": sorted([DEPLOYER, ci])}

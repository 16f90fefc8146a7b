"""K3sPki: the join token, the cluster's certificate authorities and an admin client certificate,
all made by Pulumi, so the kubeconfig is built here and nothing is ever read back from a host.

k3s custom CA rules (k3s-io/docs docs/cli/certificate.md, "Using Custom CA Certificates"; k3s-io/k3s
contrib/util/generate-custom-ca-certs.sh): before the first server starts, these files must exist in
/var/lib/rancher/k3s/server/tls: server-ca, client-ca, request-header-ca, etcd/peer-ca and
etcd/server-ca (.crt and .key each, EC P-256 in k3s's own script) and service.key (an RSA key, for
service-account tokens). Self-signed roots are accepted as they are. With custom CAs the short,
password-only token works on every node.

Tokens (k3s-io/docs docs/cli/token.md): the server token joins servers and decrypts the bootstrap
data, so only servers get it. Agents get a separate agent token (servers take it as
`agent-token-file`), which only registers nodes. Both are written in the secure format,
`K10<sha256 of the cluster CA>::<user>:<password>`, so a joining node checks that the server it
reached holds gpukit's CA before it sends its credentials; gpukit can compute it because it made the CA.
"""

import hashlib
from typing import Optional, TypedDict

import pulumi
import pulumi_random as random
import pulumi_tls as tls

from gpukit.components.k3s.host_scripts import ADMIN_USER, AGENT_TOKEN_FILE, TLS_DIR, TOKEN_FILE
from gpukit.components.kubeconfig import certificate_kubeconfig

TYPE_TOKEN = "gpukit:index:K3sPki"
CA_NAMES = ("server-ca", "client-ca", "request-header-ca", "etcd/peer-ca", "etcd/server-ca")
CA_VALIDITY_HOURS = 10 * 365 * 24  # ten years; k3s warns and rotates leaf certificates itself
# The admin certificate: 90 days, renewed by any `pulumi up` in its last 30 (early_renewal_hours).
# It names a plain user bound to cluster-admin by a ClusterRoleBinding k3s applies from its manifests
# folder (host_scripts.admin_binding), not the system:masters group, which no RBAC change can revoke.
ADMIN_VALIDITY_HOURS = 90 * 24
ADMIN_EARLY_RENEWAL_HOURS = 30 * 24


def secure_token(ca_pem: str, user: str, password: str) -> str:
    """k3s's secure token: `K10` + the SHA-256 of the CA bundle the server hands out at /cacerts
    (server-ca.crt's bytes, as gpukit writes them) + `::user:password`."""
    return f"K10{hashlib.sha256(ca_pem.encode()).hexdigest()}::{user}:{password}"


class K3sPkiArgs(TypedDict):
    cluster_name: str


class K3sPki(pulumi.ComponentResource):
    server_token: pulumi.Output[str]
    """Secret: the server token, secure format (servers only)."""
    agent_token: pulumi.Output[str]
    """Secret: the agent token, secure format (what agents join with)."""
    server_files: pulumi.Output[dict[str, str]]
    """Secret: host path -> content of everything a server needs before first start (both tokens, CAs)."""
    agent_files: pulumi.Output[dict[str, str]]
    """Secret: host path -> content of what an agent needs (the agent token, nothing else)."""
    server_ca_pem: pulumi.Output[str]
    admin_cert_pem: pulumi.Output[str]
    admin_key_pem: pulumi.Output[str]
    """Secret."""

    def __init__(self, name: str, args: K3sPkiArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        cluster = args["cluster_name"]

        server_password = random.RandomPassword(f"{name}-token", length=48, special=False, opts=child)
        agent_password = random.RandomPassword(f"{name}-agent-token", length=48, special=False, opts=child)
        files: dict[str, pulumi.Output[str]] = {}
        certs: dict[str, tls.SelfSignedCert] = {}
        keys: dict[str, tls.PrivateKey] = {}
        for ca in CA_NAMES:
            slug = ca.replace("/", "-")
            key = tls.PrivateKey(f"{name}-{slug}-key", algorithm="ECDSA", ecdsa_curve="P256", opts=child)
            cert = tls.SelfSignedCert(
                f"{name}-{slug}",
                private_key_pem=key.private_key_pem,
                subject={"common_name": f"{cluster}-{slug}", "organization": "gpukit"},
                is_ca_certificate=True,
                validity_period_hours=CA_VALIDITY_HOURS,
                allowed_uses=["cert_signing", "crl_signing", "digital_signature", "key_encipherment"],
                opts=child,
            )
            certs[ca], keys[ca] = cert, key
            files[f"{TLS_DIR}/{ca}.crt"] = cert.cert_pem
            files[f"{TLS_DIR}/{ca}.key"] = key.private_key_pem
        service_key = tls.PrivateKey(f"{name}-service-key", algorithm="RSA", rsa_bits=2048, opts=child)
        files[f"{TLS_DIR}/service.key"] = service_key.private_key_pem

        admin_key = tls.PrivateKey(f"{name}-admin-key", algorithm="ECDSA", ecdsa_curve="P256", opts=child)
        admin_csr = tls.CertRequest(
            f"{name}-admin-csr",
            private_key_pem=admin_key.private_key_pem,
            subject={"common_name": ADMIN_USER, "organization": "gpukit"},
            opts=child,
        )
        admin_cert = tls.LocallySignedCert(
            f"{name}-admin",
            cert_request_pem=admin_csr.cert_request_pem,
            ca_cert_pem=certs["client-ca"].cert_pem,
            ca_private_key_pem=keys["client-ca"].private_key_pem,
            validity_period_hours=ADMIN_VALIDITY_HOURS,
            early_renewal_hours=ADMIN_EARLY_RENEWAL_HOURS,
            allowed_uses=["client_auth", "digital_signature", "key_encipherment"],
            opts=child,
        )

        ca_pem = certs["server-ca"].cert_pem
        self.server_token = pulumi.Output.secret(
            pulumi.Output.all(ca_pem, server_password.result).apply(
                lambda a: secure_token(a[0], "server", a[1])
            )
        )
        self.agent_token = pulumi.Output.secret(
            pulumi.Output.all(ca_pem, agent_password.result).apply(lambda a: secure_token(a[0], "node", a[1]))
        )
        files[TOKEN_FILE] = self.server_token
        # What servers accept from agents: the password alone (k3s adds the user and the CA hash).
        files[AGENT_TOKEN_FILE] = pulumi.Output.secret(agent_password.result)
        self.server_files = pulumi.Output.secret(pulumi.Output.all(**files))
        self.agent_files = pulumi.Output.secret(pulumi.Output.all(**{TOKEN_FILE: self.agent_token}))
        self.server_ca_pem = certs["server-ca"].cert_pem
        self.admin_cert_pem = admin_cert.cert_pem
        self.admin_key_pem = pulumi.Output.secret(admin_key.private_key_pem)
        self.register_outputs({"server_ca_pem": self.server_ca_pem})

    def kubeconfig(self, cluster_name: str, server_url: pulumi.Input[str]) -> pulumi.Output[str]:
        """Secret: an admin kubeconfig for `server_url`, from this PKI (nothing read from a host)."""
        rendered: pulumi.Output[str] = pulumi.Output.all(
            server_url, self.server_ca_pem, self.admin_cert_pem, self.admin_key_pem
        ).apply(lambda a: certificate_kubeconfig(cluster_name, a[0], a[1], a[2], a[3]))
        return pulumi.Output.secret(rendered)

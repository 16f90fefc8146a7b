"""Provider limits on what a config may ask for, and the pure checks that enforce them with the
limit, its source and the key in the message.

Each substrate declares its limits (Substrate.limits, a SubstrateLimits; the sourced values live in
providers/<cloud>/limits.py); a substrate without a sourced limit declares none, and nothing is
enforced there rather than a guess. Node counts go through one function, `node_count_problem`, which
takes a count (a pool's maxNodes, or the share of one group where a pool becomes several: one EKS
node group per zone) and the limit of one group, so every place that sizes a group checks it alike.
Where it is called: components/resolve/validation.py `_validate_pools` (each pool's maxNodes against
`nodes_per_group`, over `_groups(pool)` groups: an EKS GPU pool that pins its zones is one node group
per zone, each with an even share, as providers/aws/eks/zone_groups.py splits it; any other pool one
group) and providers/gcp/validation.py `_validate_pool_size` (a GKE pool against `nodes_per_pool_zone`
times its zones).
"""

from dataclasses import dataclass

from gpukit.components.errors import Problem


@dataclass(frozen=True)
class Limit:
    most: int
    what: str
    """What is limited, in words: "nodes per managed node group"."""
    source: str
    adjustable: bool = False
    """A default quota the account can raise, rather than a hard limit."""

    def describe(self) -> str:
        kind = (
            "a default quota; raise it in Service Quotas first, then in gpukit"
            if self.adjustable
            else "a fixed limit"
        )
        return f"at most {self.most} {self.what} ({kind}; {self.source})"


@dataclass(frozen=True)
class SubstrateLimits:
    """What one substrate's provider allows (None: no sourced limit, nothing enforced)."""

    nodes_per_group: Limit | None = None
    """The most nodes one group of a pool holds (an EKS managed node group)."""
    nodes_per_pool_zone: Limit | None = None
    """The most nodes a pool holds in one zone (GKE)."""
    nodes_per_cluster: Limit | None = None
    """The most nodes the pools' maxNodes may add up to."""
    api_access_cidrs: Limit | None = None
    """The most ranges `apiAccessCidrs` may hold."""
    api_access_public_only: bool = False
    """`api_access_cidrs` counts the public ranges only (EKS: private ranges reach the private
    endpoint through security group rules, not the public endpoint's list)."""


NO_LIMITS = SubstrateLimits()


def node_count_problem(key: str, count: int, limit: Limit | None, groups: int = 1) -> Problem | None:
    """A problem where `count` nodes cannot fit in `groups` groups (node groups, or zones of one GKE
    pool) of at most `limit.most` nodes each; None where they fit or no limit is known."""
    if limit is None or count <= limit.most * groups:
        return None
    over = f"{groups} zones x {limit.most} = {limit.most * groups}" if groups > 1 else str(limit.most)
    return Problem(key, f"must be at most {over}: {limit.describe()}; got {count}")


def list_size_problem(
    key: str, items: list[str], limit: Limit | None, what: str = "ranges"
) -> Problem | None:
    """A problem where a list holds more entries (`what`) than the provider takes."""
    if limit is None or len(items) <= limit.most:
        return None
    return Problem(key, f"holds {len(items)} {what}: {limit.describe()}; merge ranges or use a VPN")

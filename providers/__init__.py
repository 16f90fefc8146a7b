"""The substrates gpukit builds on, one package each (aws/, gcp/, ssh/), and the registry of them.

Every provider package has the same files: `substrate.py` (the Substrate classes), `config.py` (its
provider keys and the gpukit keys it takes), `catalog.py` (its machines and prices), `validation.py`,
`charges.py` (what it costs beyond its machines), `fakes.py` (what `gpukit plan` fakes for it), and one
folder per builder (aws/eks, aws/k3s, gcp/gke, gcp/k3s, ssh/k3s), the only code that imports a cloud
SDK. Adding a substrate is a new package, one line below, a stack file and tests; beyond that, a new
platform or provider is one value in components/spec.py, its keys are fields in
components/config/schema.py, and its SDK an extra in pyproject.toml.
"""

from gpukit.components.substrate import SubstrateRegistry
from gpukit.providers.aws.substrate import EksSubstrate, K3sEc2Substrate
from gpukit.providers.gcp.substrate import GkeSubstrate, K3sGceSubstrate
from gpukit.providers.ssh.substrate import K3sSshSubstrate

REGISTRY = SubstrateRegistry(
    EksSubstrate(),
    GkeSubstrate(),
    K3sEc2Substrate(),
    K3sGceSubstrate(),
    K3sSshSubstrate(),
)

__all__ = [
    "REGISTRY",
    "EksSubstrate",
    "GkeSubstrate",
    "K3sEc2Substrate",
    "K3sGceSubstrate",
    "K3sSshSubstrate",
]

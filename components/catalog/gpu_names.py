"""GPU model names as nvidia-smi and people write them, mapped to one catalog name.

`nvidia-smi --query-gpu=name` prints "NVIDIA GeForce RTX 4090", "NVIDIA H100 80GB HBM3",
"NVIDIA A100-SXM4-80GB"; people write "RTX 4090", "rtx4090", "4090". All of them are compared after
`normalise`: lower case, the vendor and brand words NVIDIA, GeForce, Tesla and "Generation" removed, and
everything but letters and digits dropped. The host preflight (components/k3s/scripts/preflight.sh)
normalises the name nvidia-smi reports the same way, so a pool declaring `4090` accepts a host that
reports "NVIDIA GeForce RTX 4090".

The nvidia-smi names below are as public nvidia-smi outputs, test fixtures and logs print them (GitHub
code search, read 2026-12): "NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 5090", "NVIDIA RTX A6000",
"NVIDIA RTX 6000 Ada Generation", "NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe", "NVIDIA H100 NVL",
"NVIDIA A100-SXM4-80GB", "NVIDIA A100-PCIE-40GB", "NVIDIA A100 80GB PCIe", "NVIDIA RTX PRO 6000
Blackwell Server Edition" / "Workstation Edition" / "Max-Q Workstation Edition", "NVIDIA H200",
"NVIDIA H200 NVL". Short names that could mean more than one catalog model are refused with the
candidates ("A100": 40 or 80 GB; "6000": RTX A6000, RTX 6000 Ada or RTX PRO 6000), never guessed.
"""

import difflib
import re

from gpukit.components.catalog.gpus import GPU_MODELS, Architecture, GpuModel, UnknownGpuModelError
from gpukit.components.spec import GpuArchitecture, GpuSpec

# Removed as substrings after lower-casing (preflight.sh's `sed` removes the same words).
NOISE_WORDS = ("nvidia", "geforce", "tesla", "generation")

# Catalog name -> other spellings (nvidia-smi's names, then people's). The catalog name itself and
# its normalised form always resolve; these are in addition.
ALIASES: dict[str, tuple[str, ...]] = {
    "V100": ("Tesla V100-SXM2-16GB", "Tesla V100-PCIE-16GB", "V100 16GB"),
    "T4": ("Tesla T4",),
    "A10G": ("NVIDIA A10G",),
    "A100-40GB": ("NVIDIA A100-SXM4-40GB", "NVIDIA A100-PCIE-40GB", "A100 40GB PCIe", "A100 40GB"),
    "A100-80GB": ("NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe", "A100-PCIE-80GB", "A100 80GB"),
    "L4": ("NVIDIA L4",),
    "L40S": ("NVIDIA L40S",),
    "H100": ("NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe", "H100 SXM", "H100 SXM5", "H100 80GB"),
    "H100-NVL": ("NVIDIA H100 NVL",),
    "H200": ("NVIDIA H200", "H200 SXM"),
    "H200-NVL": ("NVIDIA H200 NVL",),
    "B200": ("NVIDIA B200",),
    "RTX-PRO-6000": (
        "NVIDIA RTX PRO 6000 Blackwell Server Edition",
        "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
        "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition",
        "RTX PRO 6000 Blackwell",
        "PRO 6000",
    ),
    "RTX-4090": ("NVIDIA GeForce RTX 4090", "4090"),
    "RTX-5090": ("NVIDIA GeForce RTX 5090", "5090"),
    "RTX-3090": ("NVIDIA GeForce RTX 3090", "3090"),
    "RTX-A6000": ("NVIDIA RTX A6000", "A6000"),
    "RTX-6000-Ada": ("NVIDIA RTX 6000 Ada Generation", "6000 Ada"),
    "A40": ("NVIDIA A40",),
    "L40": ("NVIDIA L40",),
    "A10": ("NVIDIA A10",),
    "A30": ("NVIDIA A30",),
}

# Short names that fit several catalog models: refused, with these candidates.
AMBIGUOUS: dict[str, tuple[str, ...]] = {
    "A100": ("A100-40GB", "A100-80GB"),
    "6000": ("RTX-6000-Ada", "RTX-A6000", "RTX-PRO-6000"),
    "RTX 6000": ("RTX-6000-Ada", "RTX-PRO-6000"),
}


def normalise(name: str) -> str:
    """`NVIDIA GeForce RTX 4090` -> `rtx4090`; `NVIDIA A100-SXM4-80GB` -> `a100sxm480gb`."""
    lowered = name.lower()
    for word in NOISE_WORDS:
        lowered = lowered.replace(word, "")
    return re.sub(r"[^a-z0-9]", "", lowered)


def _index() -> dict[str, str]:
    index: dict[str, str] = {}
    for canonical in GPU_MODELS:
        for spelling in (canonical, *ALIASES.get(canonical, ())):
            key = normalise(spelling)
            assert index.get(key, canonical) == canonical, (spelling, index[key], canonical)
            index[key] = canonical
    return index


NAME_INDEX = _index()
"""Normalised spelling -> catalog name."""
AMBIGUOUS_INDEX = {normalise(k): v for k, v in AMBIGUOUS.items()}
assert not set(AMBIGUOUS_INDEX) & set(NAME_INDEX)


class AmbiguousGpuModelError(KeyError):
    """A short name that fits several catalog models; `candidates` lists them."""

    def __init__(self, name: str, candidates: tuple[str, ...]) -> None:
        super().__init__(name)
        self.name = name
        self.candidates = candidates


class UnknownGpuNameError(UnknownGpuModelError):
    """A name no catalog model is spelled as; suggestions are close spellings of catalog models."""

    def __init__(self, name: str) -> None:
        super().__init__(name, list(GPU_MODELS))
        self.suggestions = suggest_models(name)


def suggest_models(name: str, n: int = 3) -> list[str]:
    """Catalog models whose spellings are close to `name` after normalisation (difflib, cutoff 0.75:
    "rtx4900" -> RTX-4090; "l40x" -> L40, L40S), so a misspelling is never answered with an unrelated
    model."""
    key = normalise(name)
    if not key:
        return []
    close = difflib.get_close_matches(key, list(NAME_INDEX), n=n * 3, cutoff=0.75)
    return list(dict.fromkeys(NAME_INDEX[c] for c in close))[:n]


def known_gpu_name(name: str) -> str | None:
    """The catalog model `name` spells (4090, rtx4090, "NVIDIA GeForce RTX 4090"); None for an unknown
    or ambiguous name (canonical_gpu_name says which)."""
    return NAME_INDEX.get(normalise(name))


def canonical_gpu_name(name: str) -> str:
    """The catalog name `name` stands for; AmbiguousGpuModelError or UnknownGpuNameError otherwise."""
    key = normalise(name)
    if key in AMBIGUOUS_INDEX:
        raise AmbiguousGpuModelError(name, AMBIGUOUS_INDEX[key])
    if key not in NAME_INDEX:
        raise UnknownGpuNameError(name)
    return NAME_INDEX[key]


def resolve_gpu_model(name: str) -> GpuModel:
    return GPU_MODELS[canonical_gpu_name(name)]


def spellings_of(canonical: str) -> tuple[str, ...]:
    """Every normalised spelling of a catalog model, for the host preflight's name check."""
    return tuple(sorted(k for k, v in NAME_INDEX.items() if v == canonical))


def label_safe(model: str) -> str:
    """A declared model's name as a node label value: `RTX 4080 SUPER` -> `RTX-4080-SUPER`."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", model).strip("-._")[:63].rstrip("-._")


def pool_gpu_model(gpu: GpuSpec) -> GpuModel:
    """The model of a validated pool's `gpu` key (SSH hosts): the catalog's, or the one the stack declares."""
    if "memory_gb" in gpu:
        return GpuModel(
            label_safe(gpu["model"]),
            Architecture[GpuArchitecture(gpu["architecture"]).name],
            gpu.get("compute_capability", ""),
            gpu["memory_gb"],
            declared=True,
        )
    return GPU_MODELS[canonical_gpu_name(gpu["model"])]

"""Driver branches vs CUDA releases and GPU architectures."""

import pytest

from gpukit.components.catalog.drivers import (
    CUDA_MIN_DRIVER,
    CudaSupport,
    branch_drives,
    branch_of,
    cuda_support,
    cuda_targets,
    newest_full_cuda,
)
from gpukit.components.catalog.gpus import Architecture


@pytest.mark.parametrize(
    ("cuda", "branch", "expected"),
    [
        ("12.8", 580, CudaSupport.FULL),
        ("13.0", 580, CudaSupport.FULL),
        ("13.1", 580, CudaSupport.MINOR_VERSION_COMPAT),
        ("13.2", 580, CudaSupport.MINOR_VERSION_COMPAT),
        ("13.2", 595, CudaSupport.FULL),
        ("13.0", 570, CudaSupport.UNSUPPORTED),
        ("12.8", 570, CudaSupport.FULL),
        ("12.9", 570, CudaSupport.MINOR_VERSION_COMPAT),
        ("12.8", 525, CudaSupport.MINOR_VERSION_COMPAT),
        ("12.0", 525, CudaSupport.FULL),
        ("12.0", 520, CudaSupport.UNSUPPORTED),
        ("11.8", 520, CudaSupport.FULL),
        ("11.8", 450, CudaSupport.MINOR_VERSION_COMPAT),
        ("11.8", 440, CudaSupport.UNSUPPORTED),
    ],
)
def test_cuda_support(cuda, branch, expected):
    assert cuda_support(cuda, branch) == expected


def test_newer_branches_never_support_a_release_less():
    rank = {CudaSupport.UNSUPPORTED: 0, CudaSupport.MINOR_VERSION_COMPAT: 1, CudaSupport.FULL: 2}
    for cuda in CUDA_MIN_DRIVER:
        levels = [rank[cuda_support(cuda, b)] for b in range(440, 700, 5)]
        assert levels == sorted(levels), cuda


def test_each_release_is_full_exactly_from_its_minimum_branch():
    for cuda, driver in CUDA_MIN_DRIVER.items():
        branch = branch_of(driver)
        assert cuda_support(cuda, branch) == CudaSupport.FULL
        assert cuda_support(cuda, branch - 5) != CudaSupport.FULL


def test_branch_of():
    assert branch_of("580.65.06") == 580
    assert branch_of("570.26") == 570


@pytest.mark.parametrize(
    ("branch", "expected"),
    [(580, "13.0"), (570, "12.8"), (575, "12.9"), (590, "13.1"), (595, "13.2"), (525, "12.0"), (500, None)],
)
def test_newest_full_cuda(branch, expected):
    assert newest_full_cuda(branch) == expected


@pytest.mark.parametrize(
    ("architecture", "branch", "expected"),
    [
        (Architecture.VOLTA, 580, True),
        (Architecture.VOLTA, 590, False),
        (Architecture.PASCAL, 590, False),
        (Architecture.MAXWELL, 595, False),
        (Architecture.VOLTA, 535, True),
        (Architecture.TURING, 620, True),
        (Architecture.HOPPER, 595, True),
        (Architecture.BLACKWELL, 700, True),
    ],
)
def test_branch_drives(architecture, branch, expected):
    assert branch_drives(architecture, branch) is expected


@pytest.mark.parametrize(
    ("architecture", "cuda", "expected"),
    [
        (Architecture.VOLTA, "13.0", False),
        (Architecture.VOLTA, "12.8", True),
        (Architecture.PASCAL, "13.1", False),
        (Architecture.MAXWELL, "11.8", True),
        (Architecture.TURING, "13.0", True),
        (Architecture.ADA, "13.2", True),
    ],
)
def test_cuda_targets(architecture, cuda, expected):
    assert cuda_targets(architecture, cuda) is expected

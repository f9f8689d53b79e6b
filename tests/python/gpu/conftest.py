"""The GPU tests of the Python package: the descriptors CuTe DSL, Triton and cuda.core build, read
back as 128 bytes and explained with tmakit. Every test here skips without a CUDA device (and each
module without its DSL); scripts/python_gpu_check.sh runs them on a GPU machine with -v, and each
test prints what it found (the decoded descriptor, its diff and check against tmakit's plan) for
the lab log."""

import pytest


def _cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def pytest_collection_modifyitems(config, items):
    if _cuda():
        return
    skip = pytest.mark.skip(reason="no CUDA device")
    for item in items:
        if "/gpu/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(skip)

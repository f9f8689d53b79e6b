"""Triton: the descriptor of a host-side TensorDescriptor.from_tensor (encoded by Triton's launcher
through the driver: the launcher's fill_tma_descriptor is wrapped to keep what it returns) and of a
device-side tl.make_tensor_descriptor (written by the kernel into the scratch memory Triton's
allocator hands out), explained with tmakit against the plan for the same tensor and block."""

import ctypes

import pytest
torch = pytest.importorskip("torch")

import tmakit

from gpu_report import report

triton = pytest.importorskip("triton")
tl = pytest.importorskip("triton.language")

M = K = 4096
BM, BK = 128, 64


@pytest.fixture(scope="module")
def operand():
    return torch.randn(M, K, device="cuda").to(torch.bfloat16)


@pytest.fixture(scope="module")
def plan(operand):
    return tmakit.plan(operand, "Sw<3,4,3> o (128,64):(64,1)", "M=128,K=64")


@triton.jit
def load_tile_host(desc, out, BM: tl.constexpr, BK: tl.constexpr):
    tile = desc.load([0, 0])
    offs = tl.arange(0, BM)[:, None] * BK + tl.arange(0, BK)[None, :]
    tl.store(out + offs, tile)


@triton.jit
def load_tile_device(a, out, M, K, BM: tl.constexpr, BK: tl.constexpr):
    desc = tl.make_tensor_descriptor(a, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    tile = desc.load([0, 0])
    offs = tl.arange(0, BM)[:, None] * BK + tl.arange(0, BK)[None, :]
    tl.store(out + offs, tile)


def test_versions():
    print("\ntriton", triton.__version__, "| torch", torch.__version__, "| device", torch.cuda.get_device_name())


def test_host_tensor_descriptor(operand, plan, monkeypatch):
    from triton.tools.tensor_descriptor import TensorDescriptor

    utils = triton.runtime.driver.active.utils
    if not hasattr(utils, "fill_tma_descriptor"):
        pytest.skip("this Triton's launcher has no fill_tma_descriptor")
    kept = []
    original = utils.fill_tma_descriptor

    def keep(*args, **kwargs):
        m = original(*args, **kwargs)
        kept.append(m)
        return m

    monkeypatch.setattr(utils, "fill_tma_descriptor", keep)
    out = torch.empty(BM, BK, device="cuda", dtype=torch.bfloat16)
    load_tile_host[(1,)](TensorDescriptor.from_tensor(operand, block_shape=[BM, BK]), out, BM, BK)
    torch.cuda.synchronize()
    assert torch.equal(out, operand[:BM, :BK])
    assert kept, "the launcher encoded no descriptor"
    raw = descriptor_bytes(kept[-1])
    check = report("Triton TensorDescriptor.from_tensor, block [128, 64] bf16", raw, plan, armed_bytes=BM * BK * 2)
    assert tmakit.decode(raw).address == operand.data_ptr()
    assert check.copy_bytes == BM * BK * 2  # one copy moves the block: the bytes the kernel expects


def descriptor_bytes(m) -> bytes:
    """The 128 bytes of the launcher's descriptor object: through tma_desc_cpu_ptr() where the object
    has it; in Triton 3.6 (PyCUtensorMap) the CUtensorMap is the object's last 128 bytes (a C struct
    of the Python object header and the 64-byte-aligned map), read through the object's address."""
    if hasattr(m, "tma_desc_cpu_ptr"):
        return ctypes.string_at(m.tma_desc_cpu_ptr(), 128)
    size = type(m).__basicsize__
    assert size >= 128 + 16, f"{type(m).__name__} of {size} bytes holds no 128-byte descriptor"
    return ctypes.string_at(id(m) + size - 128, 128)


def test_device_make_tensor_descriptor(operand, plan):
    scratch = []

    def alloc(size, alignment, stream):
        buf = torch.zeros(size, dtype=torch.int8, device="cuda")
        scratch.append(buf)
        return buf

    triton.set_allocator(alloc)
    out = torch.empty(BM, BK, device="cuda", dtype=torch.bfloat16)
    load_tile_device[(1,)](operand, out, M, K, BM, BK)
    torch.cuda.synchronize()
    assert torch.equal(out, operand[:BM, :BK])
    assert scratch, "the kernel asked for no scratch memory (no device-side descriptor)"
    raw = bytes(scratch[-1][:128].cpu().view(torch.uint8).tolist())
    check = report("Triton tl.make_tensor_descriptor (device side), block [128, 64] bf16", raw, plan,
                   armed_bytes=BM * BK * 2)
    assert tmakit.decode(raw).address == operand.data_ptr()
    assert check.copy_bytes > 0

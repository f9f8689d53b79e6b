"""tmakit's TensorMap to and from cuda.bindings' driver.CUtensorMap and cuda.core's
TensorMapDescriptor. The byte conversions and option names run without either package; the
tests that need one skip without it. Making a TensorMapDescriptor needs a GPU
(tests/python/gpu/test_cuda_core.py)."""

import ctypes
import subprocess
import sys

import pytest

import tmakit
from tmakit import _cuda_interop

M = tmakit.encode_tiled(dtype="bf16", dims=[4096, 4096], strides=[8192], box=[64, 128], swizzle="128B",
                        address=0x7F0000000000)


class Words:
    """A stand-in for cuda.bindings.driver.CUtensorMap: only `opaque` is read."""

    def __init__(self, opaque):
        self.opaque = opaque


def test_words_are_the_bytes_in_memory_order():
    words = _cuda_interop.bytes_to_words(bytes(M))
    assert len(words) == 16
    assert words[0] == int.from_bytes(bytes(M)[:8], "little")
    assert _cuda_interop.words_to_bytes(words) == bytes(M)
    m = tmakit.from_cuda_bindings(Words(words))
    assert isinstance(m, tmakit.TensorMap) and m == M and m.box == [64, 128]


def test_word_refusals():
    with pytest.raises(ValueError, match="16 64-bit words"):
        tmakit.from_cuda_bindings(Words([0] * 15))
    with pytest.raises(ValueError, match="unsigned 64-bit"):
        tmakit.from_cuda_bindings(Words([-1] + [0] * 15))
    with pytest.raises(TypeError, match="CUtensorMap"):
        tmakit.from_cuda_bindings(bytes(M))
    with pytest.raises(TypeError, match="TensorMapDescriptor"):
        tmakit.from_cuda_core(M)


def test_cuda_core_options_are_the_map_in_cuda_cores_order_and_names():
    assert tmakit.cuda_core_options(M) == {
        "box_dim": (128, 64), "element_strides": None, "data_type": "BFLOAT16", "interleave": "NONE",
        "swizzle": "SWIZZLE_128B", "l2_promotion": "NONE", "oob_fill": "NONE"}
    m = tmakit.encode_tiled(dtype="f32", dims=[64, 32, 8], strides=[256, 8192], box=[32, 8, 2], elem_strides=[1, 2, 1],
                            l2="L2_256B", oob="nan", address=0x7F0000000000)
    o = tmakit.cuda_core_options(m)
    assert (o["box_dim"], o["element_strides"], o["data_type"]) == ((2, 8, 32), (1, 2, 1), "FLOAT32")
    assert (o["l2_promotion"], o["oob_fill"], o["swizzle"]) == ("L2_256B", "NAN_REQUEST_ZERO_FMA", "NONE")
    assert _cuda_interop.cuda_array_interface(m) == {
        "version": 3, "shape": (8, 32, 64), "strides": (8192, 256, 4), "typestr": "<f4",
        "data": (0x7F0000000000, False), "stream": None}


def test_what_cuda_core_cannot_make_is_refused_by_name():
    conv = tmakit.encode_im2col(dtype="f16", dims=[64, 16, 16, 2], strides=[128, 2048, 32768], lower=[0, 0],
                                upper=[0, 0], channels=64, pixels=128)
    with pytest.raises(ValueError, match="tiled descriptors only"):
        tmakit.cuda_core_options(conv)
    atom = tmakit.encode_tiled(dtype="bf16", dims=[4096, 4096], strides=[8192], box=[64, 128],
                               swizzle="128B_ATOM_32B", arch="sm_100")
    with pytest.raises(ValueError, match="TensorMapSwizzle has no such mode"):
        tmakit.cuda_core_options(atom)
    fp4 = tmakit.encode_tiled(dtype="16U4_ALIGN8B", dims=[4096, 64], strides=[2048], box=[128, 64], arch="sm_100")
    with pytest.raises(ValueError, match="TensorMapDataType has no such type"):
        tmakit.cuda_core_options(fp4)


def test_cuda_core_member_names_are_accepted_spellings():
    m = tmakit.encode_tiled(dtype="BFLOAT16", dims=[4096, 4096], strides=[8192], box=[64, 128],
                            swizzle="SWIZZLE_128B", interleave="INTERLEAVE_NONE",
                            l2="L2_128B", oob="NAN_REQUEST_ZERO_FMA")
    assert (m.swizzle, m.l2, m.oob) == ("128B", "L2_128B", "NAN_REQUEST_ZERO_FMA")
    i = tmakit.encode_tiled(dtype="f16", dims=[8, 64, 64], strides=[128, 8192], box=[8, 32, 32],
                            interleave="INTERLEAVE_16B")
    assert i.interleave == "16B"


def test_tmakit_imports_without_cuda_packages():
    # (cuda-bindings 12.x puts the namespace package `cuda` itself in sys.modules at start-up, by a .pth file)
    code = "import sys, tmakit; assert not [m for m in sys.modules if m.startswith('cuda.')], sorted(sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_cuda_bindings_round_trip():
    driver = pytest.importorskip("cuda.bindings.driver")
    c = tmakit.to_cuda_bindings(M)
    assert isinstance(c, driver.CUtensorMap)
    assert [int(w) for w in c.opaque] == _cuda_interop.bytes_to_words(bytes(M))
    assert ctypes.string_at(c.getPtr(), 128) == bytes(M)
    assert tmakit.from_cuda_bindings(c) == M
    assert tmakit.to_bytes(c) == bytes(M) and tmakit.decode(c).box == [64, 128]
    assert tmakit.to_cuda_bindings(M.hex()).getPtr() != c.getPtr()  # anything to_bytes takes


def _cuda_core():
    core = pytest.importorskip("cuda.core")
    bindings = pytest.importorskip("cuda.bindings")
    return core, int(bindings.__version__.split(".")[0])


def test_cuda_core_enum_members_are_accepted_values():
    _cuda_core()
    enums = _cuda_interop._cuda_core_enums()
    m = tmakit.encode_tiled(dtype=enums["data_type"].BFLOAT16, dims=[4096, 4096], strides=[8192], box=[64, 128],
                            swizzle=enums["swizzle"].SWIZZLE_128B, l2=enums["l2_promotion"].L2_128B,
                            oob=enums["oob_fill"].NONE, interleave=enums["interleave"].NONE)
    assert (m.dtype, m.swizzle, m.l2) == ("BFLOAT16", "128B", "L2_128B")


def test_cuda_core_options_pass_cuda_cores_own_checks():
    core, _ = _cuda_core()
    enums = _cuda_interop._cuda_core_enums()
    names = tmakit.cuda_core_options(M)
    options = core.TensorMapDescriptorOptions(**{k: getattr(enums[k], v) if k in enums else v for k, v in names.items()})
    assert options.box_dim == (128, 64) and options.swizzle == enums["swizzle"].SWIZZLE_128B


def test_from_cuda_core_reads_the_map_where_cuda_core_keeps_it():
    core, cuda_major = _cuda_core()
    desc = core.TensorMapDescriptor.__new__(core.TensorMapDescriptor)  # no map yet: no GPU needed
    with pytest.raises(ValueError, match="holds no tensor map"):
        tmakit.from_cuda_core(desc)
    # Where cuda.core's compiled TensorMapDescriptor._get_data_ptr points (the pointer it passes to
    # the driver and to kernels): 64 bytes into the object when built against CUDA 12's cuda.h,
    # 128 against CUDA 13's (cuda-core 0.7.0 .. 1.2.2, read off their machine code).
    offset = {12: 64, 13: 128}[cuda_major]
    ctypes.memmove(id(desc) + offset, bytes(M), 128)
    got = tmakit.from_cuda_core(desc)
    assert isinstance(got, tmakit.TensorMap) and got == M
    assert tmakit.decode(desc).box == [64, 128] and tmakit.diff(desc, M).identical


def test_to_cuda_core_needs_a_tiled_map_before_any_gpu_work():
    _cuda_core()
    conv = tmakit.encode_im2col(dtype="f16", dims=[64, 16, 16, 2], strides=[128, 2048, 32768], lower=[0, 0],
                                upper=[0, 0], channels=64, pixels=128)
    with pytest.raises(ValueError, match="tiled descriptors only"):
        tmakit.to_cuda_core(conv)

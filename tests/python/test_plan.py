"""plan / tensor_map / check_against_plan from Python, against the CLI for the same input."""

import json
import subprocess

import pytest

import tmakit

GMEM, SMEM, TILE = "bf16 (4096,4096):(4096,1)", "Sw<3,4,3> o (128,64):(64,1)", "M=128,K=64"


def cli_plan(cli, *args):
    out = subprocess.run([cli, "plan", *args, "--json"], capture_output=True, text=True)
    return out.returncode, json.loads(out.stdout)


def test_plan_equals_the_cli(cli):
    p = tmakit.plan(GMEM, SMEM, TILE)
    rc, j = cli_plan(cli, "--gmem", GMEM, "--smem", SMEM, "--tile", TILE)
    assert rc == 0
    assert p.json["plan"] == j["plan"] and p.gmem == j["gmem"] and p.smem == j["smem"]
    assert p.descriptor.hex() == j["descriptor"]["bytes"]
    assert p.expect_tx == p.expect_tx_bytes == 16384 and p.tx_bytes_per_instruction == 16384
    assert p.smem_alignment == 1024 and p.descriptor.box == [64, 128]
    assert p.instruction(0, [3, 5]) == {"coord": [5 * 64, 3 * 128], "smem_offset": 0}


def test_plan_refusal_equals_the_cli(cli):
    smem = "Sw<3,4,3> o (128,64):(1,128)"
    with pytest.raises(tmakit.Refused) as e:
        tmakit.plan(GMEM, smem, "tile_M=128,tile_K=64")
    rc, j = cli_plan(cli, "--gmem", GMEM, "--smem", smem, "--tile", "tile_M=128,tile_K=64")
    assert rc == 1
    assert e.value.rules == [x["rule"] for x in j["errors"]] == ["plan.inner_contiguous"]
    assert [v.message for v in e.value.violations] == [x["message"] for x in j["errors"]]
    assert [v.field for v in e.value.violations] == [x["where"] for x in j["errors"]]
    assert "group (tile_M, tile_K)" in e.value.violations[0].fix


def test_notation_errors_are_value_errors():
    with pytest.raises(ValueError, match="smem: position"):
        tmakit.plan(GMEM, "(128,64:(64,1)", TILE)
    with pytest.raises(ValueError, match="multicast"):
        tmakit.plan(GMEM, SMEM, TILE, multicast="w")


def test_multicast_store_and_reduce_options(cli):
    p = tmakit.plan(GMEM, SMEM, TILE, cluster=(1, 2), multicast="y")
    rc, j = cli_plan(cli, "--gmem", GMEM, "--smem", SMEM, "--tile", TILE, "--cluster", "1,2", "--multicast-mode", "y")
    assert rc == 0 and p.json["plan"] == j["plan"]
    assert p.multicast["ctas"] == 2 and len(p.instructions) == 2
    s = tmakit.plan(GMEM, SMEM, TILE, reduce="ADD")
    assert s.direction == "reduce" and s.reduce_op == "add" and s.expect_tx == 0
    with pytest.raises(ValueError, match="choose one"):
        tmakit.plan(GMEM, SMEM, TILE, store=True, reduce="add")


def test_plan_of_a_dlpack_tensor_takes_its_layout_and_address():
    np = pytest.importorskip("numpy")
    a = np.zeros((256, 128), dtype=np.float32)
    p = tmakit.plan(a, "(64,128):(128,1)", "seq=64,d=_")
    assert p.gmem.startswith("f32 (256,128):(128,1)")
    assert p.descriptor.address == a.ctypes.data
    assert p.descriptor.dims == [128, 256] and p.descriptor.box == [128, 64]
    view = a[:, 8:72]  # a strided view: its strides, not a compact layout
    q = tmakit.plan(view, "(64,64):(64,1)", "64,_")
    assert q.descriptor.strides == [512] and q.descriptor.address == a.ctypes.data + 32


class _CudaArray:
    """A stand-in for a CuPy / Numba device array: only its __cuda_array_interface__ is read."""

    def __init__(self, shape, typestr, ptr, strides=None, **extra):
        self.__cuda_array_interface__ = dict(shape=shape, typestr=typestr, data=(ptr, False), strides=strides,
                                             version=3, **extra)


def test_plan_of_a_cuda_array_interface_object_takes_its_layout_and_address():
    a = _CudaArray((4096, 4096), "<f2", 0x7F0000000000)
    p = tmakit.plan(a, "Sw<3,4,3> o (128,64):(64,1)", "M=128,K=64")
    assert p.gmem.startswith("f16 (4096,4096):(4096,1)")
    assert p.descriptor.address == 0x7F0000000000 and p.descriptor.dtype == "FLOAT16"
    assert p.descriptor.dims == [4096, 4096] and p.descriptor.strides == [8192]
    # byte strides: a column slice of a 4096 x 8192 uint8 array, 64 bytes in
    v = _CudaArray((4096, 4096), "|u1", 0x7F0000000040, strides=(8192, 1))
    m = tmakit.tensor_map(v, box=(64, 128))
    assert m.dtype == "UINT8" and m.strides == [8192] and m.address == 0x7F0000000040 and m.box == [128, 64]


def test_cuda_array_interface_refusals_name_what_is_wrong():
    with pytest.raises(ValueError, match="DLPack"):  # the interface has no bf16: V2 is raw bytes
        tmakit.plan(_CudaArray((64, 64), "<V2", 0x7F0000000000), "(64,64):(64,1)", "64,64")
    with pytest.raises(ValueError, match="whole number of 4-byte elements"):
        tmakit.tensor_map(_CudaArray((64, 64), "<f4", 0x7F0000000000, strides=(258, 4)), box=(64, 64))
    with pytest.raises(ValueError, match="big-endian"):
        tmakit.tensor_map(_CudaArray((64, 64), ">f4", 0x7F0000000000), box=(64, 64))
    with pytest.raises(ValueError, match="mask"):
        tmakit.tensor_map(_CudaArray((64, 64), "<f4", 0x7F0000000000, mask=object()), box=(64, 64))
    with pytest.raises(tmakit.Refused) as e:  # a pitch TMA cannot take: the planner's own rule
        tmakit.tensor_map(_CudaArray((64, 64), "<f4", 0x7F0000000000, strides=(260, 4)), box=(64, 64))
    assert "gmem.stride_align" in e.value.rules


def test_a_view_off_16_bytes_is_refused_with_its_offset():
    # x[1:] of an aligned allocation (pytorch #184563): the refusal names the view's storage offset
    np = pytest.importorskip("numpy")
    x = np.zeros((1025, 64), dtype=np.float16)
    assert x.ctypes.data % 16 == 0
    v = x.reshape(-1)[1:65537].reshape(1024, 64)
    with pytest.raises(tmakit.Refused) as e:
        tmakit.plan(v, "(64,64):(64,1)", "s=64,d=_")
    assert e.value.rules == ["gmem.base_align"]
    assert "a view that starts 1 element (2 bytes) past the start of its allocation" in str(e.value)
    assert "multiple of 8 elements" in str(e.value)
    tmakit.plan(x.reshape(-1)[8:65544].reshape(1024, 64), "(64,64):(64,1)", "s=64,d=_")  # 16 bytes in: fine


def test_torch_storage_offset_names_the_view():
    # anything with torch's storage_offset(): x[2:].view(torch.float32) of bf16 (pytorch #184714)
    np = pytest.importorskip("numpy")

    class View(np.ndarray):
        def storage_offset(self):
            return 1

    x = np.zeros(1 + 1024 * 64, dtype=np.float32)
    v = x[1:].reshape(1024, 64).view(View)
    with pytest.raises(tmakit.Refused) as e:
        tmakit.tensor_map(v, box=(64, 64))
    assert "gmem.base_align" in e.value.rules and "1 element (4 bytes)" in str(e.value)


def test_tensor_map_of_a_box():
    np = pytest.importorskip("numpy")
    a = np.zeros((4096, 4096), dtype=np.uint16)
    m = tmakit.tensor_map(a, box=(128, 64), swizzle="128B")
    assert m.box == [64, 128] and m.swizzle == "128B" and m.dtype == "UINT16" and m.address == a.ctypes.data
    with pytest.raises(ValueError, match="one per tensor mode"):
        tmakit.tensor_map(a, box=(128,))


def test_torch_tensor_map_is_a_128_byte_aligned_uint8_tensor():
    torch = pytest.importorskip("torch")
    import tmakit.torch as tt
    t = torch.zeros((256, 128), dtype=torch.bfloat16)
    d = tt.tensor_map(t, box=(64, 64), swizzle="128B")
    assert d.dtype == torch.uint8 and d.numel() == 128 and d.data_ptr() % 128 == 0 and d.device == t.device
    m = tmakit.decode(d)
    assert m.box == [64, 64] and m.address == t.data_ptr() and m.dtype == "BFLOAT16"


def test_check_against_plan_explains_the_ungrouped_copy_as_the_hang():
    # a rank-2 fp32 (d, seq) tile partitioned without grouping: 64 copies of the whole 16 KiB box
    p = tmakit.plan("fp32 (64,4096):(1,64)", "(64,64):(1,64)", "d=64,seq=64")
    c = tmakit.check_against_plan(p.descriptor, p, armed_bytes=16384, copies=64)
    assert not c.ok and c.hangs and c.stage_bytes == 1048576 and c.armed_bytes == 16384
    assert c.rules == ["check.copies", "check.tx_limit"]
    assert "64 copies x 16,384 B deliver 1,048,576 bytes to a barrier armed for 16,384" in c.findings[0].message
    assert "2^20 - 1" in c.findings[1].message and "the next wait never completes (the hang)" in c.findings[1].message
    assert "group_modes" in c.findings[0].fix
    assert tmakit.check_against_plan(p.descriptor, p, armed_bytes=16384, copies=1).ok


def test_check_against_plan_names_fields_and_the_hang():
    p = tmakit.plan(GMEM, SMEM, TILE)
    same = tmakit.encode_tiled(dtype="bf16", dims=[4096, 4096], strides=[8192], box=[64, 128], swizzle="128B",
                               address=0x7f0000000000)
    c = tmakit.check_against_plan(same, p)
    assert c.ok and c and not c.hangs and c.findings == [] and not c.address_compared
    assert c.copy_bytes == 16384 == c.plan_expect_tx
    half = tmakit.encode_tiled(dtype="bf16", dims=[4096, 4096], strides=[8192], box=[32, 64], swizzle="64B")
    c = tmakit.check_against_plan(half, p)
    assert not c.ok and c.hangs
    assert c.fields == ["swizzle", "boxDim[0]", "boxDim[1]", "transaction bytes"]  # no derived fields again
    assert c.rules == ["check.swizzle", "check.box", "check.box", "check.copy_bytes"]
    assert "never completes" in c.findings[-1].effect and "4096" in c.findings[-1].effect
    # the kernel's own count: a copy that moves the whole box, armed with half of it
    c = tmakit.check_against_plan(same, p, armed_bytes=32768)
    assert c.rules == ["check.armed_bytes"] and c.hangs
    c = tmakit.check_against_plan(same, p, armed_bytes=8192)
    assert c.rules == ["check.armed_bytes"] and not c.hangs and "completes" in c.findings[0].effect
    # the whole box copied twice per stage: more bytes than the plan's expect_tx (no hang, an error)
    c = tmakit.check_against_plan(same, p, copies=2)
    assert c.rules == ["check.copies"] and c.stage_bytes == 32768 and not c.hangs
    notes = tmakit.check_against_plan(
        tmakit.encode_tiled(dtype="bf16", dims=[4096, 4096], strides=[8192], box=[64, 128], swizzle="128B", l2="256B"), p)
    assert notes.ok and notes.rules == ["check.l2promotion"] and notes.findings[0].severity == "note"

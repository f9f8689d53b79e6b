"""CuTe DSL (nvidia-cutlass-dsl): the descriptor of a TMA atom from cpasync.make_tiled_tma_atom,
copied into a torch CUDA tensor from a kernel (TensorMapManager.init_tensormap_from_atom, which
issues cpasync.copy_tensormap), explained with tmakit: decode, diff and check against tmakit.plan
for the same tensor, shared layout and tiler, and the atom's expected transaction bytes (the bytes
the kernel arms its barrier with, cute.size_in_bytes of the shared tile) against the plan's
expect_tx. The copies a kernel issues per stage are read off tma_partition's result, with the
tile's modes grouped into mode 0 and without (the grouping that decides between a copy that
completes and one that hangs)."""

import pytest
torch = pytest.importorskip("torch")

import tmakit

from gpu_report import report

cutlass = pytest.importorskip("cutlass")
cute = pytest.importorskip("cutlass.cute")
from cutlass.cute.nvgpu import cpasync  # noqa: E402
from cutlass.cute.runtime import from_dlpack  # noqa: E402

SEQ, D, TILE = 4096, 64, 64


def static_int(x):
    try:
        return int(x)
    except Exception:
        return None


def partition_facts(atom, s_tensor, g_tiles, grouped: bool) -> dict:
    """What tma_partition makes of the tile at trace time: layouts, elements per copy, copies."""
    try:
        if grouped:
            s, g = cute.group_modes(s_tensor, 0, 2), cute.group_modes(g_tiles, 0, 2)
        else:
            s, g = s_tensor, g_tiles
        t_s, t_g = cpasync.tma_partition(atom, 0, cute.make_layout(1), s, g)
        per_copy = static_int(cute.size(t_s, mode=[0]))
        total = static_int(cute.size(t_s))
        return {"smem": str(t_s.layout), "gmem": str(t_g.layout), "elements_per_copy": per_copy,
                "copies": total // per_copy if per_copy and total else None}
    except Exception as e:  # the DSL refuses the partition: recorded as such
        return {"error": f"{type(e).__name__}: {e}"}


def descriptor_of(build_atom, tensor: torch.Tensor, smem_bytes: int) -> tuple[torch.Tensor, dict]:
    """Runs build_atom(g) (returning atom, tma_tensor, smem layout, tiler) in a jit function, copies
    the atom's descriptor out from a kernel and records the partitions."""
    facts: dict = {}
    out = torch.zeros(16, dtype=torch.int64, device="cuda")

    @cute.kernel
    def copy_out(atom: cute.CopyAtom, tma_tensor: cute.Tensor, dst: cute.Tensor):
        manager = cutlass.utils.TensorMapManager(cutlass.utils.TensorMapUpdateMode.GMEM, 128)
        manager.init_tensormap_from_atom(atom, manager.get_tensormap_ptr(dst.iterator), 0)
        smem = cutlass.utils.SmemAllocator()
        s_tensor = smem.allocate_tensor(facts["dtype"], facts["smem_layout"], 1024)
        g_tiles = cute.local_tile(tma_tensor, facts["tiler"], (0, None))
        facts["grouped"] = partition_facts(atom, s_tensor, g_tiles, True)
        facts["ungrouped"] = partition_facts(atom, s_tensor, g_tiles, False)

    @cute.jit
    def run(src: cute.Tensor, dst: cute.Tensor):
        atom, tma_tensor, smem_layout, tiler, dtype = build_atom(src)
        facts.update(smem_layout=smem_layout, tiler=tiler, dtype=dtype,
                     armed_bytes=static_int(cute.size_in_bytes(dtype, smem_layout)))
        copy_out(atom, tma_tensor, dst).launch(grid=(1, 1, 1), block=(32, 1, 1), smem=smem_bytes + 1024)

    run(from_dlpack(tensor, assumed_align=16), from_dlpack(out, assumed_align=16))
    torch.cuda.synchronize()
    return out, facts


def test_versions():
    import importlib.metadata as md
    print("\nnvidia-cutlass-dsl", md.version("nvidia-cutlass-dsl"), "| torch", torch.__version__,
          "| device", torch.cuda.get_device_name(), "| tmakit", tmakit.__version__)


def test_fp32_direct_basis_kv_tile():
    kv = torch.randn(SEQ, D, device="cuda", dtype=torch.float32)  # (seq, d), row-major

    def build(src):
        # the direct basis (d, seq): d contiguous, as a K/V tile load sees it
        g = cute.make_tensor(src.iterator, cute.make_layout((D, SEQ), stride=(1, D)))
        s = cute.make_layout((D, TILE), stride=(1, D))
        atom, tma_tensor = cpasync.make_tiled_tma_atom(cpasync.CopyBulkTensorTileG2SOp(), g, s, (D, TILE))
        return atom, tma_tensor, s, (D, TILE), cutlass.Float32

    raw, facts = descriptor_of(build, kv, D * TILE * 4)
    plan = tmakit.plan(kv, "(64,64):(64,1)", "seq=64,d=_")
    print("\npartition with the tile grouped:", facts["grouped"])
    print("partition without grouping:", facts["ungrouped"])
    armed = facts["armed_bytes"] or D * TILE * 4
    check = report("CuTe DSL fp32 (d, seq) K/V tile", raw, plan, armed_bytes=armed)
    assert tmakit.decode(raw).round_trips
    assert check.copy_bytes == plan.expect_tx == armed == 16384  # the atom's bytes are the plan's
    assert check.ok, check.text
    grouped = facts["grouped"]
    if grouped.get("copies"):
        c = report("... grouped: copies per stage from tma_partition", raw, plan, armed_bytes=armed,
                   copies=grouped["copies"])
        assert c.ok and grouped["copies"] == 1
    ungrouped = facts["ungrouped"]
    if ungrouped.get("copies"):
        c = report("... not grouped: copies per stage from tma_partition", raw, plan, armed_bytes=armed,
                   copies=ungrouped["copies"])
        assert (ungrouped["copies"] == 1) == c.ok


def test_bf16_128b_swizzled_gemm_operand():
    from cutlass.utils import LayoutEnum
    from cutlass.utils import hopper_helpers as sm90

    a = torch.randn(4096, 4096, device="cuda").to(torch.bfloat16)  # (M, K), K-major

    def build(src):
        staged = sm90.make_smem_layout_a(LayoutEnum.ROW_MAJOR, (128, 128, 64), cutlass.BFloat16, 1)
        s = cute.slice_(staged, (None, None, 0))
        atom, tma_tensor = cpasync.make_tiled_tma_atom(cpasync.CopyBulkTensorTileG2SOp(), src, s, (128, 64))
        return atom, tma_tensor, s, (128, 64), cutlass.BFloat16

    raw, facts = descriptor_of(build, a, 128 * 64 * 2)
    plan = tmakit.plan(a, "Sw<3,4,3> o (128,64):(64,1)", "M=128,K=64")
    print("\nshared layout:", facts["smem_layout"], "| partition (grouped):", facts["grouped"])
    armed = facts["armed_bytes"] or 16384
    check = report("CuTe DSL bf16 128B-swizzled A operand", raw, plan, armed_bytes=armed)
    assert tmakit.decode(raw).swizzle == "128B"
    assert check.copy_bytes == plan.tx_bytes_per_instruction  # no missing bytes: the barrier completes
    assert armed == plan.expect_tx == 16384

"""CuTe DSL (nvidia-cutlass-dsl): the descriptor of a TMA atom from cpasync.make_tiled_tma_atom,
copied into a torch CUDA tensor from a kernel (all 128 bytes, read where the kernel receives them;
TensorMapManager.init_tensormap_from_atom, which issues cpasync.copy_tensormap, stores the first
64 of them, and the test checks that they agree), explained with tmakit: decode, diff and check against tmakit.plan
for the same tensor, shared layout and tiler, and the atom's expected transaction bytes (the bytes
the kernel arms its barrier with, cute.size_in_bytes of the shared tile) against the plan's
expect_tx. The copies a kernel issues per stage are read off tma_partition's result (compiled, not
run), with the tile's modes grouped into mode 0 and without (the grouping that decides between a
copy that completes and one that hangs). The DSL side lives in cute_dsl_tma.py."""

import json
import os

import pytest
torch = pytest.importorskip("torch")

import tmakit

from gpu_report import report

cutlass = pytest.importorskip("cutlass")
cute = pytest.importorskip("cutlass.cute")
from cutlass.cute.runtime import from_dlpack  # noqa: E402

from cute_dsl_tma import A_OPERAND, D, KV_TILE, SEQ, TmaCase  # noqa: E402


def descriptor_of(case: TmaCase, tensor: torch.Tensor) -> tuple[torch.Tensor, dict]:
    """The 128 bytes of the case's atom for tensor as the kernel receives them (16 int64 on the
    GPU), and what the DSL made of the case: armed_bytes, the shared layout, tma_partition grouped
    and not, and what cpasync.copy_tensormap wrote (copy_tensormap)."""
    facts: dict = {}
    out = torch.zeros(16, dtype=torch.int64, device="cuda")
    out_copy_tensormap = torch.zeros(16, dtype=torch.int64, device="cuda")
    src = from_dlpack(tensor, assumed_align=16)
    case.descriptor_program(facts)(src, from_dlpack(out, assumed_align=16),
                                   from_dlpack(out_copy_tensormap, assumed_align=16))
    torch.cuda.synchronize()
    # copy_tensormap agrees on the bytes it copies (the first 64 in nvidia-cutlass-dsl 4.8.1)
    copied = int((out_copy_tensormap != 0).nonzero().max()) + 1 if out_copy_tensormap.any() else 0
    print(f"\ncpasync.copy_tensormap: nonzero up to byte {copied * 8} of 128")
    assert copied >= 4 and torch.equal(out_copy_tensormap[:copied], out[:copied])
    facts["grouped"] = case.partition(src, grouped=True)
    facts["ungrouped"] = case.partition(src, grouped=False)
    driver = captured(tensor.data_ptr())
    if driver is not None:
        # The descriptor the DSL's runtime had the driver encode (libtmakit_capture.so recorded the
        # call). The kernel-side read must agree with it where it holds the descriptor.
        read = bytes(out.cpu().numpy().view("uint8"))
        same = sum(a == b for a, b in zip(driver, read))
        print(f"the kernel's read agrees with the driver's descriptor on {same} of 128 bytes")
        return torch.tensor(list(driver), dtype=torch.uint8), facts
    return out, facts


def captured(address: int):
    """The 128 bytes of the last cuTensorMapEncodeTiled call for `address` that tmakit_capture
    (tools/capture: LD_PRELOAD=libtmakit_capture.so, TMAKIT_CAPTURE=file) recorded, or None."""
    path = os.environ.get("TMAKIT_CAPTURE")
    if not path or not os.path.exists(path):
        return None
    found = None
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            if rec["call"] == "cuTensorMapEncodeTiled" and rec["address"] == address and rec["result"] == 0:
                found = bytes.fromhex(rec["bytes"])
    return found


def test_versions():
    import importlib.metadata as md
    print("\nnvidia-cutlass-dsl", md.version("nvidia-cutlass-dsl"), "| torch", torch.__version__,
          "| device", torch.cuda.get_device_name(), "| tmakit", tmakit.__version__)


def test_fp32_direct_basis_kv_tile():
    kv = torch.randn(SEQ, D, device="cuda", dtype=torch.float32)  # (seq, d), row-major
    raw, facts = descriptor_of(KV_TILE, kv)
    plan = tmakit.plan(kv, "(64,64):(64,1)", "seq=64,d=_")
    print("\npartition with the tile grouped:", facts["grouped"])
    print("partition without grouping:", facts["ungrouped"])
    armed = facts["armed_bytes"]
    check = report("CuTe DSL fp32 (d, seq) K/V tile", raw, plan, armed_bytes=armed)
    # What the atom hands the kernel carries the plan's tensor, box and bytes (measured on an H200
    # with nvidia-cutlass-dsl 4.8.1: for this atom the DSL's runtime made no driver call that
    # tmakit_capture saw, and the flags at bytes 8..10 and bytes 64..127 are not a driver
    # descriptor's; check_against_plan names them, docs/lab/python.md).
    d = tmakit.decode(raw)
    assert (d.params["dtype"], d.params["dims"], d.box) == ("FLOAT32", [D, SEQ], list(KV_TILE.tiler))
    assert d.transaction_bytes == plan.expect_tx == armed == 16384  # the atom's bytes are the plan's
    assert "check.copy_bytes" not in check.rules, check.text
    grouped, ungrouped = facts["grouped"], facts["ungrouped"]
    assert grouped.get("copies") == 1, grouped  # grouped: one copy moves the whole box
    c = report("... grouped: copies per stage from tma_partition", raw, plan, armed_bytes=armed,
               copies=grouped["copies"])
    assert "check.copy_bytes" not in c.rules, c.text
    assert ungrouped.get("copies", 0) > 1, ungrouped  # not grouped: one copy per mode-1 step
    c = report("... not grouped: copies per stage from tma_partition", raw, plan, armed_bytes=armed,
               copies=ungrouped["copies"])
    assert "check.copy_bytes" in c.rules, c.text  # the barrier completes early: the copies overrun it


def test_bf16_128b_swizzled_gemm_operand():
    a = torch.randn(4096, 4096, device="cuda").to(torch.bfloat16)  # (M, K), K-major
    raw, facts = descriptor_of(A_OPERAND, a)
    plan = tmakit.plan(a, "Sw<3,4,3> o (128,64):(64,1)", "M=128,K=64")
    print("\nshared layout:", facts["smem_layout"], "| partition (grouped):", facts["grouped"])
    print("partition without grouping:", facts["ungrouped"])
    armed = facts["armed_bytes"]
    check = report("CuTe DSL bf16 A operand (128B-swizzled shared tile)", raw, plan, armed_bytes=armed,
                   copies=facts["grouped"].get("copies"))
    d = tmakit.decode(raw)
    assert d.box == [64, 128] and d.transaction_bytes == plan.tx_bytes_per_instruction
    assert armed == plan.expect_tx == 16384
    assert facts["grouped"].get("copies") == 1, facts["grouped"]
    assert "check.copy_bytes" not in check.rules, check.text  # no missing bytes: the barrier completes
    if captured(a.data_ptr()) is not None:
        # The driver encoded this atom (tmakit_capture saw the call): a descriptor the codec reads
        # whole. On the H200 run it had no swizzle where the shared tile has the 128-byte one, and
        # the check names exactly that (docs/lab/python.md).
        assert d.round_trips
        print("driver-encoded; swizzle", d.swizzle, "| findings:", check.rules)
        assert set(check.rules) <= {"check.swizzle", "check.l2promotion"}, check.text
    # without the grouping, mode 1 of the shared tile is K with stride 1 (2 bytes): nvidia-cutlass-dsl
    # 4.8.1's verifier refuses that partition at compile time, before any copy could hang; a DSL that
    # took it would issue more than one copy per stage, which the check must call a failure
    ungrouped = facts["ungrouped"]
    if "error" in ungrouped:
        assert "tma_partition" in ungrouped["error"], ungrouped
    else:
        assert ungrouped["copies"] > 1, ungrouped
        c = report("... not grouped: copies per stage from tma_partition", raw, plan, armed_bytes=armed,
                   copies=ungrouped["copies"])
        assert "check.copy_bytes" in c.rules, c.text

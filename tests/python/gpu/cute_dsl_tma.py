"""The CuTe DSL side of test_cute_dsl.py, free of torch so that it also compiles on a host without a
GPU (cute.compile on runtime.make_fake_tensor arguments, CUTE_DSL_ARCH=sm_90a).

A TmaCase is one TMA load as a kernel writes it: the global view of the source tensor, the shared
layout of one stage, the tiler and the element type. Every CuTe value a kernel uses is built inside
that kernel's own region: the DSL isolates a kernel from the jit function that launches it, so a
layout made in the jit function and captured by the kernel is a value defined outside the region
(the MLIR verifier refuses the module). The shared layout is therefore a function, called where it
is needed; the tiler and the element type are Python values."""

import re
from dataclasses import dataclass
from typing import Callable, Optional

import cutlass
import cutlass._mlir.dialects.cute as _cute_ir
import cutlass._mlir.dialects.cute_nvgpu as _cute_nvgpu_ir
import cutlass.cute as cute
from cutlass import AddressSpace
from cutlass.cute.nvgpu import cpasync


def static_int(x) -> Optional[int]:
    try:
        return int(x)
    except Exception:
        return None


def descriptor_words(atom) -> "cute.Tensor":
    """Inside a kernel: the atom's 128-byte descriptor as 16 Int64, read where the kernel receives
    it (its parameter space). cpasync.copy_tensormap, which TensorMapManager.init_tensormap_from_atom
    issues, stores only the first 64 bytes in nvidia-cutlass-dsl 4.8.1 (its sm_90a PTX: four
    16-byte stores), without the driver's boxBytes and smemAlignment at bytes 64..79."""
    ptr_type = _cute_ir.PtrType.get(_cute_nvgpu_ir.TmaDescriptorTiledType.get(), AddressSpace.generic, 64)
    address = _cute_nvgpu_ir.get_tma_desc_addr(ptr_type, _cute_nvgpu_ir.atom_make_exec_tma(atom._trait.value))
    return cute.make_tensor(cute.recast_ptr(address, dtype=cutlass.Int64), cute.make_layout(16))


@dataclass
class TmaCase:
    dtype: type                      # cutlass.Float32, cutlass.BFloat16, ...
    tiler: tuple                     # the CTA tile, e.g. (64, 64)
    smem_layout: Callable            # () -> the shared layout of one stage
    gmem_view: Callable = None       # (source tensor) -> the global view the atom describes

    def atom(self, src):
        """(atom, tma_tensor) of make_tiled_tma_atom; called inside a jit region."""
        g = self.gmem_view(src) if self.gmem_view else src
        return cpasync.make_tiled_tma_atom(cpasync.CopyBulkTensorTileG2SOp(), g, self.smem_layout(), self.tiler)

    def descriptor_program(self, facts: dict):
        """A jit function (src, dst, dst_copy_tensormap): builds the atom on the host; a kernel
        writes its 128-byte descriptor into dst (16 int64) and what TensorMapManager's
        init_tensormap_from_atom (cpasync.copy_tensormap) writes into dst_copy_tensormap. Records
        armed_bytes, the bytes a kernel arms its barrier with per stage (cute.size_in_bytes of the
        shared tile), and the shared layout in facts at trace time."""
        case = self

        @cute.kernel
        def copy_out(atom: cute.CopyAtom, dst: cute.Tensor, dst_copy_tensormap: cute.Tensor):
            manager = cutlass.tensor_utils.TensorMapManager(cutlass.tensor_utils.TensorMapUpdateMode.GMEM, 128)
            manager.init_tensormap_from_atom(atom, manager.get_tensormap_ptr(dst_copy_tensormap.iterator), 0)
            words = descriptor_words(atom)
            if cute.arch.thread_idx()[0] == 0:
                for i in cutlass.range_constexpr(16):
                    dst[i] = words[i]

        @cute.jit
        def program(src: cute.Tensor, dst: cute.Tensor, dst_copy_tensormap: cute.Tensor):
            atom, _ = case.atom(src)
            facts["smem_layout"] = str(case.smem_layout())
            facts["armed_bytes"] = static_int(cute.size_in_bytes(case.dtype, case.smem_layout()))
            copy_out(atom, dst, dst_copy_tensormap).launch(grid=(1, 1, 1), block=(32, 1, 1))

        return program

    def partition(self, src, grouped: bool) -> dict:
        """What tma_partition makes of the first tile (compiled, not run): the partitioned layouts,
        elements per copy and copies per stage, with the tile's modes grouped into mode 0 or not.
        Where the DSL refuses the partition (its verifier checks the shared operand's strides
        against TMA's 16-byte alignment), the refusal is the result: {"error": ...}."""
        case, found = self, {}

        @cute.kernel
        def probe(atom: cute.CopyAtom, tma_tensor: cute.Tensor):
            s_tensor = cutlass.memory.SmemAllocator().allocate_tensor(case.dtype, case.smem_layout(), 1024)
            g_tiles = cute.local_tile(tma_tensor, case.tiler, (0, None))
            if cutlass.const_expr(grouped):
                s, g = cute.group_modes(s_tensor, 0, 2), cute.group_modes(g_tiles, 0, 2)
            else:
                s, g = s_tensor, g_tiles
            t_s, t_g = cpasync.tma_partition(atom, 0, cute.make_layout(1), s, g)
            per_copy, total = static_int(cute.size(t_s, mode=[0])), static_int(cute.size(t_s))
            found.update(smem=str(t_s.layout), gmem=str(t_g.layout), elements_per_copy=per_copy,
                         copies=total // per_copy if per_copy and total else None)

        @cute.jit
        def program(src: cute.Tensor):
            atom, tma_tensor = case.atom(src)
            smem_bytes = static_int(cute.size_in_bytes(case.dtype, case.smem_layout()))
            probe(atom, tma_tensor).launch(grid=(1, 1, 1), block=(32, 1, 1), smem=smem_bytes + 1024)

        try:
            cute.compile(program, src)
        except Exception as e:  # the DSL refuses the partition: recorded as such
            words = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", str(e)).split())
            at = max(words.find("tma_partition:"), 0)
            return {"error": f"{type(e).__name__}: {words[at:].split(' suggestion:')[0]}"}
        return found


# The two loads test_cute_dsl.py explains.
SEQ, D, TILE = 4096, 64, 64


def _kv_smem():
    return cute.make_layout((D, TILE), stride=(1, D))


def _kv_direct_basis(src):
    # the direct basis (d, seq) of a row-major (seq, d) tensor: d contiguous, as a K/V tile load sees it
    return cute.make_tensor(src.iterator, cute.make_layout((D, SEQ), stride=(1, D)))


def _a_operand_smem():
    from cutlass.utils import hopper_helpers as sm90
    staged = sm90.make_smem_layout_a(cutlass.tensor_utils.LayoutEnum.ROW_MAJOR, (128, 128, 64), cutlass.BFloat16, 1)
    return cute.slice_(staged, (None, None, 0))


# fp32 K/V tile (d, seq) = (64, 64) of a (4096, 64) row-major tensor
KV_TILE = TmaCase(cutlass.Float32, (D, TILE), _kv_smem, _kv_direct_basis)
# bf16 (128, 64) tile of a K-major (M, K) GEMM operand in the 128B-swizzled layout sm90 WGMMA reads
A_OPERAND = TmaCase(cutlass.BFloat16, (128, 64), _a_operand_smem)

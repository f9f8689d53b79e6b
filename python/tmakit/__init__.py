"""tmakit from Python: plan, encode, validate, decode and explain TMA copies (CUtensorMap).

A thin layer over tmakit's C++ host library (the extension module tmakit._tmakit): every decision,
byte, rule id and message is the library's, the same as the `tmakit` CLI's. Host code only: no GPU
or CUDA toolkit is needed (tmakit.torch places descriptors in CUDA memory when there is one).

    import tmakit
    m = tmakit.encode_tiled(dtype="bf16", dims=[4096, 4096], strides=[8192], box=[64, 128], swizzle="128B")
    p = tmakit.plan(gmem="bf16 (4096,4096):(4096,1)", smem="Sw<3,4,3> o (128,64):(64,1)", tile="M=128,K=64")

See docs/python.md.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from . import _tmakit
from ._errors import Refused, Violation
from ._records import (
    Decoded,
    Diff,
    DsmemPlan,
    FieldDifference,
    MulticastPlan,
    Plan,
    PlanCheck,
    PlanFinding,
    StorePlan,
    TensorMap,
)
from ._tmakit import Layout

__version__: str = _tmakit.__version__

__all__ = [
    "Decoded", "Diff", "DsmemPlan", "FieldDifference", "Layout", "MulticastPlan", "Plan", "PlanCheck",
    "PlanFinding", "Refused", "StorePlan", "TensorMap", "Violation", "check_against_plan", "decode", "diff",
    "dsmem_copy", "encode", "encode_im2col", "encode_im2col_wide", "encode_tiled", "multicast", "plan",
    "smem_store", "tensor_map", "to_bytes", "validate",
]

Name = str | int  # a name as the CLI takes it ("bf16", "128B", "sm_90") or the cuda.h integer


def _fields(kind: str, fields: Mapping[str, Any]) -> dict[str, Any]:
    out = {"kind": kind}
    out.update({k: v for k, v in fields.items() if v is not None})
    return out


def encode(fields: Mapping[str, Any] | None = None, **kw: Any) -> TensorMap:
    """The descriptor of parameters in the schema of `tmakit encode --jsonl` (kind, arch, dtype,
    rank, address, dims, strides, box, elem_strides, interleave, swizzle, l2, oob, lower, upper,
    channels, pixels, mode; names or cuda.h integers; unknown keys ignored). Raises Refused with
    every violated rule (and input.type / input.range / input.name for values that do not parse)."""
    merged = dict(fields or {})
    merged.update(kw)
    return TensorMap(_tmakit.encode(merged))


def encode_tiled(*, dtype: Name, dims: Sequence[int], box: Sequence[int], strides: Sequence[int] = (),
                 elem_strides: Sequence[int] | None = None, interleave: Name = "NONE", swizzle: Name = "NONE",
                 l2: Name = "NONE", oob: Name = "NONE", address: int = 0, arch: Name = "sm_90",
                 rank: int | None = None) -> TensorMap:
    """cuTensorMapEncodeTiled without the driver: dims innermost first, strides in bytes for dims
    1..rank-1, box one entry per dim. Raises Refused with every violated rule."""
    return encode(_fields("tiled", dict(dtype=dtype, dims=list(dims), strides=list(strides), box=list(box),
                                        elem_strides=None if elem_strides is None else list(elem_strides),
                                        interleave=interleave, swizzle=swizzle, l2=l2, oob=oob, address=address,
                                        arch=arch, rank=rank)))


def encode_im2col(*, dtype: Name, dims: Sequence[int], strides: Sequence[int], lower: Sequence[int],
                  upper: Sequence[int], channels: int, pixels: int, elem_strides: Sequence[int] | None = None,
                  interleave: Name = "NONE", swizzle: Name = "NONE", l2: Name = "NONE", oob: Name = "NONE",
                  address: int = 0, arch: Name = "sm_90", rank: int | None = None) -> TensorMap:
    """cuTensorMapEncodeIm2col without the driver: lower/upper one per spatial dim (dims 1..rank-2)."""
    return encode(_fields("im2col", dict(dtype=dtype, dims=list(dims), strides=list(strides), lower=list(lower),
                                         upper=list(upper), channels=channels, pixels=pixels,
                                         elem_strides=None if elem_strides is None else list(elem_strides),
                                         interleave=interleave, swizzle=swizzle, l2=l2, oob=oob, address=address,
                                         arch=arch, rank=rank)))


def encode_im2col_wide(*, dtype: Name, dims: Sequence[int], strides: Sequence[int], lower: int, upper: int,
                       channels: int, pixels: int, mode: Name = "W", elem_strides: Sequence[int] | None = None,
                       interleave: Name = "NONE", swizzle: Name = "NONE", l2: Name = "NONE", oob: Name = "NONE",
                       address: int = 0, arch: Name = "sm_90", rank: int | None = None) -> TensorMap:
    """cuTensorMapEncodeIm2colWide without the driver: lower/upper are the W offsets; mode W or W128."""
    return encode(_fields("im2col_wide", dict(dtype=dtype, dims=list(dims), strides=list(strides), lower=lower,
                                              upper=upper, channels=channels, pixels=pixels, mode=mode,
                                              elem_strides=None if elem_strides is None else list(elem_strides),
                                              interleave=interleave, swizzle=swizzle, l2=l2, oob=oob,
                                              address=address, arch=arch, rank=rank)))


def validate(fields: Mapping[str, Any] | None = None, **kw: Any) -> list[Violation]:
    """Every rule the parameters violate (empty when valid), as `tmakit check` lists them; the same
    keys as encode() (kind defaults to "tiled")."""
    merged = dict(fields or {})
    merged.update(kw)
    return [Violation(**v) for v in _tmakit.validate(merged)]


def to_bytes(descriptor: Any) -> bytes:
    """The 128 bytes of a descriptor given as bytes, bytearray, memoryview, a TensorMap, 256 hex
    digits (str), a numpy array, or a torch / CuPy tensor (CPU or CUDA: copied to the host)."""
    if isinstance(descriptor, (bytes, bytearray, memoryview)):
        return bytes(descriptor)
    if isinstance(descriptor, str):
        return _tmakit.from_hex(descriptor)
    module = type(descriptor).__module__.split(".")[0]
    if module == "torch":
        import torch

        t = descriptor.detach().to("cpu").contiguous().view(-1).view(torch.uint8)
        return bytes(t.tolist())
    if module == "cupy":
        descriptor = descriptor.get()
    return bytes(memoryview(descriptor).cast("B"))


def decode(descriptor: Any) -> Decoded:
    """Every field of a descriptor (`tmakit decode`): see to_bytes() for what it takes."""
    return Decoded(_tmakit.decode(to_bytes(descriptor)))


def diff(a: Any, b: Any) -> Diff:
    """Every field and byte in which two descriptors differ (`tmakit diff`)."""
    return Diff(_tmakit.diff(to_bytes(a), to_bytes(b)))


def plan(gmem: Any, smem: str, tile: str, *, cluster: Sequence[int] | None = None, multicast: str | None = None,
         arch: str = "sm_90", l2: str = "none", oob: str = "none", store: bool = False,
         reduce: str | None = None) -> Plan:
    """The TMA plan of a tile (`tmakit plan`): descriptor, instructions per tile, bytes to expect.

    gmem: the CLI's text form ('bf16 (4096,4096):(4096,1)'), or a tensor (torch, numpy, CuPy, any
    object with __dlpack__: modes in its own order, the last one usually contiguous, its data
    pointer as the descriptor's address); smem: the shared tile layout, swizzle in bytes
    ('Sw<3,4,3> o (128,64):(64,1)'); tile: the tiler ('M=128,K=64'). cluster: (x, y[, z]);
    multicast: 'x', 'y' or 'z' (the cluster dimension whose CTAs share the tile). store / reduce
    ('add', 'min', ...): the same boxes from shared to global memory. Raises Refused with every
    violated rule, ValueError when a text form does not parse.
    """
    c = [1, 1, 1] if cluster is None else list(cluster) + [1] * (3 - len(cluster))
    return Plan(_tmakit.plan(gmem, smem, tile, c, multicast, arch, l2, oob, store, reduce))


def tensor_map(tensor: Any, *, box: Sequence[int], swizzle: Name = "NONE", l2: str = "none", oob: str = "none",
               arch: str = "sm_90") -> TensorMap:
    """The descriptor of a box of a tensor (any DLPack object), as planned: `box` in the tensor's
    own mode order (a row-major (M, K) tensor and box=(128, 64): 128 rows of 64 elements), the
    box stored row-major in a buffer with `swizzle`. Its address is the tensor's data pointer.
    For a uint8 CUDA tensor holding it, see tmakit.torch.tensor_map."""
    return plan_box(tensor, box=box, swizzle=swizzle, l2=l2, oob=oob, arch=arch).descriptor


def plan_box(tensor: Any, *, box: Sequence[int], swizzle: Name = "NONE", l2: str = "none", oob: str = "none",
             arch: str = "sm_90") -> Plan:
    """The plan behind tensor_map(): a row-major box of `tensor` in a buffer with `swizzle`."""
    return Plan(_tmakit.plan_box(tensor, list(box), str(swizzle), arch, l2, oob))


def check_against_plan(descriptor: Any, plan: Plan, *, armed_bytes: int | None = None,
                       copies: int | None = None) -> PlanCheck:
    """A descriptor made elsewhere (CuTe DSL, Triton, cuda.core, a driver call) against `plan`:
    every field that differs and what it does to the copy, and the bytes one copy delivers against
    the plan's expect_tx. armed_bytes: what the kernel arms its barrier with per stage, when known;
    copies: copies of the descriptor that deliver into a receiving CTA per stage (default: the plan's
    instruction count)."""
    return PlanCheck(_tmakit.check_against_plan(to_bytes(descriptor), plan._handle, armed_bytes or 0, copies or 0))


def smem_store(src: str, dst: str, *, base: int = 0, elements: bool = False, stmatrix: bool = True) -> StorePlan:
    """`tmakit smem-store`: the widest conflict-free store of a register fragment ('wgmma m64n128
    f32->bf16') into a shared layout ('kmajor sw128' or CuTe notation); Refused when none fits."""
    return StorePlan(_tmakit.smem_store(src, dst, base, elements, stmatrix))


def multicast(box: Any, *, cluster: Sequence[int], share: str, mode: str = "leader_broadcast",
              slice_dim: int | None = None) -> MulticastPlan:
    """One operand's tile, described by the descriptor of the WHOLE tile (`box`: a TensorMap or its
    bytes), shared by the CTAs of a cluster along `share` ('x', 'y', 'xy'): per CTA what it issues
    (mask, slice, offsets, bytes) and what its barrier expects."""
    c = list(cluster) + [1] * (3 - len(cluster))
    return MulticastPlan(_tmakit.multicast(to_bytes(box), c, share, mode, slice_dim))


def dsmem_copy(src: str, dst: str, *, dtype: str, threads: int = 128) -> DsmemPlan:
    """An SM-to-SM copy from a shared layout of this CTA to one of a peer (CuTe notation, swizzle in
    bytes): the path, its pieces and the bytes the receiving barrier must expect."""
    return DsmemPlan(_tmakit.dsmem_copy(src, dst, dtype, threads))

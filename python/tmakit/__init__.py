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

from . import _cuda_interop, _tmakit
from ._capture import CapturedMap, capture
from ._cuda_interop import cuda_core_options, from_cuda_bindings, from_cuda_core, to_cuda_bindings, to_cuda_core
from ._errors import Refused, Violation
from ._records import (
    ClusterStage,
    Decoded,
    Diff,
    DsmemPlan,
    FieldDifference,
    GatherCheck,
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
    "CapturedMap", "ClusterStage", "Decoded", "Diff", "DsmemPlan", "FieldDifference", "GatherCheck", "Layout",
    "MulticastPlan", "Plan", "PlanCheck", "PlanFinding", "Refused", "StorePlan", "TensorMap", "Violation",
    "capabilities", "capture", "check_against_plan", "check_gather", "check_im2col_conv", "check_map_storage",
    "check_smem_base", "cluster_stage", "cuda_core_options", "decode", "diff", "dsmem_copy", "encode", "encode_im2col",
    "encode_im2col_wide", "encode_tiled", "from_cuda_bindings", "from_cuda_core", "multicast", "plan", "smem_store",
    "tensor_map", "to_bytes", "to_cuda_bindings", "to_cuda_core", "validate",
]

Name = str | int  # a name as the CLI takes it ("bf16", "128B", "sm_90") or the cuda.h integer


_OPTIONAL = ("rank", "elem_strides")  # the keyword arguments whose default None means "not given"


def _fields(kind: str, fields: Mapping[str, Any]) -> dict[str, Any]:
    out = {"kind": kind}
    out.update({k: v for k, v in fields.items() if not (k in _OPTIONAL and v is None)})
    return out


def _usage(field: str, what: str, fix: str) -> Refused:
    """Bad usage, with the CLI's rule id for it (usage.value: `tmakit encode` exits 2)."""
    return Refused([Violation(rule="usage.value", field=field, value="", message=f"error [usage.value] {field}: {what}",
                              fix=fix)])


def _count(value: Any) -> int | None:
    """Entries of a list parameter (a single integer counts as one); None when it is not given."""
    if value is None:
        return None
    return len(value) if isinstance(value, (list, tuple)) else 1


def _expect(fields: Mapping[str, Any], key: str, expected: int, why: str, required: bool = True) -> None:
    n = _count(fields.get(key))
    if n is None and not required:
        return
    n = n or 0
    if n != expected:
        plural = "" if expected == 1 else "s"
        raise _usage(key, f"expected {expected} value{plural} ({why}), got {n}", f"give {key} {expected} value{plural}")


def _check_counts(fields: Mapping[str, Any]) -> None:
    """Every list as long as the rank makes it, as the CLI checks its options: never padded with
    zeros or cut short (a 2-D map without strides would read every row at stride 0)."""
    dims = fields.get("dims")
    if not isinstance(dims, (list, tuple)):
        return  # missing or a single value: the library's own checks (rank.range, input.type) apply
    rank = len(dims)
    if rank == 0:
        raise _usage("dims", "empty list; expected one extent per dim, innermost first", "give dims=[d0, d1, ...]")
    if fields.get("rank") is not None and fields["rank"] != rank:
        raise _usage("rank", f"rank {fields['rank']!r} but {rank} dims", "leave rank out, or give one extent per dim")
    kind = fields.get("kind", "tiled")
    if isinstance(kind, int):
        if kind not in (0, 1, 2):
            return  # no map kind: the library refuses it by its own rule, lists or not
        kind = ("tiled", "im2col", "im2col_wide")[kind]
    kind = str(kind).lower().replace("-", "_")
    _expect(fields, "strides", rank - 1, f"byte strides of dims 1..rank-1 for rank {rank}", required=rank > 1)
    _expect(fields, "elem_strides", rank, f"one per dim for rank {rank}", required=False)
    if kind == "tiled":
        _expect(fields, "box", rank, f"one per dim for rank {rank}")
    elif kind == "im2col":
        for key in ("lower", "upper"):
            _expect(fields, key, max(rank - 2, 0), f"one per spatial dim (dims 1..rank-2) for rank {rank}")
    elif kind == "im2col_wide":
        for key in ("lower", "upper"):
            _expect(fields, key, 1, "the W offset")


def encode(fields: Mapping[str, Any] | None = None, **kw: Any) -> TensorMap:
    """The descriptor of parameters in the schema of `tmakit encode --jsonl` (kind, arch, dtype,
    rank, address, dims, strides, box, elem_strides, interleave, swizzle, l2, oob, lower, upper,
    channels, pixels, mode; names or cuda.h integers; unknown keys ignored). Every list must have
    the length the rank gives it (Refused with usage.value otherwise, as the CLI). Raises Refused
    with every violated rule (and input.type / input.range / input.name for values that do not
    parse); TypeError for a value of no parameter's type (None, bool, float, a list nested in
    itself)."""
    merged = dict(fields or {})
    merged.update(kw)
    _check_counts(merged)
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
    _check_counts(merged)
    return [Violation(**v) for v in _tmakit.validate(merged)]


def to_bytes(descriptor: Any) -> bytes:
    """The 128 bytes of a descriptor given as bytes, bytearray, memoryview, a TensorMap, 256 hex
    digits (str), a numpy array, a torch / CuPy tensor (CPU or CUDA: copied to the host), a
    cuda.core TensorMapDescriptor (from_cuda_core) or a cuda.bindings.driver.CUtensorMap."""
    if isinstance(descriptor, (bytes, bytearray, memoryview)):
        return bytes(descriptor)
    if isinstance(descriptor, str):
        return _tmakit.from_hex(descriptor)
    if _cuda_interop.is_cuda_core_descriptor(descriptor):
        return bytes(from_cuda_core(descriptor))
    if _cuda_interop.is_cuda_bindings_map(descriptor):
        return bytes(from_cuda_bindings(descriptor))
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


def capabilities(target: str | None = None) -> dict[str, Any]:
    """What sm_90a, sm_100a, sm_103a and sm_120a can do for data movement (`tmakit arch --json`): each
    capability's cell per target ("value": True / False / a number / None where no NVIDIA document
    states it; "limit"; "verified_on_hardware") with its source. target: one of them (also "sm_90",
    "90", "9.0"); a name the table does not hold is a ValueError."""
    return _tmakit.capabilities(target)


def check_map_storage(address: int) -> list[str]:
    """A tensor map stored at `address`, checked for what reads it (`tmakit decode --stored-at`).

    Raises tmakit.Refused [map.storage_align] where a TMA instruction could not read it (not 64-byte
    aligned); returns the notes, [map.storage_abi] where only CUDA 13's declared 128-byte alignment of
    CUtensorMap is missed, [] when there are none. E.g. check_map_storage(desc_tensor.data_ptr())."""
    if isinstance(address, bool) or not isinstance(address, int):
        raise TypeError(f"address: an integer, not {type(address).__name__}")
    if not 0 <= address < 1 << 64:
        raise _usage("address", f"{address} is not an address (0 .. 2^64 - 1)", "give the map's address")
    r = _tmakit.check_map_storage(address)
    if not r["ok"]:
        raise Refused(r["errors"])
    return [n["message"] for n in r["notes"]]


def _address(name: str, address: Any) -> int:
    """An address argument: an int in 0 .. 2^64 - 1 (TypeError / Refused usage.value otherwise)."""
    if isinstance(address, bool) or not isinstance(address, int):
        raise TypeError(f"{name}: an integer, not {type(address).__name__}")
    if not 0 <= address < 1 << 64:
        raise _usage(name, f"{address} is not an address (0 .. 2^64 - 1)", f"give the {name}")
    return address


def check_smem_base(address: int, descriptor: Any) -> None:
    """A copy's shared tile starting at `address` (the shared address, as __cvta_generic_to_shared
    gives it), checked against the swizzle of `descriptor` (`tmakit decode --smem-base`).

    Raises tmakit.Refused with [smem.base_align128] off a 128-byte boundary (the copy faults) and
    [smem.base_align] off the swizzle's repeat (256 / 512 / 1024 bytes: the tile is written with the
    pattern's rows shifted, silently); returns None when the tile may start there."""
    r = _tmakit.check_smem_base(_address("address", address), to_bytes(descriptor))
    if not r["ok"]:
        raise Refused(r["errors"])


def _per_dim(name: str, value: int | Sequence[int]) -> list[int]:
    """One value for every spatial dim, or one per spatial dim (W first)."""
    values = [value] if isinstance(value, int) else list(value)
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"{name}: integers, not {type(v).__name__}")
    return values


def check_im2col_conv(descriptor: Any, *, kernel: int | Sequence[int], stride: int | Sequence[int] = 1,
                      pad: int | Sequence[int] = 0, dilation: int | Sequence[int] = 1) -> None:
    """An im2col descriptor's pixel walk against the convolution it gathers for (`tmakit check im2col
    --conv`): kernel, stride, pad, dilation one value for all spatial dims or one per spatial dim, W
    first (the order of the map's corners).

    Raises tmakit.Refused with every im2col.conv_* finding (conv_stride, conv_lower, conv_extent:
    the walk parts from the convolution's windows, silently; conv_range: no im2col map of this rank
    walks it); ValueError when the descriptor is not an im2col map or the convolution does not fit
    it; returns None when the walk gathers the convolution's windows in output order."""
    found = _tmakit.check_im2col_conv(to_bytes(descriptor), _per_dim("kernel", kernel), _per_dim("stride", stride),
                                      _per_dim("pad", pad), _per_dim("dilation", dilation))
    if found:
        raise Refused(found)


def check_gather(descriptor: Any, *, op: str, arch: str, dst: str | None = None, armed_bytes: int | None = None,
                 copies: int | None = None) -> GatherCheck:
    """A descriptor used by Blackwell's TMA row gather (op "gather4") or scatter ("scatter4") on target
    `arch` ("sm_90a", "sm_100a", "sm_103a", "sm_120a"; also "sm_100", "100", "10.0"), as `tmakit
    check-gather`: the target's support for the form, the map's rank, box rows, kind and interleave, the
    tile mode's own rules on that target, and, with armed_bytes, what the kernel arms its barrier with
    for `copies` gather4 copies per phase against 4 rows x boxDim[0] per copy.

    dst: gather4's destination, "cta" (default), "cluster" or "multicast"; none for scatter4. Raises
    tmakit.Refused with every finding (gather4.arch, gather4.box_rows, gather4.armed_bytes, ...);
    ValueError for an op, dst or target it does not know. Per the PTX ISA; unverified on hardware."""
    for name, value in (("armed_bytes", armed_bytes), ("copies", copies)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise TypeError(f"{name}: an integer, not {type(value).__name__}")
    if armed_bytes is not None and not 0 <= armed_bytes < 1 << 64:
        raise _usage("armed_bytes", f"{armed_bytes} is not a byte count (0 .. 2^64 - 1)", "give the bytes armed")
    if copies is not None and not 0 <= copies < 1 << 32:
        raise _usage("copies", f"{copies} is not a copy count (1 .. 2^32 - 1)", "give the copies per phase")
    return GatherCheck(_tmakit.check_gather(to_bytes(descriptor), op, arch, dst, armed_bytes, copies))


def diff(a: Any, b: Any) -> Diff:
    """Every field and byte in which two descriptors differ (`tmakit diff`)."""
    return Diff(_tmakit.diff(to_bytes(a), to_bytes(b)))


def _cluster(cluster: Sequence[int]) -> list[int]:
    """(x, y[, z]) as three CTA counts; 1 to 3 of them, as the CLI's --cluster X[,Y[,Z]]."""
    c = list(cluster)
    if not 1 <= len(c) <= 3:
        raise _usage("cluster", f"expected 1 to 3 CTA counts (x, y[, z]), got {len(c)}", "give cluster=(x, y) or (x, y, z)")
    return c + [1] * (3 - len(c))


def _plan_cluster(cluster: Sequence[int]) -> list[int]:
    """A plan's cluster, checked as `tmakit plan --cluster` checks it (usage.value): 1..16 CTAs
    per dimension and at most 16 in all."""
    c = _cluster(cluster)
    for axis, n in zip("xyz", c):
        if not isinstance(n, int) or isinstance(n, bool):
            raise TypeError(f"cluster: CTA counts are integers, not {type(n).__name__}")
        if not 1 <= n <= 16:
            raise _usage("cluster", f"dimension {axis} has {n} CTAs; each dimension holds 1..16 CTAs", "give 1..16 CTAs each")
    if c[0] * c[1] * c[2] > 16:
        raise _usage("cluster", f"{c[0]} x {c[1]} x {c[2]} = {c[0] * c[1] * c[2]} CTAs; a cluster holds at most 16 in all",
                     "give at most 16 CTAs in all")
    return c


def plan(gmem: Any, smem: str, tile: str, *, cluster: Sequence[int] | None = None, multicast: str | None = None,
         arch: str = "sm_90", l2: str = "none", oob: str = "none", store: bool = False,
         reduce: str | None = None) -> Plan:
    """The TMA plan of a tile (`tmakit plan`): descriptor, instructions per tile, bytes to expect.

    gmem: the CLI's text form ('bf16 (4096,4096):(4096,1)'), or a tensor (torch, numpy, CuPy, any
    object with __dlpack__ or __cuda_array_interface__: modes in its own order, the last one usually
    contiguous, its data pointer as the descriptor's address); smem: the shared tile layout, swizzle in bytes
    ('Sw<3,4,3> o (128,64):(64,1)'); tile: the tiler ('M=128,K=64'). cluster: (x, y[, z]);
    multicast: 'x', 'y' or 'z' (the cluster dimension whose CTAs share the tile). store / reduce
    ('add', 'min', ...): the same boxes from shared to global memory. Raises Refused with every
    violated rule, ValueError when a text form does not parse.
    """
    c = [1, 1, 1] if cluster is None else _plan_cluster(cluster)
    return Plan(_tmakit.plan(gmem, smem, tile, c, multicast, arch, l2, oob, store, reduce))


def tensor_map(tensor: Any, *, box: Sequence[int], swizzle: Name = "NONE", l2: str = "none", oob: str = "none",
               arch: str = "sm_90") -> TensorMap:
    """The descriptor of a box of a tensor (any DLPack or CUDA Array Interface object), as planned: `box` in the tensor's
    own mode order (a row-major (M, K) tensor and box=(128, 64): 128 rows of 64 elements), the
    box stored row-major in a buffer with `swizzle`. Its address is the tensor's data pointer.
    For a uint8 CUDA tensor holding it, see tmakit.torch.tensor_map."""
    return plan_box(tensor, box=box, swizzle=swizzle, l2=l2, oob=oob, arch=arch).descriptor


def plan_box(tensor: Any, *, box: Sequence[int], swizzle: Name = "NONE", l2: str = "none", oob: str = "none",
             arch: str = "sm_90") -> Plan:
    """The plan behind tensor_map(): a row-major box of `tensor` in a buffer with `swizzle`."""
    return Plan(_tmakit.plan_box(tensor, list(box), str(swizzle), arch, l2, oob))


def check_against_plan(descriptor: Any, plan: Plan, *, armed_bytes: int | None = None,
                       copies: int | None = None, smem_base: int | None = None) -> PlanCheck:
    """A descriptor made elsewhere (CuTe DSL, Triton, cuda.core, a driver call) against `plan`:
    every field that differs and what it does to the copy, and the bytes one copy delivers against
    the plan's expect_tx. armed_bytes: what the kernel arms its barrier with per stage, when known;
    copies: copies of the descriptor that deliver into a receiving CTA per stage (default: the plan's
    instruction count); smem_base: the shared address the tile starts at, checked against the plan's
    alignment and swizzle (smem.base_align128, smem.base_align). A store or reduce plan
    (plan(..., store=True / reduce=OP)) takes no barrier counts."""
    if plan.direction != "load" and (armed_bytes is not None or copies is not None):
        raise _usage("armed_bytes" if armed_bytes is not None else "copies",
                     "a store or reduce plan completes by bulk groups and arms no mbarrier", "leave it out")
    base = None if smem_base is None else _address("smem_base", smem_base)
    return PlanCheck(_tmakit.check_against_plan(to_bytes(descriptor), plan._handle, armed_bytes or 0, copies or 0, base))


def smem_store(src: str, dst: str, *, base: int = 0, elements: bool = False, stmatrix: bool = True) -> StorePlan:
    """`tmakit smem-store`: the widest conflict-free store of a register fragment ('wgmma m64n128
    f32->bf16') into a shared layout ('kmajor sw128' or CuTe notation); Refused when none fits."""
    return StorePlan(_tmakit.smem_store(src, dst, base, elements, stmatrix))


def multicast(box: Any, *, cluster: Sequence[int], share: str, mode: str = "sliced",
              slice_dim: int | None = None) -> MulticastPlan:
    """One operand's tile, described by the descriptor of the WHOLE tile (`box`: a TensorMap or its
    bytes), shared by the CTAs of a cluster along `share` ('x', 'y', 'xy'): per CTA what it issues
    (mask, slice, offsets, bytes) and what its barrier expects. mode: 'sliced' (each sharer issues a
    slice, as `tmakit plan --cluster` and `tmakit cluster-stage` plan it) or 'leader_broadcast'."""
    c = _cluster(cluster)
    return MulticastPlan(_tmakit.multicast(to_bytes(box), c, share, mode, slice_dim))


def dsmem_copy(src: str, dst: str, *, dtype: str, threads: int = 128) -> DsmemPlan:
    """An SM-to-SM copy from a shared layout of this CTA to one of a peer (CuTe notation, swizzle in
    bytes): the path, its pieces and the bytes the receiving barrier must expect."""
    return DsmemPlan(_tmakit.dsmem_copy(src, dst, dtype, threads))


_STAGE_MULTICAST_KEYS = ("box", "share", "mode", "slice_dim", "mask")
_STAGE_DSMEM_KEYS = ("from", "to", "dtype", "src", "dst", "threads")


def _stage_copy(kind: str, i: int, copy: Any, keys: tuple[str, ...], required: tuple[str, ...]) -> Mapping[str, Any]:
    """One copy of cluster_stage: a mapping with the keys the CLI's SPEC takes, each at most once."""
    if not isinstance(copy, Mapping):
        raise TypeError(f"{kind}[{i}]: a dict with the keys {', '.join(keys)}, not {type(copy).__name__}")
    unknown = [k for k in copy if k not in keys]
    if unknown:
        raise _usage(kind, f"{kind}[{i}]: unknown key {unknown[0]!r}", f"give only {', '.join(keys)}")
    missing = [k for k in required if copy.get(k) is None]
    if missing:
        raise _usage(kind, f"{kind}[{i}]: missing {', '.join(missing)}", f"give {', '.join(required)}")
    return copy


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _cta_mask(where: str, value: Any) -> int:
    """One ctaMask: an int (bit r = CTA r), a list of CTA ranks, or text as the CLI's mask= reads it."""
    if isinstance(value, str):
        masks = _tmakit.kernel_masks(value)
        if len(masks) != 1 or masks[0][0] != -1:
            raise _usage("multicast", f"{where}: {value!r} is not one ctaMask", "give one mask per CTA")
        return masks[0][1]
    if _is_int(value):
        if not 0 <= value <= 0xFFFF:
            raise _usage("multicast", f"{where}: {value} is not a 16-bit ctaMask", "give 0..0xffff (bit r = CTA r)")
        return value
    if isinstance(value, (list, tuple)):
        bits = 0
        for r in value:
            if not _is_int(r):
                raise TypeError(f"{where}: CTA ranks are integers, not {type(r).__name__}")
            if not 0 <= r <= 15 or bits >> r & 1:
                raise _usage("multicast", f"{where}: CTA {r} is not a rank 0..15 listed once", "list each CTA once")
            bits |= 1 << r
        return bits
    raise TypeError(f"{where}: a ctaMask is an int, a list of CTA ranks or text, not {type(value).__name__}")


def _kernel_masks(i: int, value: Any) -> list[tuple[int, int]]:
    """multicast[i]["mask"] as (cta, mask) pairs, cta -1 for every issuing CTA: one mask, or a dict
    {cta: mask} (text: the CLI's "0b0101" or "0:0b0101,1:0b1010")."""
    where = f"multicast[{i}]: mask"
    if isinstance(value, str):
        return [tuple(m) for m in _tmakit.kernel_masks(value)]
    if not isinstance(value, Mapping):
        return [(-1, _cta_mask(where, value))]
    out = []
    for cta, m in value.items():
        if not _is_int(cta):
            raise TypeError(f"{where}: the keys are CTA ranks (integers), not {type(cta).__name__}")
        if not 0 <= cta <= 15:
            raise _usage("multicast", f"{where}: CTA {cta} is not a rank 0..15", "give the issuing CTA's rank")
        out.append((cta, _cta_mask(f"{where}[{cta}]", m)))
    return out


def _kernel_armed(armed: Mapping[int, int] | None) -> list[tuple[int, int]]:
    """armed={cta: bytes} as (cta, bytes) pairs."""
    if armed is None:
        return []
    if not isinstance(armed, Mapping):
        raise TypeError(f"armed: a dict {{cta: bytes}}, not {type(armed).__name__}")
    out = []
    for cta, n in armed.items():
        if not _is_int(cta) or not _is_int(n):
            raise TypeError("armed: CTA ranks and byte counts are integers")
        if not 0 <= cta < 2**32 or not 0 <= n < 2**64:
            raise _usage("armed", f"armed: {cta}: {n} is out of range", "give a CTA rank and an unsigned byte count")
        out.append((cta, n))
    return out


def cluster_stage(cluster: Sequence[int], *, multicast: Sequence[Mapping[str, Any]] = (),
                  dsmem: Sequence[Mapping[str, Any]] = (), cta_group: int = 1, arch: str = "sm_90",
                  armed: Mapping[int, int] | None = None) -> ClusterStage:
    """`tmakit cluster-stage`: every copy that lands in one pipeline stage of a cluster, added up per
    CTA: the bytes each CTA arms its full barrier with (TMA and DSMEM parts), the remote arrivals
    DSMEM stores add, the CTAs whose copies land in it and those it issues into. The copies are
    dicts with the keys of the CLI's SPECs:
      multicast: {"box": TensorMap or its bytes (the WHOLE tile), "share": "x" | "y" | "xy" ...,
                  "mode": "sliced" (default) | "leader_broadcast", "slice_dim": int,
                  "mask": the kernel's own ctaMask, checked against the plan's: one for every issuing
                  CTA (0b0101, [0, 2] or "0x5") or {cta: mask} per CTA}
      dsmem:     {"from": rank, "to": rank, "dtype": "bf16", "src": layout, "dst": layout,
                  "threads": 128}
    cta_group=2 (arch "sm_100" only) counts each CTA pair's TMA bytes on its even CTA's barrier;
    armed={cta: bytes} checks what the kernel arms each barrier with against the stage's sum.
    Refused (rule ids as the CLI's, every one at once) when a copy's own plan is, or when the sum
    is: a CTA past the mbarrier's transaction count (expect.tx_limit), a copy naming a CTA outside
    the cluster (mask.outside_cluster), a ctaMask past the cluster or not the plan's
    (multicast.mask_outside_cluster, multicast.mask_mismatch), armed bytes not the stage's
    (expect.armed_mismatch), cta_group=2 for another target or an odd cluster (cta_group.arch,
    cta_group.pair)."""
    c = _plan_cluster(cluster)
    if not _is_int(cta_group):
        raise TypeError(f"cta_group: 1 or 2, not {type(cta_group).__name__}")
    if cta_group not in (1, 2):
        raise _usage("cta_group", f"cta_group {cta_group}: expected 1 or 2", "give cta_group=1 or cta_group=2")
    mcs = []
    for i, m in enumerate(multicast):
        m = _stage_copy("multicast", i, m, _STAGE_MULTICAST_KEYS, ("box", "share"))
        slice_dim = m.get("slice_dim")
        if slice_dim is not None and (isinstance(slice_dim, bool) or not isinstance(slice_dim, int)):
            raise TypeError(f"multicast[{i}]: slice_dim is an integer, not {type(slice_dim).__name__}")
        if slice_dim is not None and not 0 <= slice_dim < 2**32:
            raise _usage("multicast", f"multicast[{i}]: slice_dim {slice_dim} is not a box dimension", "give 0..4")
        masks = _kernel_masks(i, m["mask"]) if "mask" in m else []
        mcs.append((to_bytes(m["box"]), m["share"], m["mode"] if "mode" in m else "sliced", slice_dim, masks))
    copies = []
    for i, d in enumerate(dsmem):
        d = _stage_copy("dsmem", i, d, _STAGE_DSMEM_KEYS, ("from", "to", "dtype", "src", "dst"))
        for k in ("from", "to", "threads"):
            v = d.get(k)
            if k in d and (isinstance(v, bool) or not isinstance(v, int)):
                raise TypeError(f"dsmem[{i}]: {k} is an integer, not {type(v).__name__}")
            if v is not None and not 0 <= v < 2**32:
                raise _usage("dsmem", f"dsmem[{i}]: {k} {v} is not an unsigned 32-bit integer", f"give {k} in 0..2^32 - 1")
        copies.append((d["src"], d["dst"], d["dtype"], d["threads"] if "threads" in d else 128, d["from"], d["to"]))
    return ClusterStage(_tmakit.cluster_stage(c, mcs, copies, cta_group, arch, _kernel_armed(armed)))

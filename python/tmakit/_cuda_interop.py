"""tmakit's TensorMap to and from the tensor-map types of NVIDIA's Python packages: cuda.core's
TensorMapDescriptor and cuda.bindings' driver.CUtensorMap. Neither package is needed to import
tmakit: each is imported when a function that needs it is called.

cuda.bindings.driver.CUtensorMap holds the 128 bytes as `opaque`, 16 unsigned 64-bit words in
memory order; the conversion is exact both ways and needs no GPU.

cuda.core.TensorMapDescriptor (cuda-core 0.7.0 and later) offers no way to read its 128 bytes or
to make one from bytes: it is made by StridedMemoryView.as_tensor_map(), which has the driver
encode the map (a CUDA context must be current), and cuda.core passes it to kernels by value.
to_cuda_core() therefore has cuda.core encode the map's own parameters (tiled maps: the one form
cuda.core's public API makes) and checks that the driver's bytes are tmakit's. from_cuda_core()
reads the bytes where cuda.core's C-level declaration of the type (cuda/core/_tensor_map.pxd,
shipped for Cython users) places them: the first member after the object header, at 64 bytes
from the object's start where cuda.core was compiled against CUDA 12 and 128 where against CUDA
13 (the alignment each cuda.h declares for CUtensorMap). The layout is checked on every object
(the three object members that follow the map must be where the declaration puts them) and a
descriptor whose layout is not that one is refused, never guessed at.
"""

from __future__ import annotations

import ctypes
import gc
import struct
import sys
from typing import Any

from ._records import TensorMap

_WORDS = struct.Struct("<16Q")  # CUtensorMap: 16 x cuuint64_t, little-endian (x86-64, aarch64)

# cuda/core/_tensor_map.pxd (cuda-core 0.7.0 .. 1.2.2):
#   cdef class TensorMapDescriptor:
#       cdef cydriver.CUtensorMap _tensor_map
#       cdef int _device_id
#       cdef intptr_t _context
#       cdef object _source_ref
#       cdef StridedMemoryView _view_ref
#       cdef object _repr_info
# After the 128-byte map: _device_id (4 bytes and 4 of padding), _context (8), then the three
# object pointers, 144 bytes past the map's start.
_MAP_OFFSETS = (64, 128)  # alignof(CUtensorMap): 64 in CUDA 12's cuda.h, 128 in CUDA 13's
_MEMBERS_AFTER_MAP = 144


def words_to_bytes(words: Any) -> bytes:
    """The 128 bytes of a CUtensorMap given as its 16 64-bit words (CUtensorMap.opaque)."""
    values = [int(w) for w in words]
    if len(values) != 16:
        raise ValueError(f"a CUtensorMap is 16 64-bit words, got {len(values)}")
    for v in values:
        if not 0 <= v < 1 << 64:
            raise ValueError(f"{v} is not an unsigned 64-bit word")
    return _WORDS.pack(*values)


def bytes_to_words(data: bytes) -> list[int]:
    """The 16 64-bit words (CUtensorMap.opaque) of 128 bytes."""
    if len(data) != 128:
        raise ValueError(f"a tensor map is 128 bytes, got {len(data)}")
    return list(_WORDS.unpack(data))


def is_cuda_core_descriptor(obj: Any) -> bool:
    t = type(obj)
    return t.__name__ == "TensorMapDescriptor" and t.__module__.startswith("cuda.core")


def is_cuda_bindings_map(obj: Any) -> bool:
    t = type(obj)
    return t.__name__ == "CUtensorMap" and t.__module__.startswith("cuda.bindings")


def to_cuda_bindings(descriptor: Any) -> Any:
    """A cuda.bindings.driver.CUtensorMap holding the descriptor's 128 bytes (anything
    tmakit.to_bytes takes), e.g. for cuda.bindings' cuLaunchKernel or cuTensorMapReplaceAddress."""
    from . import to_bytes

    from cuda.bindings import driver

    out = driver.CUtensorMap()
    out.opaque = bytes_to_words(to_bytes(descriptor))
    return out


def from_cuda_bindings(obj: Any) -> TensorMap:
    """The TensorMap of a cuda.bindings.driver.CUtensorMap (its `opaque` words)."""
    if not hasattr(obj, "opaque"):
        raise TypeError(f"a cuda.bindings.driver.CUtensorMap (with .opaque), not {type(obj).__name__}")
    return TensorMap(words_to_bytes(obj.opaque))


def _map_offset(desc: Any) -> int:
    """Where the 128 bytes of a cuda.core TensorMapDescriptor start inside the object, checked."""
    if sys.implementation.name != "cpython" or struct.calcsize("P") != 8:
        raise ValueError("reading a cuda.core TensorMapDescriptor needs 64-bit CPython")
    size = type(desc).__basicsize__
    members = [id(r) for r in gc.get_referents(desc) if r is not type(desc)]
    if len(members) != 3:
        raise ValueError(f"this cuda.core's TensorMapDescriptor holds {len(members)} objects, not the 3 of the "
                         "layout tmakit reads (cuda-core 0.7.0 .. 1.2.2)")
    words = (ctypes.c_uint64 * (size // 8)).from_address(id(desc))
    for off in _MAP_OFFSETS:
        slot = (off + _MEMBERS_AFTER_MAP) // 8
        if slot + 3 <= len(words) and sorted(words[slot:slot + 3]) == sorted(members):
            return off
    raise ValueError("this cuda.core's TensorMapDescriptor is not laid out as cuda-core 0.7.0 .. 1.2.2 declare it, "
                     "so its 128 bytes cannot be found; read them from a kernel instead (docs/python.md)")


def from_cuda_core(desc: Any) -> TensorMap:
    """The 128 bytes of a cuda.core TensorMapDescriptor (as StridedMemoryView.as_tensor_map made
    it) as a TensorMap. ValueError for a descriptor that holds no map, or whose layout is not the
    one cuda.core declares; TypeError for anything else."""
    if not is_cuda_core_descriptor(desc):
        raise TypeError(f"a cuda.core TensorMapDescriptor, not {type(desc).__name__}")
    data = ctypes.string_at(id(desc) + _map_offset(desc), 128)
    if data == bytes(128):
        raise ValueError("this TensorMapDescriptor holds no tensor map (all 128 bytes are zero): make it with "
                         "StridedMemoryView.as_tensor_map()")
    return TensorMap(data)


# CUtensorMapDataType names (tmakit's canonical ones are cuda.core's TensorMapDataType members)
# with the CUDA Array Interface typestr of an element of the same size.
_TYPESTR = {
    "UINT8": "|u1", "UINT16": "<u2", "UINT32": "<u4", "INT32": "<i4", "UINT64": "<u8", "INT64": "<i8",
    "FLOAT16": "<f2", "FLOAT32": "<f4", "FLOAT64": "<f8", "BFLOAT16": "<u2", "FLOAT32_FTZ": "<f4",
    "TFLOAT32": "<f4", "TFLOAT32_FTZ": "<f4",
}
# tmakit's canonical names -> the member names of cuda.core's enums.
_INTERLEAVE = {"NONE": "NONE", "16B": "INTERLEAVE_16B", "32B": "INTERLEAVE_32B"}
_SWIZZLE = {"NONE": "NONE", "32B": "SWIZZLE_32B", "64B": "SWIZZLE_64B", "128B": "SWIZZLE_128B"}


class _DeviceMemory:
    """The global tensor a map describes, as a CUDA Array Interface (v3) object: what cuda.core's
    StridedMemoryView reads. It keeps `owner` (the memory's owner, when given) alive."""

    def __init__(self, interface: dict[str, Any], owner: Any) -> None:
        self.__cuda_array_interface__ = interface
        self.owner = owner


def cuda_array_interface(m: TensorMap) -> dict[str, Any]:
    """The global tensor of a tiled map as a CUDA Array Interface (v3) dict: shape and byte
    strides outermost first, the typestr of an element of the map's size, the map's address."""
    p = m.decoded.params
    if p["dtype"] not in _TYPESTR:
        raise ValueError(f"dtype {p['dtype']}: cuda.core's TensorMapDataType has no such type")
    elem = int(_TYPESTR[p["dtype"]][2:])
    dims = list(p["dims"])
    strides = [elem] + list(p["strides"])
    return {"version": 3, "shape": tuple(reversed(dims)), "strides": tuple(reversed(strides)),
            "typestr": _TYPESTR[p["dtype"]], "data": (int(p["address"]), False), "stream": None}


def cuda_core_options(m: TensorMap) -> dict[str, Any]:
    """The keyword arguments of cuda.core's StridedMemoryView.as_tensor_map() that encode `m`, as
    names: box_dim and element_strides outermost first (cuda.core's order, the reverse of the
    map's), data_type a TensorMapDataType member name, interleave / swizzle / l2_promotion /
    oob_fill the member names of cuda.core's enums. ValueError for what cuda.core cannot make: an
    im2col map, a packed data type, a 128B_ATOM_* swizzle."""
    p = m.decoded.params
    if p["kind"] != "tiled":
        raise ValueError(f"a {p['kind']} map: cuda.core's public API makes tiled descriptors only")
    if p["dtype"] not in _TYPESTR:
        raise ValueError(f"dtype {p['dtype']}: cuda.core's TensorMapDataType has no such type")
    if p["swizzle"] not in _SWIZZLE:
        raise ValueError(f"swizzle {p['swizzle']}: cuda.core's TensorMapSwizzle has no such mode")
    if p["interleave"] not in _INTERLEAVE:
        raise ValueError(f"interleave {p['interleave']}: cuda.core's TensorMapInterleave has no such layout")
    elem_strides = list(reversed(p["elem_strides"]))
    return {
        "box_dim": tuple(reversed(p["box"])),
        "element_strides": None if all(e == 1 for e in elem_strides) else tuple(elem_strides),
        "data_type": p["dtype"],
        "interleave": _INTERLEAVE[p["interleave"]],
        "swizzle": _SWIZZLE[p["swizzle"]],
        "l2_promotion": p["l2"],
        "oob_fill": p["oob"],
    }


def _cuda_core_enums() -> dict[str, Any]:
    """cuda.core's tensor-map enums by option name (the package exports only some of them)."""
    try:
        import cuda.core as cc

        enums = {k: getattr(cc, k) for k in ("TensorMapDataType", "TensorMapInterleave", "TensorMapSwizzle",
                                             "TensorMapL2Promotion", "TensorMapOOBFill")}
    except AttributeError:
        import cuda.core._tensor_map as cc  # where cuda-core 0.7.0 .. 1.2.2 define them

        enums = {k: getattr(cc, k) for k in ("TensorMapDataType", "TensorMapInterleave", "TensorMapSwizzle",
                                             "TensorMapL2Promotion", "TensorMapOOBFill")}
    return {"data_type": enums["TensorMapDataType"], "interleave": enums["TensorMapInterleave"],
            "swizzle": enums["TensorMapSwizzle"], "l2_promotion": enums["TensorMapL2Promotion"],
            "oob_fill": enums["TensorMapOOBFill"]}


def _strided_memory_view() -> Any:
    try:
        from cuda.core.utils import StridedMemoryView
    except ImportError:
        from cuda.core import StridedMemoryView
    return StridedMemoryView


def to_cuda_core(descriptor: Any, *, owner: Any = None, check: bool = True) -> Any:
    """A cuda.core TensorMapDescriptor for a tiled map (anything tmakit.to_bytes takes), made
    through cuda.core's public API (StridedMemoryView.as_tensor_map on the map's global tensor,
    which has the driver encode it): pass it to cuda.core.launch as a kernel's
    `const __grid_constant__ CUtensorMap` parameter. Needs a GPU, a current CUDA context
    (cuda.core.Device().set_current()) and the map's address in device memory. owner: the object
    that owns that memory (a tensor), kept alive as long as the descriptor. check: read the
    driver's bytes back (from_cuda_core) and raise ValueError with tmakit.diff's text where they
    are not the map's. ValueError for a map cuda.core cannot make (see cuda_core_options)."""
    from . import diff, to_bytes

    m = descriptor if isinstance(descriptor, TensorMap) else TensorMap(to_bytes(descriptor))
    names = cuda_core_options(m)
    enums = _cuda_core_enums()
    options = {k: (getattr(enums[k], v) if k in enums else v) for k, v in names.items()}
    view = _strided_memory_view().from_cuda_array_interface(_DeviceMemory(cuda_array_interface(m), owner),
                                                           stream_ptr=-1)
    out = view.as_tensor_map(**options)
    if check:
        got = from_cuda_core(out)
        if got != m:
            raise ValueError("cuda.core encoded other bytes than the map's:\n" + diff(m, got).text)
    return out

"""Descriptors for torch tensors, in the tensor's own memory: `tensor_map(t, box=..., swizzle=...)`
gives the 128 bytes as a 128-byte-aligned uint8 tensor on t's device (CUDA: ready to pass to a
kernel, from Triton, CuTe DSL or raw CUDA, as a pointer to a CUtensorMap in global memory), as
CCCL's cuda::make_tma_descriptor does for DLPack tensors. The descriptor is tmakit's plan of the
box (tmakit.plan_box), or the one of a plan you pass.
"""

from __future__ import annotations

from typing import Any, Sequence

import torch as _torch

import tmakit as _tmakit


def place(descriptor: Any, device: Any) -> _torch.Tensor:
    """The 128 bytes of a descriptor (anything tmakit.to_bytes takes) as a uint8 tensor on `device`
    whose data pointer is a multiple of 128 (what a CUtensorMap in global memory needs)."""
    data = _tmakit.to_bytes(descriptor)
    raw = _torch.empty(256, dtype=_torch.uint8, device=device)
    offset = (-raw.data_ptr()) % 128
    out = raw[offset:offset + 128]
    out.copy_(_torch.frombuffer(bytearray(data), dtype=_torch.uint8))
    return out


def tensor_map(t: _torch.Tensor | None = None, *, box: Sequence[int] | None = None, swizzle: str = "NONE",
               plan: "_tmakit.Plan | None" = None, l2: str = "none", oob: str = "none", arch: str = "sm_90",
               device: Any = None) -> _torch.Tensor:
    """The descriptor of a box of `t` (box in t's own mode order, stored row-major in a buffer with
    `swizzle`), or of `plan`, as a 128-byte-aligned uint8 tensor on `device` (default: t's)."""
    if plan is None:
        if t is None or box is None:
            raise ValueError("tensor_map: give a tensor and box=..., or plan=...")
        plan = _tmakit.plan_box(t, box=box, swizzle=swizzle, l2=l2, oob=oob, arch=arch)
    if device is None:
        if t is None:
            raise ValueError("tensor_map: with plan= alone, say device=")
        device = t.device
    return place(plan.descriptor, device)

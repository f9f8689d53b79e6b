#!/usr/bin/env python3
"""The error of tmakit's attention forward and of PyTorch's SDPA backends against an fp32 reference.

bench/bench_attention.py compares tmakit's O with cuDNN's, two bf16 results; this measures each
against the same attention computed in fp32 from the same bf16 inputs (SDPA's math backend on the
inputs converted to fp32, TF32 off), so that a change of the kernel's arithmetic can be told from a
change in how closely it follows cuDNN's rounding. Per configuration and implementation:

    rms   ||O - O_fp32|| / ||O_fp32||                (Frobenius, over the whole output)
    max   max |O - O_fp32| / max |O_fp32|

Usage: attention_accuracy.py --lib A.so [--lib B.so ...] [--seqlens 512,4096] [--head-dims 64,128,256]
       [--causal both] [--tokens 16384] [--heads 16]

tmakit runs one CTA per tile with P through shared memory and with P in registers (both built for
every head dim); cuDNN and flash run where they accept the shape. Inputs: bench_attention.make_inputs,
the tensors bench_attention.py measures for the same configuration and seed. Needs PyTorch with CUDA and an
sm_90a GPU; nothing is timed.
"""
import argparse
import ctypes
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_attention import TmakitLib, int_list, make_inputs  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", action="append", required=True, help="libtmakit_attention_capi.so (repeatable)")
    ap.add_argument("--seqlens", type=int_list, default=[512, 4096])
    ap.add_argument("--head-dims", type=int_list, default=[64, 128, 256])
    ap.add_argument("--causal", choices=["both", "no", "yes"], default="both")
    ap.add_argument("--tokens", type=int, default=16384)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1234)
    a = ap.parse_args()

    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    F = torch.nn.functional
    libs = [TmakitLib(p) for p in a.lib]
    stream = torch.cuda.current_stream()
    sp = ctypes.c_void_p(stream.cuda_stream)
    print(f"# {torch.cuda.get_device_name(0)}, torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}")
    for i, p in enumerate(a.lib):
        print(f"# lib {i}: {p}")
    print(f"{'seqlen':>6} {'B':>3} {'hd':>4} {'causal':>6}  {'implementation':<22} {'rms':>9} {'max':>9}")
    causals = {"both": [False, True], "no": [False], "yes": [True]}[a.causal]
    for head_dim in a.head_dims:
        for causal in causals:
            for seqlen in a.seqlens:
                batch = max(1, a.tokens // seqlen)
                q, k, v = make_inputs(torch, a.seed, seqlen, batch, a.heads, head_dim, causal)
                qt, kt, vt = (t.transpose(1, 2) for t in (q, k, v))
                with sdpa_kernel(SDPBackend.MATH):
                    ref = F.scaled_dot_product_attention(qt.float(), kt.float(), vt.float(), is_causal=causal)
                ref = ref.transpose(1, 2).contiguous()
                ref_norm, ref_max = ref.norm().item(), ref.abs().max().item()
                results = []
                for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)):
                    try:
                        with sdpa_kernel(backend):
                            out = F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal).transpose(1, 2).float()
                        results.append((name, out))
                    except RuntimeError:
                        pass
                lse = torch.empty((batch, a.heads, seqlen), device="cuda", dtype=torch.float32)
                for i, lib in enumerate(libs):
                    for path, p_source in (("smem", 0), ("registers", 1)):
                        o = torch.empty_like(q)
                        h = lib.create(q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), lse.data_ptr(), batch,
                                       seqlen, a.heads, head_dim, causal, p_source, 0.0, grid=0)
                        lib.launch(h, sp)
                        torch.cuda.synchronize()
                        lib.destroy(h)
                        results.append((f"tmakit lib {i} {path}", o.float()))
                for name, out in results:
                    d = out - ref
                    print(f"{seqlen:>6} {batch:>3} {head_dim:>4} {'yes' if causal else 'no':>6}  {name:<22} "
                          f"{d.norm().item() / ref_norm:9.2e} {d.abs().max().item() / ref_max:9.2e}")
                del ref, results
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()

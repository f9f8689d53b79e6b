#!/usr/bin/env python3
"""DeepGEMM's block-scaled FP8 GEMM (deep_gemm.fp8_gemm_nt) on DeepGEMM's shapes, timed so that
bench_gemm's block-scaled rows (TMAKIT_GEMM_FP8=e4m3 TMAKIT_GEMM_BLOCK_SCALES=1) can be read beside
it from the same device call (docs/gemm.md). DeepGEMM is built on the GPU machine from a fetched
copy by scripts/deepgemm_fp8_gpu.sh; none of its code is part of this repository.

Inputs as DeepGEMM's own tests make them for Hopper (its SM90 recipe):
  A: [M, K] e4m3, fp32 scales per row and K block of 128        (per_token_cast_to_fp8, use_ue8m0=False)
  B: [N, K] e4m3, fp32 scales per 128 x 128 block               (per_block_cast_to_fp8, use_ue8m0=False)
  D: [M, N] bf16 = A B^T
A's scales are put in the layout the kernel reads once, before timing
(get_mn_major_tma_aligned_tensor, which fp8_gemm_nt would otherwise do in every call).

One line per shape:
  shape MxNxK  tflops_own X  tflops_events Y  err Z  diff W  us_own A  us_events B
    tflops_own     DeepGEMM's own timer (deep_gemm.testing.bench_kineto: kernel time from the
                   profiler, L2 flushed before every launch)
    tflops_events  CUDA events around back-to-back launches (no flush; launch gaps included)
    err            ||D - ref|| / ||ref||, ref the fp32 product of the bf16 inputs before quantization
    diff           DeepGEMM's calc_diff (its tests ask for < 1e-3)
"""
import argparse
import math
import os
import sys
import time
import traceback

DEFAULT_NK = [(2112, 7168), (24576, 1536), (32768, 512), (7168, 16384), (4096, 7168), (7168, 2048)]
DEFAULT_M = [64, 128, 4096]


def parse_shapes(s):
    shapes = []
    for item in s.split(','):
        item = item.strip()
        if not item:
            continue
        parts = item.lower().split('x')
        if len(parts) != 3:
            raise ValueError(f'bad shape {item!r}, expected MxNxK')
        shapes.append(tuple(int(p) for p in parts))
    return shapes


def log(msg=''):
    print(msg, flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--shapes', default=None,
                   help='comma-separated MxNxK list, e.g. 64x2112x7168,4096x7168x16384 (default: the 18 shapes)')
    p.add_argument('--no-kineto', action='store_true', help='skip the profiler-based (bench_kineto) timer')
    p.add_argument('--warmup-only', action='store_true',
                   help='only run each shape once (to JIT-compile / fill the kernel cache), no timing')
    p.add_argument('--event-iters', type=int, default=20, help='launches between the CUDA events (default 20)')
    p.add_argument('--kineto-tests', type=int, default=30, help='num_tests for bench_kineto (default 30)')
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--print-shapes', action='store_true', help='print the selected shapes (MxNxK, one per line) and exit')
    args = p.parse_args()

    shapes = parse_shapes(args.shapes) if args.shapes else [(m, n, k) for m in DEFAULT_M for (n, k) in DEFAULT_NK]
    if args.print_shapes:
        for (m, n, k) in shapes:
            print(f'{m}x{n}x{k}')
        return 0
    verbose = not args.warmup_only

    import torch
    if verbose:
        log(f'python {sys.version.split()[0]}  torch {torch.__version__}  torch.version.cuda {torch.version.cuda}')
    if not torch.cuda.is_available():
        log('FATAL: torch.cuda.is_available() is False')
        return 2
    if verbose:
        log(f'device: {torch.cuda.get_device_name()}  capability {torch.cuda.get_device_capability()}')

    import deep_gemm
    from deep_gemm.testing import bench_kineto, calc_diff
    from deep_gemm.utils import per_token_cast_to_fp8, per_block_cast_to_fp8
    if verbose:
        log(f'deep_gemm {getattr(deep_gemm, "__version__", "?")} from {os.path.dirname(deep_gemm.__file__)}')
    if verbose:
        try:
            log(f'deep_gemm num SMs: {deep_gemm.get_num_sms()}')
        except Exception as e:
            log(f'deep_gemm.get_num_sms() failed: {type(e).__name__}: {e}')
    for name in ('DG_JIT_CACHE_DIR', 'DG_JIT_NVCC_COMPILER', 'DG_PRINT_CONFIGS', 'DG_JIT_USE_NVRTC', 'CUDA_HOME'):
        if verbose:
            log(f'  {name}={os.environ.get(name, "")}')
    if not hasattr(deep_gemm, 'fp8_gemm_nt'):
        log('FATAL: deep_gemm has no fp8_gemm_nt (the try-import of the FP8 kernels failed in deep_gemm/__init__.py)')
        return 2
    get_tma = getattr(deep_gemm, 'get_mn_major_tma_aligned_tensor', None)

    torch.manual_seed(args.seed)
    torch.cuda.manual_seed(args.seed)

    num_failed = 0
    results = []
    for (m, n, k) in shapes:
        tag = f'{m}x{n}x{k}'
        t0 = time.time()
        try:
            a_bf16 = torch.randn((m, k), device='cuda', dtype=torch.bfloat16)
            b_bf16 = torch.randn((n, k), device='cuda', dtype=torch.bfloat16)
            d = torch.empty((m, n), device='cuda', dtype=torch.bfloat16)
            # SM90 legacy recipe, exactly as DeepGEMM's generators.generate_normal (use_ue8m0=False)
            a = per_token_cast_to_fp8(a_bf16, use_ue8m0=False)   # (e4m3 [m,k], fp32 [m, k/128])
            b = per_block_cast_to_fp8(b_bf16, use_ue8m0=False)   # (e4m3 [n,k], fp32 [n/128, k/128])
            sfa = get_tma(a[1]) if get_tma is not None else a[1]
            a = (a[0], sfa)

            def fn():
                deep_gemm.fp8_gemm_nt(a, b, d, disable_ue8m0_cast=True)

            # First call: JIT compile (if not cached) + DG_PRINT_CONFIGS output
            sys.stdout.flush()
            fn()
            torch.cuda.synchronize()
            sys.stdout.flush()
            t_first = time.time() - t0
            if args.warmup_only:
                log(f'warm {tag}: ok ({t_first:.1f} s incl. JIT)')
                del a, b, d, a_bf16, b_bf16
                torch.cuda.empty_cache()
                continue

            # Correctness
            ref = a_bf16.float() @ b_bf16.float().t()
            out = d.float()
            err = ((out - ref).norm() / ref.norm()).item()
            diff = float(calc_diff(d, ref.to(torch.bfloat16)))
            finite = bool(torch.isfinite(out).all().item())
            del ref, out

            # DeepGEMM's own timer
            t_own = float('nan')
            if not args.no_kineto:
                try:
                    t_own = bench_kineto(fn, 'gemm_', num_tests=args.kineto_tests, suppress_kineto_output=True)
                    if not t_own or t_own <= 0:
                        log(f'  warning {tag}: bench_kineto found no kernel matching "gemm_"')
                        t_own = float('nan')
                except Exception as e:  # keep going with events timing
                    log(f'  warning {tag}: bench_kineto failed: {type(e).__name__}: {e}')
                    t_own = float('nan')

            # CUDA events around N back-to-back launches
            for _ in range(5):
                fn()
            torch.cuda.synchronize()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(args.event_iters):
                fn()
            end.record()
            torch.cuda.synchronize()
            t_ev = start.elapsed_time(end) / 1e3 / args.event_iters

            flops = 2.0 * m * n * k
            tf_own = flops / t_own / 1e12 if t_own == t_own else float('nan')
            tf_ev = flops / t_ev / 1e12
            status = '' if finite else '  NONFINITE'
            if diff >= 1e-3 or err > 0.05:
                status += '  CHECK_FAILED'
            log(f'shape {tag}  tflops_own {tf_own:.1f}  tflops_events {tf_ev:.1f}  err {err:.3e}  diff {diff:.3e}'
                f'  us_own {t_own * 1e6:.1f}  us_events {t_ev * 1e6:.1f}{status}')
            results.append((tag, tf_own, tf_ev, err))
            if status:
                num_failed += 1
            del a, b, d, a_bf16, b_bf16
            torch.cuda.empty_cache()
        except Exception as e:
            num_failed += 1
            log(f'shape {tag}  ERROR {type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ""}')
            traceback.print_exc(file=sys.stdout)
            sys.stdout.flush()
            try:
                torch.cuda.synchronize()
                torch.cuda.empty_cache()
            except Exception as e2:
                log(f'  CUDA context unusable after error ({type(e2).__name__}: {e2}); stopping')
                break

    if not args.warmup_only and results:
        geo = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float('nan')
        own = [r[1] for r in results if r[1] == r[1] and r[1] > 0]
        ev = [r[2] for r in results if r[2] > 0]
        log(f'summary: {len(results)} shapes ok, {num_failed} failed; geomean tflops_own {geo(own):.1f}  '
            f'tflops_events {geo(ev):.1f}')
    return 1 if num_failed else 0


if __name__ == '__main__':
    sys.exit(main())

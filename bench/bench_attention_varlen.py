#!/usr/bin/env python3
"""tmakit's attention forward on packed sequences of different lengths (AttentionArgs::cu_seqlens)
against PyTorch's variable-length attention, side by side in one process, on the same packed tensors.

The batch: --sequences sequences whose lengths are drawn log-uniformly from --min-len..--max-len
(seeded: every run and every tool sees the same lengths), packed into bf16 Q, K, V of shape
(total, heads, head_dim) with cumulative offsets cu_seqlens (int32, batch + 1 entries), as
FlashAttention's varlen API and PyTorch's jagged nested tensors hold them. For each head dim and mask
it times, on one CUDA stream with CUDA events (bench_attention.py's timing: the median over
--samples bursts after warm-up, each burst queued behind a GPU sleep):
  flash      torch.ops.aten._flash_attention_forward with cum_seq_q / cum_seq_k (the packed form itself)
  efficient  torch.ops.aten._efficient_attention_forward with cu_seqlens_q / cu_seqlens_k
  cudnn      scaled_dot_product_attention on jagged nested tensors over the same values and offsets,
             with the cuDNN backend forced (recorded as refused where PyTorch does not take it)
  tmakit     the launcher's choice (PSource::automatic, GridForm::automatic), and each P path in each
             grid form
TFLOP/s = sum over sequences of 4 L^2 D H (half for causal) / time. Each tmakit output is compared once
with flash's (max |O - O_flash| / max |O_flash|, and the LSE); a path whose output is off does not count.
"ratio" is tmakit's fastest correct path over the fastest PyTorch backend, "ratio_automatic" the
launcher's choice over the same.

  python3 bench/bench_attention_varlen.py --lib build/bench/libtmakit_attention_capi.so [--quick]
  python3 bench/bench_attention_varlen.py --list      # the lengths, no GPU or torch needed
"""
import argparse
import ctypes
import math
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_attention as ba  # noqa: E402 (the timing, the clock and the C ABI of the fixed-length benchmark)

CSV_FIELDS = ["sequences", "total", "longest", "heads", "head_dim", "causal", "gflop",
              "flash_tflops", "efficient_tflops", "cudnn_tflops", "tmakit_auto_tflops", "tmakit_smem_tflops",
              "tmakit_reg_tflops", "tmakit_smem_pers_tflops", "tmakit_reg_pers_tflops", "tmakit_best_tflops",
              "tmakit_best_path", "best_torch", "ratio", "ratio_automatic", "automatic_path", "rel_diff_auto",
              "lse_err_auto", "check", "sm_mhz_before", "sm_mhz_during_min", "sm_mhz_during_max", "note"]
# tmakit's paths: (key, p_source, grid): p_source 0 smem, 1 registers, 2 automatic; grid 0 one CTA per tile,
# 1 persistent, 2 automatic
TMAKIT_PATHS = [("auto", 2, 2), ("smem", 0, 0), ("reg", 1, 0), ("smem_pers", 0, 1), ("reg_pers", 1, 1)]


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", default=os.environ.get("TMAKIT_ATTENTION_LIB", "build/bench/libtmakit_attention_capi.so"))
    p.add_argument("--quick", action="store_true", help="10 samples")
    p.add_argument("--sequences", type=int, default=64)
    p.add_argument("--min-len", type=int, default=128)
    p.add_argument("--max-len", type=int, default=8192)
    p.add_argument("--head-dims", type=ba.int_list, default=list(ba.BUILT_HEAD_DIMS))
    p.add_argument("--causal", choices=["both", "no", "yes"], default="both")
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--samples", type=int, default=None, help="timed bursts per measurement (default 20; --quick 10)")
    p.add_argument("--burst-ms", type=float, default=3.0)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--tolerance", type=float, default=2e-2, help="largest max |O - O_flash| / max |O_flash|")
    p.add_argument("--lse-tolerance", type=float, default=1e-2, help="largest |LSE - LSE_flash|")
    p.add_argument("--csv", default=None, help="CSV file (default $OUT/attention_varlen_bench.csv when OUT is set)")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--list", action="store_true", help="print the lengths and exit (no GPU needed)")
    a = p.parse_args(argv)
    if a.samples is None:
        a.samples = 10 if a.quick else 20
    if a.sequences < 1 or a.min_len < 1 or a.max_len < a.min_len or a.heads < 1 or a.samples < 1:
        p.error("--sequences, --min-len, --heads, --samples >= 1 and --max-len >= --min-len")
    if a.csv is None and os.environ.get("OUT"):
        a.csv = os.path.join(os.environ["OUT"], "attention_varlen_bench.csv")
    return a


def lengths_of(a):
    """The batch's lengths: log-uniform in [min_len, max_len], from a generator seeded by --seed."""
    r = random.Random(a.seed)
    lo, hi = math.log(a.min_len), math.log(a.max_len)
    return [int(round(math.exp(lo + (hi - lo) * r.random()))) for _ in range(a.sequences)]


def flops(lengths, heads, head_dim, causal):
    f = sum(4.0 * n * n * head_dim * heads for n in lengths)
    return f / 2 if causal else f


def run_config(bench, lib, a, lengths, head_dim, causal):
    torch = bench.torch
    F = torch.nn.functional
    from torch.nn.attention import SDPBackend, sdpa_kernel

    H = a.heads
    total, longest = sum(lengths), max(lengths)
    row = {f: None for f in CSV_FIELDS}
    row.update(sequences=len(lengths), total=total, longest=longest, heads=H, head_dim=head_dim, causal=int(causal),
               gflop=flops(lengths, H, head_dim, causal) / 1e9)
    notes, clocks = [], []
    row["sm_mhz_before"] = bench.clock.sm_mhz()
    g = torch.Generator(device="cuda").manual_seed(a.seed + head_dim * 10 + int(causal))
    q, k, v = (torch.randn((total, H, head_dim), device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(3))
    offsets = [0]
    for n in lengths:
        offsets.append(offsets[-1] + n)
    cu = torch.tensor(offsets, device="cuda", dtype=torch.int32)
    scale = 1.0 / math.sqrt(head_dim)
    fl = flops(lengths, H, head_dim, causal)

    def tflops(ms):
        return fl / (ms * 1e-3) / 1e12

    # PyTorch's variable-length paths.
    def flash():
        return torch.ops.aten._flash_attention_forward(q, k, v, cu, cu, longest, longest, 0.0, causal, False,
                                                       scale=scale)

    def efficient():
        return torch.ops.aten._efficient_attention_forward(q[None], k[None], v[None], None, cu, cu, longest, longest,
                                                           0.0, 1 if causal else 0, True, scale=scale)

    nq = nk = nv = None
    try:
        nq, nk, nv = (torch.nested.nested_tensor_from_jagged(t, offsets=cu.long()).transpose(1, 2) for t in (q, k, v))
    except Exception as e:  # noqa: BLE001 (a PyTorch without jagged tensors: recorded, not fatal)
        notes.append(f"cudnn: no jagged nested tensors ({type(e).__name__})")

    def cudnn():
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            return F.scaled_dot_product_attention(nq, nk, nv, is_causal=causal, scale=scale)

    reference = None
    best_torch = None
    for key, fn in (("flash", flash), ("efficient", efficient), ("cudnn", cudnn)):
        if key == "cudnn" and nq is None:
            continue
        try:
            out = fn()
            if key == "flash":
                reference = out
            ms, _, _ = bench.time_fn(fn, clocks)
            row[f"{key}_tflops"] = tflops(ms)
            if best_torch is None or row[f"{key}_tflops"] > row[f"{best_torch}_tflops"]:
                best_torch = key
        except Exception as e:  # noqa: BLE001 (a backend that refuses the problem is recorded as refused)
            notes.append(f"{key} refused: {type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}")
    row["best_torch"] = best_torch

    o = torch.empty_like(q)
    lse = torch.empty((H, total), device="cuda", dtype=torch.float32)
    best, checks = None, []
    for key, p_source, grid in TMAKIT_PATHS:
        if grid == 1 and head_dim not in ba.PERSISTENT_HEAD_DIMS:
            continue
        err = ctypes.create_string_buffer(4096)
        h = lib.lib.tmakit_attention_create_packed(q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(),
                                                   lse.data_ptr(), cu.data_ptr(), len(lengths), 0, H, head_dim,
                                                   int(causal), p_source, 0.0, grid, 0, err, len(err))
        if not h:
            notes.append(f"tmakit {key} refused: {err.value.decode(errors='replace').splitlines()[0]}")
            continue
        try:
            def run():
                lib.launch(h, bench.stream_ptr, 1)
            o.fill_(float("nan"))
            run()
            torch.cuda.synchronize()
            ok = True
            if reference is not None:
                ref_o, ref_lse = reference[0], reference[1]
                rel = ((o.float() - ref_o.float()).abs().max() / ref_o.float().abs().max()).item()
                lse_err = (lse - ref_lse.float()).abs().max().item() if ref_lse.shape == lse.shape else float("nan")
                ok = rel <= a.tolerance and (math.isnan(lse_err) or lse_err <= a.lse_tolerance)
                if key == "auto":
                    row.update(rel_diff_auto=rel, lse_err_auto=lse_err)
                checks.append("ok" if ok else "WRONG")
                if not ok:
                    notes.append(f"tmakit {key}: rel {rel:.3g}, lse {lse_err:.3g}")
            ms, _, _ = bench.time_fn(run, clocks)
            t = tflops(ms)
            row[f"tmakit_{key}_tflops"] = t
            if key == "auto":
                cfg, grd = lib.config(h), lib.grid(h)
                row["automatic_path"] = ("smem" if cfg["p_source"] == 0 else "reg") + ("_pers" if grd["persistent"] else "")
            elif ok and (best is None or t > best[1]):
                best = (key, t)
        finally:
            lib.destroy(h)
    if best:
        row.update(tmakit_best_path=best[0], tmakit_best_tflops=best[1])
    if best_torch:
        ref_t = row[f"{best_torch}_tflops"]
        if best:
            row["ratio"] = max(best[1], row["tmakit_auto_tflops"] or 0.0) / ref_t
        if row["tmakit_auto_tflops"]:
            row["ratio_automatic"] = row["tmakit_auto_tflops"] / ref_t
    row["check"] = "WRONG" if "WRONG" in checks else ("ok" if checks else "unchecked")
    if clocks:
        row.update(sm_mhz_during_min=min(clocks), sm_mhz_during_max=max(clocks))
    row["note"] = "; ".join(notes)
    return row


def table_row(r):
    f = ba.fmt
    return (f"d {r['head_dim']:>3} causal {r['causal']}  flash {f(r['flash_tflops']):>6}  efficient "
            f"{f(r['efficient_tflops']):>6}  cudnn {f(r['cudnn_tflops']):>6}  tmakit auto {f(r['tmakit_auto_tflops']):>6} "
            f"({r['automatic_path'] or '-'})  best {f(r['tmakit_best_tflops']):>6} ({r['tmakit_best_path'] or '-'})  "
            f"ratio {f(r['ratio'], '.3f')}  auto {f(r['ratio_automatic'], '.3f')}  {r['check']}")


def csv_line(r):
    return ",".join("" if r[k] is None else (f"{r[k]:.6g}" if isinstance(r[k], float) else str(r[k]).replace(",", ";"))
                    for k in CSV_FIELDS)


def main(argv=None):
    a = parse_args(argv)
    lengths = lengths_of(a)
    if a.list:
        print(f"{len(lengths)} sequences, total {sum(lengths)} rows, longest {max(lengths)}: {lengths}")
        return 0
    import torch  # noqa: E402

    if not torch.cuda.is_available():
        print("bench_attention_varlen: no CUDA device visible to PyTorch")
        return 1
    lib = ba.TmakitLib(a.lib)
    a.tokens, a.backends = 0, []  # Bench reads a few fields of the fixed-length benchmark's arguments
    bench = ba.Bench(a, torch)
    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S %Z')}  {ba.driver_line()}")
    print(f"# torch {torch.__version__} (CUDA {torch.version.cuda}, cuDNN {torch.backends.cudnn.version()}), "
          f"device {torch.cuda.get_device_name(0)}, {bench.props.multi_processor_count} SMs")
    print(f"# tmakit: {lib.path}; {bench.clock.describe()}")
    print(f"# {len(lengths)} sequences, lengths {a.min_len}..{a.max_len} log-uniform (seed {a.seed}): total "
          f"{sum(lengths)} rows, longest {max(lengths)}; {a.heads} heads, bf16 (total, H, D); median of {a.samples} "
          f"bursts of >= {a.burst_ms} ms")
    print(f"# lengths: {lengths}")
    bench.warm_up()
    causals = {"both": [False, True], "no": [False], "yes": [True]}[a.causal]
    rows = []
    with torch.cuda.stream(bench.stream):
        for d in a.head_dims:
            for c in causals:
                try:
                    r = run_config(bench, lib, a, lengths, d, c)
                except Exception as e:  # noqa: BLE001 (one configuration's failure is reported; the rest run)
                    r = {f: None for f in CSV_FIELDS}
                    r.update(head_dim=d, causal=int(c), check="ERROR", note=f"{type(e).__name__}: {str(e)[:200]}")
                rows.append(r)
                print(table_row(r), flush=True)
                if r["note"]:
                    print(f"       note: {r['note']}", flush=True)
    print()
    print(",".join(CSV_FIELDS))
    for r in rows:
        print(csv_line(r))
    if a.csv:
        os.makedirs(os.path.dirname(os.path.abspath(a.csv)), exist_ok=True)
        with open(a.csv, "w") as f:
            f.write(",".join(CSV_FIELDS) + "\n" + "\n".join(csv_line(r) for r in rows) + "\n")
    return 1 if any(r["check"] in ("WRONG", "ERROR") for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())

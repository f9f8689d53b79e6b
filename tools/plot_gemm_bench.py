#!/usr/bin/env python3
"""Plot bench_gemm's CSV block (bench/bench_gemm.cu) as an SVG: TFLOP/s of cuBLASLt and of tmakit's
GEMM per shape, side by side, with the ratio over each pair; and, where the benchmark timed a third
GEMM (TMAKIT_BENCH_REFERENCE: its CSV column reference_tflops, 0 where it did not take the shape),
that one beside them.
Usage: python3 tools/plot_gemm_bench.py BENCH_OUTPUT.txt OUT.svg "device, date" ["reference name"]
(needs matplotlib). BENCH_OUTPUT.txt: bench_gemm's output (the first CSV block found is read)."""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from bench_csv import read_csv_block  # noqa: E402 (tools/bench_csv.py)

src, dst = sys.argv[1], sys.argv[2]
title = sys.argv[3] if len(sys.argv) > 3 else ""
ref_name = sys.argv[4] if len(sys.argv) > 4 else "reference GEMM"
rows = read_csv_block(src, "shape,m,n,k,")
names = [r["shape"] for r in rows]
lt = [float(r["cublas_tflops"]) for r in rows]
tm = [float(r["tmakit_tflops"]) for r in rows]
ref = [float(r.get("reference_tflops") or 0) for r in rows]
x = range(len(rows))
fig, ax = plt.subplots(figsize=(11, 4.5))
w = 0.27 if any(ref) else 0.4
ax.bar([i - w / 2 for i in x], lt, w, label="cuBLASLt (best of its heuristic candidates)")
ax.bar([i + w / 2 for i in x], tm, w, label="tmakit kernels/gemm_sm90")
if any(ref):
    ax.bar([i + 1.5 * w for i in x if ref[i] > 0], [v for v in ref if v > 0], w, label=ref_name)
for i in x:
    ax.annotate(f"{tm[i] / lt[i]:.2f}x", (i, max(lt[i], tm[i]) + 10), ha="center", fontsize=8)
ax.set_xticks(list(x))
ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
ax.set_ylabel("TFLOP/s (2MNK / time, bf16 in, fp32 accumulate)")
ax.set_title(f"GEMM, side by side in one process: {title}")
ax.grid(True, axis="y", alpha=0.3)
ax.set_ylim(0, 1.22 * max(lt + tm))
ax.legend(fontsize=8, loc="upper center", ncol=3)
fig.tight_layout()
fig.savefig(dst, metadata={"Date": None})

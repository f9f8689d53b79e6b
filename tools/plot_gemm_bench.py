#!/usr/bin/env python3
"""Plot bench_gemm's CSV block (bench/bench_gemm.cu) as an SVG: TFLOP/s of cuBLASLt and of tmakit's
GEMM per shape, side by side, with the ratio over each pair.
Usage: python3 tools/plot_gemm_bench.py BENCH_OUTPUT.txt OUT.svg "device, date"   (needs matplotlib)
BENCH_OUTPUT.txt: bench_gemm's output (the CSV block after the table is read; the first one found)."""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from bench_csv import read_csv_block  # noqa: E402 (tools/bench_csv.py)

src, dst = sys.argv[1], sys.argv[2]
title = sys.argv[3] if len(sys.argv) > 3 else ""
rows = read_csv_block(src, "shape,m,n,k,")
names = [r["shape"] for r in rows]
lt = [float(r["cublas_tflops"]) for r in rows]
tm = [float(r["tmakit_tflops"]) for r in rows]
x = range(len(rows))
fig, ax = plt.subplots(figsize=(11, 4.5))
w = 0.4
ax.bar([i - w / 2 for i in x], lt, w, label="cuBLASLt (best of its heuristic candidates)")
ax.bar([i + w / 2 for i in x], tm, w, label="tmakit kernels/gemm_sm90")
for i in x:
    ax.annotate(f"{tm[i] / lt[i]:.2f}x", (i, max(lt[i], tm[i]) + 10), ha="center", fontsize=8)
ax.set_xticks(list(x))
ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
ax.set_ylabel("TFLOP/s (2MNK / time, bf16 in, fp32 accumulate)")
ax.set_title(f"GEMM, side by side in one process: {title}")
ax.grid(True, axis="y", alpha=0.3)
ax.set_ylim(0, 1.22 * max(lt + tm))
ax.legend(fontsize=8, loc="upper center", ncol=2)
fig.tight_layout()
fig.savefig(dst, metadata={"Date": None})

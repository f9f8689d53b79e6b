#!/usr/bin/env python3
"""Plot rounds of bench_gemm (bench/bench_gemm.cu) for two or more builds as an SVG: per shape, the
median of tmakit / cuBLASLt over the rounds with the smallest and largest as a bar, one marker per
build, and the line at 1.00. Each round is one bench_gemm output; the builds' rounds were run
alternating in one process sequence, so that they met the same clocks.
Usage: python3 tools/plot_gemm_rounds.py OUT.svg "title" LABEL=GLOB [LABEL=GLOB ...]
(needs matplotlib). Example: base="raw/x/bench_gemm_base_*.txt" new="raw/x/bench_gemm_new_*.txt"."""
import glob
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from bench_csv import read_csv_block  # noqa: E402 (tools/bench_csv.py)
from ratio_plot import finish_ratio_plot  # noqa: E402 (tools/ratio_plot.py)

dst, title = sys.argv[1], sys.argv[2]
builds = [arg.split("=", 1) for arg in sys.argv[3:]]
shapes, ratios = [], []
for _, pattern in builds:
    per_shape = {}
    for path in sorted(glob.glob(pattern)):
        for r in read_csv_block(path, "shape,m,n,k,"):
            per_shape.setdefault(r["shape"], []).append(float(r["ratio"]))
            if r["shape"] not in shapes:
                shapes.append(r["shape"])
    ratios.append(per_shape)
fig, ax = plt.subplots(figsize=(11, 4.5))
width = 0.8 / len(builds)
for b, ((label, _), per_shape) in enumerate(zip(builds, ratios)):
    xs = [i - 0.4 + width * (b + 0.5) for i in range(len(shapes))]
    med = [statistics.median(per_shape[s]) for s in shapes]
    lo = [m - min(per_shape[s]) for m, s in zip(med, shapes)]
    hi = [max(per_shape[s]) - m for m, s in zip(med, shapes)]
    n = len(per_shape[shapes[0]])
    ax.errorbar(xs, med, yerr=[lo, hi], fmt="o", capsize=3, label=f"{label} (median, min-max of {n} rounds)")
finish_ratio_plot(fig, ax, shapes, "tmakit / cuBLASLt (TFLOP/s)", title, dst, "lower left")

#!/usr/bin/env python3
"""Plot the block-scaled FP8 GEMM against DeepGEMM as an SVG: per shape of DeepGEMM's set, tmakit's
TFLOP/s (the median over the rounds of a section) over DeepGEMM's (its own timer), one marker per
section, and the line at 1.00.

tmakit's numbers come from a log of bench_gemm runs (`TMAKIT_GEMM_FP8=e4m3 TMAKIT_GEMM_BLOCK_SCALES=1
bench_gemm ...`, table rows: shape, cuBLASLt TFLOP/s, tmakit TFLOP/s, ...) in which each run follows a
header line "-- round R LABEL" or "-- LABEL"; DeepGEMM's from its harness's lines "shape MxNxK  tflops_own X ...".
Usage: python3 tools/plot_fp8_vs_deepgemm.py OUT.svg "title" DEEPGEMM.txt NAME=LOG:LABEL [NAME=LOG:LABEL ...]
(needs matplotlib): the rows of LOG under headers whose label contains LABEL (NAME holds no "=", LOG no ":").
Example: automatic=2336/bench.txt:auto "128-row tiles"=2336/bench.txt:"tile_m 128"."""
import re
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from ratio_plot import finish_ratio_plot  # noqa: E402 (tools/ratio_plot.py)

ROW = re.compile(r"^(\d+x\d+x\d+)\s+([\d.]+)\s+([\d.]+)\s")
HEADER = re.compile(r"^-- (?:round \d+ )?(.*)$")
REFERENCE = re.compile(r"^shape (\d+x\d+x\d+)\s+tflops_own ([\d.]+)")


def deepgemm(path):
    out = {}
    with open(path) as f:
        for line in f:
            m = REFERENCE.match(line)
            if m:
                out[m.group(1)] = float(m.group(2))
    return out


def tmakit(path, label):
    """shape -> tmakit TFLOP/s of every run under a header whose label contains `label`."""
    out, taken = {}, False
    with open(path) as f:
        for line in f:
            h = HEADER.match(line)
            if h:
                taken = label in h.group(1)
                continue
            m = ROW.match(line)
            if taken and m:
                out.setdefault(m.group(1), []).append(float(m.group(3)))
    return out


dst, title, ref_path = sys.argv[1], sys.argv[2], sys.argv[3]
ref = deepgemm(ref_path)
shapes = list(ref)
series = []
for arg in sys.argv[4:]:
    name, spec = arg.split("=", 1)
    log, label = spec.split(":", 1)
    series.append((name, tmakit(log, label)))
fig, ax = plt.subplots(figsize=(11, 4.5))
width = 0.8 / max(1, len(series))
for k, (name, runs) in enumerate(series):
    xs, ys = [], []
    for i, s in enumerate(shapes):
        if s in runs:
            xs.append(i - 0.4 + width * (k + 0.5))
            ys.append(statistics.median(runs[s]) / ref[s])
    ax.plot(xs, ys, "o", label=name)
finish_ratio_plot(fig, ax, shapes, "tmakit / DeepGEMM (TFLOP/s)", title, dst, "upper right")

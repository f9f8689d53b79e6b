#!/usr/bin/env python3
"""Plot bench_allgather_gemm's CSV files (bench/bench_allgather_gemm.cu) as an SVG: per shape and
GPU count, the time of each way (tmakit's GEMM alone, cuBLASLt alone, NCCL all-gather + either,
fused at each puller count) relative to tmakit's GEMM alone, with the goal (1.10x) drawn.
Usage: python3 tools/plot_allgather_gemm_bench.py OUT.svg "device, date" CSV [CSV...]   (needs matplotlib)
Without matplotlib, or with --table, prints the docs' table (Markdown) instead."""
import csv
import sys
from collections import OrderedDict


def read(paths):
    rows = []
    for p in paths:
        with open(p) as f:
            rows += list(csv.DictReader(f))
    return rows


def label(r):
    return r["impl"] + (f" P={r['pullers']}" if r["impl"] == "fused" else "")


def table(rows):
    impls = list(OrderedDict.fromkeys(label(r) for r in rows))
    print("| M x N x K | GPUs | " + " | ".join(impls) + " | best fused / gemm |")
    print("| --- | ---: | " + " | ".join("---:" for _ in impls) + " | ---: |")
    keys = list(OrderedDict.fromkeys((r["m"], r["n"], r["k"], r["gpus"]) for r in rows))
    for m, n, k, g in keys:
        sel = {label(r): r for r in rows if (r["m"], r["n"], r["k"], r["gpus"]) == (m, n, k, g)}
        cells = [f"{float(sel[i]['median_us']):.0f}" if i in sel else "" for i in impls]
        fused = [float(r["ratio_to_gemm"]) for lbl, r in sel.items() if lbl.startswith("fused")]
        best = f"{min(fused):.3f}x" if fused else ""
        print(f"| {m} x {n} x {k} | {g} | " + " | ".join(cells) + f" | {best} |")


def plot(rows, dst, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    impls = list(OrderedDict.fromkeys(label(r) for r in rows))
    keys = list(OrderedDict.fromkeys((r["m"], r["n"], r["k"], r["gpus"]) for r in rows))
    fig, ax = plt.subplots(figsize=(12, 4.8))
    w = 0.8 / len(impls)
    for j, impl in enumerate(impls):
        ys = []
        for key in keys:
            sel = [r for r in rows if (r["m"], r["n"], r["k"], r["gpus"]) == key and label(r) == impl]
            ys.append(float(sel[0]["ratio_to_gemm"]) if sel else 0.0)
        ax.bar([i - 0.4 + w * (j + 0.5) for i in range(len(keys))], ys, w, label=impl)
    ax.axhline(1.10, color="k", linestyle="--", linewidth=1, label="goal: 1.10x the GEMM alone")
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([f"{m}x{n}x{k}\n{g} GPUs" for m, n, k, g in keys], fontsize=8)
    ax.set_ylabel("time / tmakit GEMM alone (lower is better)")
    ax.set_title(f"all-gather + GEMM, one process per GPU: {title}")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7, ncol=4, loc="upper left")
    fig.tight_layout()
    fig.savefig(dst, metadata={"Date": None})


if __name__ == "__main__":
    args = sys.argv[1:]
    if args and args[0] == "--table":
        table(read(args[1:]))
        sys.exit(0)
    dst, title, paths = args[0], args[1], args[2:]
    rows = read(paths)
    try:
        plot(rows, dst, title)
    except ImportError:
        print("no matplotlib: the table instead", file=sys.stderr)
    table(rows)

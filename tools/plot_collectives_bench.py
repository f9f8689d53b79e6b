#!/usr/bin/env python3
"""Plot bench_collectives' CSV files (bench/bench_collectives.cu) as one SVG per collective: bus
bandwidth against size (NCCL and tmakit at 16 SMs, one line per GPU count) and against tmakit's SM
count (64 MiB and 256 MiB, with NCCL's bandwidth at those sizes as dashed lines).
Usage: python3 tools/plot_collectives_bench.py OUT_PREFIX "device, date" BENCH.csv [BENCH.csv ...]
Writes OUT_PREFIX_all_gather.svg and OUT_PREFIX_reduce_scatter.svg (needs matplotlib), and prints
the size table (NCCL and tmakit bus bandwidth, their ratio) and the SM sweep as Markdown."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

prefix, title = sys.argv[1], sys.argv[2]
rows = []
for path in sys.argv[3:]:
    rows += list(csv.DictReader(open(path)))
MiB = 1 << 20


def pick(coll, impl, gpus, blocks=None, size=None, series=None):
    out = [r for r in rows if r["collective"] == coll and r["impl"] == impl and int(r["gpus"]) == gpus]
    if series is not None:
        out = [r for r in out if r["series"] == series]
    if blocks is not None:
        out = [r for r in out if int(r["blocks"]) == blocks]
    if size is not None:
        out = [r for r in out if int(r["size_bytes"]) == size]
    return out


for coll in ("all_gather", "reduce_scatter"):
    gpus = sorted({int(r["gpus"]) for r in rows if r["collective"] == coll})
    if not gpus:
        continue
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.6))
    for g in gpus:
        nccl = sorted(pick(coll, "nccl", g), key=lambda r: int(r["size_bytes"]))
        tm = sorted({int(r["size_bytes"]): r for r in pick(coll, "tmakit", g, blocks=16, series="sizes")}.items())
        if nccl:
            a.plot([int(r["size_bytes"]) / MiB for r in nccl], [float(r["busbw_gbs"]) for r in nccl], "o--",
                   label=f"NCCL, {g} GPUs")
        if tm:
            a.plot([s / MiB for s, _ in tm], [float(r["busbw_gbs"]) for _, r in tm], "s-",
                   label=f"tmakit (16 SMs), {g} GPUs")
        for size in (64 * MiB, 256 * MiB):
            sw = sorted(pick(coll, "tmakit", g, size=size, series="sweep"), key=lambda r: int(r["blocks"]))
            if not sw:
                continue
            line = b.plot([int(r["blocks"]) for r in sw], [float(r["busbw_gbs"]) for r in sw], "s-",
                          label=f"tmakit {size // MiB} MiB, {g} GPUs")
            ref = pick(coll, "nccl", g, size=size)
            if ref:
                b.axhline(float(ref[0]["busbw_gbs"]), ls="--", color=line[0].get_color(), alpha=0.6,
                          label=f"NCCL {size // MiB} MiB, {g} GPUs")
    a.set_xscale("log", base=2)
    a.set_xlabel("size (MiB: all-gather's output, reduce-scatter's input)")
    a.set_ylabel("bus bandwidth, GB/s")
    a.set_title(f"{coll.replace('_', '-')}: bandwidth vs size")
    b.set_xscale("log", base=2)
    b.set_xlabel("tmakit blocks (one per SM)")
    b.set_ylabel("bus bandwidth, GB/s")
    b.set_title(f"{coll.replace('_', '-')}: bandwidth vs SM count")
    for ax in (a, b):
        ax.axhline(450, color="grey", lw=0.8, ls=":")
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
        ax.set_ylim(0, 480)
    fig.suptitle(f"{title} (dotted: NVLink's nominal 450 GB/s per direction)", fontsize=9)
    fig.tight_layout()
    fig.savefig(f"{prefix}_{coll}.svg", metadata={"Date": None})
    print(f"wrote {prefix}_{coll}.svg")


# Markdown: sizes x (NCCL, tmakit at 16 SMs, ratio) per collective and GPU count; then the sweep.
for coll in ("all_gather", "reduce_scatter"):
    for g in sorted({int(r["gpus"]) for r in rows if r["collective"] == coll}):
        nccl = {int(r["size_bytes"]): float(r["busbw_gbs"]) for r in pick(coll, "nccl", g, series="sizes")}
        tm = {int(r["size_bytes"]): float(r["busbw_gbs"]) for r in pick(coll, "tmakit", g, blocks=16, series="sizes")}
        if nccl:
            print(f"\n{coll.replace('_', '-')}, {g} GPUs: bus bandwidth, GB/s (tmakit at 16 SMs)\n")
            print("| size | NCCL | tmakit | tmakit / NCCL |")
            print("| ---: | ---: | ---: | ---: |")
            for size in sorted(nccl):
                t = tm.get(size)
                print(f"| {size // MiB} MiB | {nccl[size]:.1f} | {t:.1f} | {t / nccl[size]:.2f} |" if t else
                      f"| {size // MiB} MiB | {nccl[size]:.1f} | - | - |")
        sw = pick(coll, "tmakit", g, series="sweep")
        if sw:
            sizes = sorted({int(r["size_bytes"]) for r in sw})
            print(f"\n{coll.replace('_', '-')}, {g} GPUs: tmakit's bus bandwidth (GB/s) by SM count\n")
            print("| SMs | " + " | ".join(f"{s // MiB} MiB" for s in sizes) + " |")
            print("| ---: | " + " | ".join("---:" for _ in sizes) + " |")
            for n in sorted({int(r["blocks"]) for r in sw}):
                vals = [next((float(r["busbw_gbs"]) for r in sw if int(r["blocks"]) == n and int(r["size_bytes"]) == s), None)
                        for s in sizes]
                print(f"| {n} | " + " | ".join(f"{v:.1f}" if v is not None else "-" for v in vals) + " |")
        tu = [r for r in rows if r["series"] == "tune" and r["collective"] == coll and int(r["gpus"]) == g]
        if tu:
            print(f"\n{coll.replace('_', '-')}, {g} GPUs, 16 SMs: pipeline shapes (tile, stages, lag, push or pull)\n")
            sizes = sorted({int(r["size_bytes"]) for r in tu})
            print("| shape | " + " | ".join(f"{s // MiB} MiB" for s in sizes) + " |")
            print("| --- | " + " | ".join("---:" for _ in sizes) + " |")
            shapes = []
            for r in tu:
                k = (int(r["tile_rows"]), int(r.get("tile_cols", 256)), int(r["stages"]), int(r["lag"]), int(r["pull"]))
                if k not in shapes:
                    shapes.append(k)
            for k in shapes:
                vals = [next((float(r["busbw_gbs"]) for r in tu if (int(r["tile_rows"]), int(r.get("tile_cols", 256)),
                              int(r["stages"]), int(r["lag"]), int(r["pull"])) == k and int(r["size_bytes"]) == s), None)
                        for s in sizes]
                name = f"{k[0]}x{k[1]}, {k[2]} stages, lag {k[3]}, {'pull' if k[4] else 'push'}"
                print(f"| {name} | " + " | ".join(f"{v:.1f}" if v is not None else "-" for v in vals) + " |")

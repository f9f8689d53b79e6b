#!/usr/bin/env python3
"""Plot bench_cluster's CSV (bench/bench_cluster.cu) as one SVG with three panels: delivered smem
fill bandwidth (unicast vs multicast, L2 / HBM working sets, per pipeline shape), the protocol
variants (pipelined per-tile handshake, burst, leader broadcast), and DSMEM copy bandwidth per
path and size.

    python3 tools/plot_cluster_bench.py bench_cluster.csv docs/cluster_bench.svg [title]
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.fonttype"] = "none"  # text as text: a smaller, greppable SVG
import matplotlib.pyplot as plt  # noqa: E402


def main():
    src, dst = sys.argv[1], sys.argv[2]
    title = sys.argv[3] if len(sys.argv) > 3 else "bench_cluster"
    fill, dsmem, variants_row = {}, {}, {}
    with open(src) as f:
        for row in csv.DictReader(f):
            if row["section"] == "fill":
                fill.setdefault((row["working_set"], row["size"]), {})[row["variant"]] = float(row["gbps"])
            elif row["section"] == "fill_variant":
                variants_row[row["variant"]] = float(row["gbps"])
            elif row["section"] == "dsmem":
                dsmem.setdefault(row["variant"], {})[int(row["size"])] = float(row["gbps"])
    fig, (a, c, b) = plt.subplots(1, 3, figsize=(18, 4.8), gridspec_kw={"width_ratios": [3, 2, 2]})
    groups = sorted(fill)
    variants = ["unicast", "mcast_c2", "mcast_c4"]
    w = 0.26
    for i, v in enumerate(variants):
        xs = [g + (i - 1) * w for g in range(len(groups))]
        a.bar(xs, [fill[g].get(v, 0) for g in groups], w, label=v)
    a.set_xticks(range(len(groups)))
    a.set_xticklabels([f"{s}\n{p}" for s, p in groups], fontsize=8)
    a.set_ylabel("delivered smem fill GB/s (all SMs)")
    a.set_title("TMA fill: unicast vs sliced multicast")
    a.legend(fontsize=8)
    names = list(variants_row)
    c.bar(range(len(names)), [variants_row[n] for n in names], 0.6,
          color=["tab:blue" if "unicast" in n else "tab:orange" for n in names])
    c.set_xticks(range(len(names)))
    c.set_xticklabels(names, rotation=35, ha="right", fontsize=8)
    c.set_ylabel("delivered GB/s (L2 set, 6 x 32 KiB)")
    c.set_title("protocol variants: per-tile handshake vs burst")
    sizes = sorted({s for d in dsmem.values() for s in d})
    for i, (path, d) in enumerate(sorted(dsmem.items())):
        xs = [j + (i - 1.5) * 0.2 for j in range(len(sizes))]
        b.bar(xs, [d.get(s, 0) for s in sizes], 0.2, label=path)
    b.set_xticks(range(len(sizes)))
    b.set_xticklabels([f"{s} B" for s in sizes])
    b.set_yscale("log")
    b.set_ylabel("GB/s (all CTA pairs, log)")
    b.set_title("DSMEM exchange per path")
    b.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(dst, format="svg")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Plot bench_cluster's CSV (bench/bench_cluster.cu; docs/cluster_bench.csv) as one SVG with three
panels: delivered smem fill bandwidth of tmakit's warp-specialized pipeline (unicast vs sliced
multicast c2 / c4, L2 and HBM working sets, per pipeline shape); the hand-back forms compared on
6 x 32 KiB, L2 set (section fill_exp: variants before_, pipe_, burst_, exp0_..exp2_ and ws_, each
unicast / mcast_c2 / mcast_c4); DSMEM copy bandwidth per path and size.

    python3 tools/plot_cluster_bench.py docs/cluster_bench.csv docs/cluster_bench.svg [title]
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.fonttype"] = "none"  # text as text: a smaller, greppable SVG
import matplotlib.pyplot as plt  # noqa: E402

TRIO = ["unicast", "c2", "c4"]


def trio_key(variant):
    """'before_unicast' / 'mcast_c2' / 'exp1_mcast_c4' -> (prefix, unicast|c2|c4) or None."""
    for t in TRIO:
        if variant.endswith("_" + t) or variant == t:
            prefix = variant[: -len(t)]
            if prefix.endswith("mcast_"):
                prefix = prefix[: -len("mcast_")]
            return prefix.rstrip("_"), t
    return None


def main():
    src, dst = sys.argv[1], sys.argv[2]
    title = sys.argv[3] if len(sys.argv) > 3 else "bench_cluster"
    fill, forms, dsmem = {}, {}, {}
    with open(src) as f:
        for row in csv.DictReader(f):
            sec, v, g = row["section"], row["variant"], float(row["gbps"])
            if sec == "fill":
                k = trio_key(v)
                fill.setdefault((row["working_set"], row["size"]), {})[k[1]] = g
            elif sec == "fill_exp" and row["size"] == "6x32KiB":
                k = trio_key(v)
                if k:
                    forms.setdefault(k[0], {})[k[1]] = g
            elif sec == "dsmem":
                dsmem.setdefault(v, {})[int(row["size"])] = float(row["gbps"])
    fig, (a, c, b) = plt.subplots(1, 3, figsize=(20, 5.2), gridspec_kw={"width_ratios": [4, 3, 2]})
    order = ["4x16KiB", "12x16KiB", "14x16KiB", "6x32KiB", "7x32KiB", "3x64KiB"]
    groups = sorted(fill, key=lambda g: (g[0] != "L2", order.index(g[1]) if g[1] in order else 99))
    w = 0.26
    for i, t in enumerate(TRIO):
        xs = [j + (i - 1) * w for j in range(len(groups))]
        a.bar(xs, [fill[g].get(t, 0) for g in groups], w, label="unicast" if t == "unicast" else "multicast " + t)
    a.set_xticks(range(len(groups)))
    a.set_xticklabels([f"{s}\n{p}" for s, p in groups], fontsize=7)
    a.set_ylabel("delivered smem fill GB/s (all receiving CTAs)")
    a.set_title("tmakit warp-specialized pipeline: unicast vs sliced multicast")
    a.legend(fontsize=8)
    labels = {"before": "before (all SMs)", "pipe": "pipe", "burst": "burst", "exp0": "exp0 warp release",
              "exp1": "exp1 warp relaxed", "exp2": "exp2 releaser release", "ws": "ws releaser relaxed"}
    names = [n for n in labels if n in forms]
    for i, t in enumerate(TRIO):
        xs = [j + (i - 1) * w for j in range(len(names))]
        c.bar(xs, [forms[n].get(t, 0) for n in names], w, label=t)
    c.set_xticks(range(len(names)))
    c.set_xticklabels([labels[n] for n in names], rotation=30, ha="right", fontsize=8)
    c.set_ylabel("delivered GB/s (L2 set, 6 x 32 KiB)")
    c.set_title("hand-back forms (ws = tmakit's)")
    c.legend(fontsize=8)
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

#!/usr/bin/env python3
"""Plot bench/bench_attention.py's CSV as an SVG: TFLOP/s per sequence length for SDPA's cuDNN and
flash backends and tmakit's attention with P through shared memory and P in registers (and, where the
CSV has them, the same two in the persistent grid form), one panel per (head dim, causal), with
tmakit's best one-CTA-per-tile path over the fastest SDPA above each group (and the persistent form's,
where measured; a tmakit path whose output did not match SDPA's is drawn hatched and left out of the
ratio, as the benchmark does).
Usage: python3 tools/plot_attention_bench.py BENCH.csv|BENCH_OUTPUT.txt OUT.svg "device, driver, date"
(the CSV file, or the benchmark's printed output: its CSV block is read). Needs matplotlib."""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from bench_csv import read_csv_block  # noqa: E402 (tools/bench_csv.py)
from matplotlib.patches import Patch  # noqa: E402

SERIES = [("cudnn_tflops", "SDPA cuDNN"), ("flash_tflops", "SDPA flash"),
          ("tmakit_smem_tflops", "tmakit, P through shared memory"), ("tmakit_reg_tflops", "tmakit, P in registers")]
PERSISTENT_SERIES = [("tmakit_smem_pers_tflops", "tmakit persistent, P through shared memory"),
                     ("tmakit_reg_pers_tflops", "tmakit persistent, P in registers")]


def num(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    rows = read_csv_block(argv[1], "seqlen,")
    title = argv[3] if len(argv) > 3 else ""
    panels = sorted({(int(r["head_dim"]), int(r["causal"])) for r in rows})
    fig, axes = plt.subplots(len(panels), 1, figsize=(10, 3.3 * len(panels)), squeeze=False)
    series = SERIES + [s for s in PERSISTENT_SERIES if any(num(r.get(s[0])) for r in rows)]
    top = max(num(r[k]) or 0 for r in rows for k, _ in series) or 1.0
    w = 0.8 / len(series)
    for ax, (hd, causal) in zip(axes[:, 0], panels):
        sub = sorted((r for r in rows if int(r["head_dim"]) == hd and int(r["causal"]) == causal),
                     key=lambda r: int(r["seqlen"]))
        x = range(len(sub))
        for j, (key, label) in enumerate(series):
            values = [num(r.get(key)) or 0 for r in sub]
            path = key[len("tmakit_"):-len("_tflops")]  # smem, reg, smem_pers, reg_pers
            wrong = [key.startswith("tmakit") and r.get("check_" + path) == "WRONG" for r in sub]
            bars = ax.bar([i + (j - (len(series) - 1) / 2) * w for i in x], values, w, label=label, color=f"C{j}")
            for bar, bad in zip(bars, wrong):
                if bad:
                    bar.set_hatch("xx")
                    bar.set_alpha(0.5)
        for i, r in enumerate(sub):
            ratio = num(r["ratio"])
            ratio_pers = num(r.get("ratio_persistent"))
            peak = max(num(r.get(k)) or 0 for k, _ in series)
            text = f"{ratio:.2f}x" if ratio else "-"
            if len(series) > len(SERIES):
                text += f" / {ratio_pers:.2f}x" if ratio_pers else " / -"
            ax.annotate(text, (i, peak + 0.02 * top), ha="center", fontsize=8)
        ax.set_xticks(list(x))
        ax.set_xticklabels([f"{r['seqlen']} (B={r['batch']})" for r in sub], fontsize=8)
        ax.set_ylim(0, 1.15 * top)
        ax.set_ylabel("TFLOP/s")
        ax.set_title(f"head dim {hd}, {'causal' if causal else 'not causal'}", fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
    handles = [Patch(color=f"C{j}", label=label) for j, (_, label) in enumerate(series)]
    handles.append(Patch(facecolor="white", edgecolor="black", hatch="xx", label="output off (not in the ratio)"))
    axes[0, 0].legend(handles=handles, fontsize=7, loc="upper left", ncol=4 if len(series) > len(SERIES) else 5)
    axes[-1, 0].set_xlabel("sequence length (batch = 16k tokens / seqlen), 16 heads, bf16; "
                           "FLOPs = 4 S^2 D H B (half for causal)" +
                           ("\nabove each group: tmakit's best / the best SDPA, one CTA per tile / persistent"
                            if len(series) > len(SERIES) else ""))
    fig.suptitle(f"Attention forward, side by side in one process: {title}", fontsize=10)
    fig.tight_layout()
    fig.savefig(argv[2], metadata={"Date": None})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

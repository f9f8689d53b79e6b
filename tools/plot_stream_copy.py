#!/usr/bin/env python3
"""Plot bench_stream_copy's CSV (bench/bench_stream_copy.cu) as an SVG: bytes/s of cudaMemcpyAsync,
the TMA streaming copy and the 16-byte vectorized kernel against the copy size.
Usage: python3 tools/plot_stream_copy.py IN.csv OUT.svg "device name"   (needs matplotlib)"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

src, dst, device = sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else ""
rows = list(csv.DictReader(open(src)))
mib = [int(r["bytes"]) / 2**20 for r in rows]
fig, ax = plt.subplots(figsize=(7, 4))
for key, label in (("memcpy_gbps", "cudaMemcpyAsync D2D"), ("tma_gbps", "tmakit TMA streaming copy"),
                   ("vec_gbps", "16-byte vectorized kernel")):
    ax.plot(mib, [float(r[key]) for r in rows], marker="o", label=label)
ax.set_xscale("log", base=2)
ax.set_xlabel("copy size (MiB)")
ax.set_ylabel("GB/s (bytes read + written)")
last = rows[-1]
ax.set_title(f"Device-to-device copy, {device}: TMA / memcpy = {float(last['tma_ratio']):.3f} at {mib[-1]:.0f} MiB")
ax.grid(True, which="both", alpha=0.3)
ax.legend()
fig.tight_layout()
fig.savefig(dst, metadata={"Date": None})

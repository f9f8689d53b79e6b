#!/usr/bin/env python3
"""Compares the store planner's predictions with ncu's shared-store counters.

Usage: compare_smem_store_ncu.py TEST_STDOUT NCU_CSV

TEST_STDOUT: the output of tmakit_gpu_test_smem_store (one 'SMEMSTORE <case> ... wavefronts=W ideal=I'
line per kernel launch, in launch order). NCU_CSV: `ncu --csv --metrics
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum`
of the same binary. Kernels are matched in launch order (the test launches exactly one kernel per case).
Prints one row per case; exit status 1 if any count differs or the number of profiled kernels is
not the number of cases (then only the first min(cases, kernels) are compared: "N of M compared").
"""
import csv
import re
import sys

WF = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
BC = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"


def main():
    cases = []
    for line in open(sys.argv[1]):
        m = re.search(r"SMEMSTORE (\S+) op=(\S+) instructions=(\d+) wavefronts=(\d+) ideal=(\d+)", line)
        if m:
            cases.append((m.group(1), m.group(2), int(m.group(4)), int(m.group(5))))
    rows = [l for l in open(sys.argv[2]) if not l.startswith("==")]
    kernels = {}
    for r in csv.DictReader(rows):
        if "_kernel<Case" not in r.get("Kernel Name", ""):
            continue
        k = kernels.setdefault(int(r["ID"]), {"name": r["Kernel Name"]})
        k[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    ids = sorted(kernels)
    # one kernel per case: any other count means a case was not profiled (or an extra kernel ran), and
    # matching in launch order would pair the wrong ones; rows are still printed for the pairs there are
    mismatch = len(ids) != len(cases)
    if mismatch:
        print(f"error: {len(cases)} cases but {len(ids)} profiled kernels", file=sys.stderr)
    bad = 0
    print(f"{'case':50s} {'instruction':48s} {'pred wf':>8s} {'ncu wf':>8s} {'pred conf':>9s} {'ncu conf':>9s}")
    for (name, op, wf, ideal), kid in zip(cases, ids):
        k = kernels[kid]
        mwf, mbc = k.get(WF, -1), k.get(BC, -1)
        ok = mwf == wf and mbc == wf - ideal
        bad += not ok
        print(f"{name:50s} {op:48s} {wf:8d} {mwf:8.0f} {wf - ideal:9d} {mbc:9.0f} {'ok' if ok else 'DIFFERS'}")
    compared = min(len(cases), len(ids))
    print(f"{compared - bad} of {len(cases)} cases match ({compared} of {len(cases)} compared)")
    # every metric collected, per kernel (for the record)
    for (name, *_), kid in zip(cases, ids):
        k = kernels[kid]
        print(name, " ".join(f"{m.split('__')[-1]}={v:.0f}" for m, v in sorted(k.items()) if m != "name"))
    return 1 if bad or mismatch or not cases else 0


if __name__ == "__main__":
    sys.exit(main())

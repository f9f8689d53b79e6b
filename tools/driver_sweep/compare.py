#!/usr/bin/env python3
"""Compare the driver's answers (driver_sweep output) with tmakit's (`tmakit encode --jsonl`) line by line.

Usage: compare.py DRIVER.jsonl TMAKIT.jsonl [--show N]
Decisions compare as accepted (CUresult 0) vs refused (anything else); bytes compare on lines both
accept (the driver leaves half-written bytes on refusal). Prints counts and exits 1 on any
disagreement, including a different number of lines (one output stopped early).
"""
import json
import sys
from collections import Counter
from itertools import zip_longest


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    show = 5
    if "--show" in sys.argv:
        show = int(sys.argv[sys.argv.index("--show") + 1])
        args = [a for a in args if a != str(show)]
    drv, ours = args[0], args[1]
    n = acc = agree_dec = agree_bytes = 0
    results = Counter()
    bad = []
    with open(drv) as fd, open(ours) as fo:
        for ld, lo in zip_longest(fd, fo):
            if ld is None or lo is None:
                print(f"line counts differ: {drv if ld is None else ours} ends after {n} lines, the other goes on")
                sys.exit(1)
            d, o = json.loads(ld), json.loads(lo)
            n += 1
            results[d["result"]] += 1
            d_ok, o_ok = d["result"] == 0, o["result"] == 0
            if d_ok == o_ok:
                agree_dec += 1
            else:
                bad.append(("decision", d, o))
            if d_ok and o_ok:
                acc += 1
                if d["bytes"] == o["bytes"]:
                    agree_bytes += 1
                else:
                    bad.append(("bytes", d, o))
    print(f"configurations {n}; driver results {dict(results)}")
    print(f"decisions agree {agree_dec}/{n}; bytes agree {agree_bytes}/{acc} (both accepted)")
    for kind, d, o in bad[:show]:
        print(kind, json.dumps({k: v for k, v in d.items() if k != "bytes"}), "driver:", d["result"], "tmakit:", o)
    sys.exit(0 if not bad else 1)


if __name__ == "__main__":
    main()

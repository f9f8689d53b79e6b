#!/usr/bin/env python3
"""Reads nvcc's `-Xptxas -v` report on standard input and fails on what a fast kernel must not have.

    nvcc ... -Xptxas -v -c kernel.cu -o /dev/null 2>&1 | python3 ptxas_report_check.py [--name NAME]

For every entry function ptxas compiled (`Compiling entry function 'F' for 'sm_XX'`), its
`Function properties` line must show 0 bytes of stack frame (no local memory), 0 bytes of spill
stores and 0 bytes of spill loads; and no line may carry ptxas's warnings that it injected
warpgroup waits into a WGMMA pipeline (C7517 warpgroup.wait, C7519 warpgroup.arrive) or that it
serialized a function's WGMMAs ("wgmma.mma_async instructions are serialized", C7510-C7520: e.g.
C7514, an instruction that may read a WGMMA's accumulators while the WGMMA can still be in flight),
either of which stops the multiplies from overlapping. Prints one line per offence (the function demangled where c++filt is
there) and a summary; exits 1 on any offence, 2 when the report holds no entry function at all
(the compile failed or printed nothing), else 0.
"""
import argparse
import re
import shutil
import subprocess
import sys

ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\w+)'")
PROPS = re.compile(r"Function properties for (\S+)")
FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
INJECTED = re.compile(r"\((C7517|C7519)\)")
SERIALIZED = re.compile(r"\((C75\d\d)\)[^\n]*wgmma\.mma_async instructions are serialized")


def demangle(names):
    if not names or not shutil.which("c++filt"):
        return {n: n for n in names}
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else {n: n for n in names}


def check(lines):
    """Returns (entries, offences): entry functions seen, and (function, what) pairs."""
    entries, offences = [], []
    pending = None  # the function whose properties come next
    for line in lines:
        m = ENTRY.search(line)
        if m:
            entries.append(m.group(1))
            continue
        m = PROPS.search(line)
        if m:
            pending = m.group(1)
            continue
        m = FRAME.search(line)
        if m and pending is not None:
            frame, stores, loads = (int(x) for x in m.groups())
            if frame:
                offences.append((pending, f"{frame} bytes of stack frame (local memory)"))
            if stores or loads:
                offences.append((pending, f"{stores} bytes of spill stores, {loads} bytes of spill loads"))
            pending = None
            continue
        m = INJECTED.search(line)
        if m:
            fn = re.search(r"in function '([^']+)'", line)
            offences.append((fn.group(1) if fn else "?", f"ptxas warning {m.group(1)}: injected warpgroup wait"))
            continue
        m = SERIALIZED.search(line)
        if m:
            fn = re.search(r"in the function '([^']+)'|in function '([^']+)'", line)
            name = (fn.group(1) or fn.group(2)) if fn else "?"
            offences.append((name, f"ptxas warning {m.group(1)}: its WGMMAs serialized"))
    return entries, offences


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--name", default="kernels", help="what the report is of, for the summary")
    ap.add_argument("--input", help="read the report from this file instead of standard input")
    ap.add_argument("--expect-offences", type=int, default=None,
                    help="(the checker's own test) exit 0 exactly when this many offences are found")
    args = ap.parse_args()
    text = open(args.input).read() if args.input else sys.stdin.read()
    entries, offences = check(text.splitlines())
    if not entries:
        print(f"{args.name}: no entry function in the ptxas report (did the compile run with -Xptxas -v?)")
        return 2
    names = demangle(sorted({f for f, _ in offences}))
    for f, what in offences:
        print(f"{args.name}: {names.get(f, f)}: {what}")
    print(f"{args.name}: {len(entries)} entry functions, {len(offences)} offences")
    if args.expect_offences is not None:
        return 0 if len(offences) == args.expect_offences else 1
    return 1 if offences else 0


if __name__ == "__main__":
    sys.exit(main())

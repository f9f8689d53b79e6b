#!/usr/bin/env python3
"""The capture tests (CTest capture.*): capture_probe encodes a map every way a program reaches the
driver's encoders and prints "<way> <tag> <result>" per way; each way's record must be there, once,
with the probe's arguments, how it was reached ("via") and the result the probe got.

  --mode records   the library alone: LD_PRELOAD=libtmakit_capture.so TMAKIT_CAPTURE=FILE probe
  --mode cli       tmakit capture --json --report FILE -- probe (the library found next to tmakit):
                   the probe's stdout and exit status pass through, and the report explains each map

Without a driver the probe runs against the toolkit's stub (--stub-dir: a libcuda.so.1 link to it)
when it links libcuda; the encoders then answer 34 and are recorded all the same. With a driver
(result 0) the bytes must be tmakit's encoding of the same arguments, and the CUDA runtime's
cudaGetDriverEntryPoint[ByVersion] must be captured too.
"""
import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile

TILED = dict(call="cuTensorMapEncodeTiled", kind="tiled", dtype=9, rank=2, strides=[8192], box=[64, 128],
             elem_strides=[1, 1], interleave=0, swizzle=3, l2=0, oob=0)
IM2COL = dict(call="cuTensorMapEncodeIm2col", kind="im2col", dtype=9, rank=4, strides=[128, 4096, 131072],
              lower=[-1, -1], upper=[1, 1], channels=64, pixels=128, elem_strides=[1, 1, 1, 1], swizzle=3)
WIDE = dict(IM2COL, call="cuTensorMapEncodeIm2colWide", kind="im2col_wide", lower=[-1], upper=[1], mode=1)
# way -> (via, the arguments, which dim holds the tag)
WAYS = {
    "linked": ("linked", TILED, 1),
    "dlsym-default": ("dlsym", TILED, 1),
    "dlsym-handle": ("dlsym", TILED, 1),
    "procaddr-v1": ("cuGetProcAddress", TILED, 1),
    "procaddr-v2": ("cuGetProcAddress_v2", TILED, 1),
    "procaddr-chain": ("cuGetProcAddress_v2", TILED, 1),
    "linked-procaddr-v2": ("cuGetProcAddress_v2", TILED, 1),
    # libcudart (shared or static) dlsym's both of the driver's lookups; either may answer
    "runtime": (("cuGetProcAddress", "cuGetProcAddress_v2"), TILED, 1),
    "runtime-by-version": (("cuGetProcAddress", "cuGetProcAddress_v2"), TILED, 1),
    "linked-im2col": ("linked", IM2COL, 3),
    "procaddr-v2-wide": ("cuGetProcAddress_v2", WIDE, 3),
    "dlsym-replace": ("dlsym", dict(call="cuTensorMapReplaceAddress"), None),
    # cuLaunchKernel (through _v2) with a map in its parameter buffer, 64 bytes in
    "procaddr-v2-launch": ("cuGetProcAddress_v2", dict(call="kernel_parameter", param=-1, offset=64), None),
}
# the map capture_probe_calls.c puts in the launch's parameter buffer
LAUNCHED_MAP = ("0000e8efec7f0000106504002000000000000000000000000000000000000000ff000000ff0100000000000000000000"
                "000000000000003f3f0000000000000000200000000000000004000000000000000000000000000000000000000000000000"
                "000000000000000000000000000000000000000000000000000000000000")
ALWAYS = ["dlsym-default", "procaddr-v1", "procaddr-v2", "procaddr-chain", "procaddr-v2-wide", "dlsym-replace",
          "procaddr-v2-launch"]
LINKED = ["linked", "linked-im2col", "linked-procaddr-v2", "dlsym-handle"]
RUNTIME = ["runtime", "runtime-by-version"]

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def real_driver():
    """True when libcuda.so.1 loads and is not the toolkit's stub (which answers 34 to everything)."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    version = ctypes.c_int(0)
    return cuda.cuDriverGetVersion(ctypes.byref(version)) == 0


def environment(args, driver):
    env = dict(os.environ)
    env.pop("TMAKIT_CAPTURE", None)
    if args.stub_dir and not driver:
        env["LD_LIBRARY_PATH"] = args.stub_dir + os.pathsep + env.get("LD_LIBRARY_PATH", "")
    return env


def probe_lines(stdout):
    """{way: (tag, result or None when the lookup failed)} from the probe's output."""
    ways = {}
    for line in stdout.splitlines():
        parts = line.split()
        ways[parts[0]] = (int(parts[1]), None if parts[2] == "lookup-failed" else int(parts[2]))
    return ways


def expected_ways(args, driver):
    ways = list(ALWAYS)
    if args.stub_dir:
        ways += LINKED + (RUNTIME if driver else [])
    return ways


def check_arguments(way, tag, rec, want):
    for key, value in want.items():
        check(rec.get(key) == value, f"{way}: {key} = {rec.get(key)!r}, expected {value!r}")


def check_records(args, ways, records, driver):
    """Each way that ran: exactly one record, its via, arguments and result; the bytes where a driver answered."""
    base = next((r["address"] for r in records if r["call"] != "cuTensorMapReplaceAddress"), None)
    for way in expected_ways(args, driver):
        check(way in ways and ways[way][1] is not None, f"{way}: the probe did not reach the encoder: {ways.get(way)}")
        if way not in ways or ways[way][1] is None:
            continue
        tag, result = ways[way]
        via, want, tag_dim = WAYS[way]
        vias = via if isinstance(via, tuple) else (via,)
        if want["call"] == "kernel_parameter":  # the launch: the map at its place, once
            mine = [r for r in records if r["call"] == "kernel_parameter" and r.get("via") in vias]
            check(len(mine) == 1 and mine[0]["bytes"] == LAUNCHED_MAP,
                  f"{way}: {len(mine)} kernel_parameter records, expected 1 with the probe's map")
            if len(mine) == 1:
                check_arguments(way, tag, mine[0], want)
                check(mine[0]["result"] == result, f"{way}: recorded result {mine[0]['result']}, the probe got {result}")
            continue
        if tag_dim is None:  # the replaced address: the tensors' base + tag
            mine = [r for r in records
                    if r["call"] == want["call"] and base is not None and r.get("address") == base + tag]
        else:
            mine = [r for r in records if r["call"] == want["call"] and len(r.get("dims", [])) > tag_dim
                    and r["dims"][tag_dim] == tag and r.get("via") in vias]
        check(len(mine) == 1, f"{way}: {len(mine)} records with tag {tag} via {via}, expected 1")
        if len(mine) != 1:
            continue
        check_arguments(way, tag, mine[0], want)
        check(mine[0]["result"] == result, f"{way}: recorded result {mine[0]['result']}, the probe got {result}")
        check((result == 0) == driver or way == "dlsym-replace", f"{way}: result {result} with driver={driver}")
    if driver:
        encoded = [r for r in records
                   if r["result"] == 0 and r["call"] not in ("cuTensorMapReplaceAddress", "kernel_parameter")]
        out = subprocess.run([args.cli, "encode", "--jsonl", "-"], input="".join(json.dumps(r) + "\n" for r in encoded),
                             capture_output=True, text=True, check=True).stdout.splitlines()
        for r, line in zip(encoded, out):
            check(json.loads(line)["bytes"] == r["bytes"],
                  f"{r['via']} {r['dims']}: the driver's bytes are not tmakit's")


def split_launches(records):
    """The kernel_launch records (one per kernel handle launched) apart from the others."""
    return ([r for r in records if r["call"] == "kernel_launch"],
            [r for r in records if r["call"] != "kernel_launch"])


def check_launches(ways, launches):
    """The probe's one launch (a NULL handle, its 192-byte buffer through `extra`): one kernel_launch record."""
    launched = ways.get("procaddr-v2-launch", (None, None))[1] is not None
    check(len(launches) == (1 if launched else 0), f"{len(launches)} kernel_launch records: {launches}")
    if launches:
        r = launches[0]
        check(r["kernel"] == "?" and r["parameters"] == "extra" and r["param_bytes"] == 192 and
              r["param_count"] == 1, f"the probe's kernel_launch record: {r}")


def run_records(args, driver):
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as f, tempfile.NamedTemporaryFile(suffix=".txt") as t:
        env = environment(args, driver)
        env.update(LD_PRELOAD=args.lib, TMAKIT_CAPTURE=f.name, TMAKIT_CAPTURE_TRACE=t.name)
        p = subprocess.run([args.probe], env=env, capture_output=True, text=True)
        check(p.returncode == 0, f"the probe exited {p.returncode}: {p.stderr}")
        records = [json.loads(line) for line in open(f.name)]
        lookups = set(open(t.name).read().splitlines())
    launches, records = split_launches(records)
    # the trace names every lookup the probe made by name, encoders and the lookup itself
    for lookup in ("dlsym cuTensorMapEncodeTiled", "dlsym cuGetProcAddress_v2",
                   "cuGetProcAddress_v2 cuTensorMapEncodeTiled", "cuGetProcAddress cuTensorMapEncodeTiled",
                   "cuGetProcAddress_v2 cuLaunchKernel"):
        check(lookup in lookups, f"TMAKIT_CAPTURE_TRACE: no line '{lookup}' in {sorted(lookups)[:20]}")
    ways = probe_lines(p.stdout)
    check(len(records) == sum(1 for t, r in ways.values() if r is not None),
          f"{len(records)} records for {len(ways)} ways: {ways}")
    check_records(args, ways, records, driver)
    check_launches(ways, launches)


def run_cli(args, driver):
    with tempfile.TemporaryDirectory() as d:
        report, kept = os.path.join(d, "report.json"), os.path.join(d, "maps.jsonl")
        p = subprocess.run([args.cli, "capture", "--json", "--report", report, "--out", kept, "--", args.probe],
                           env=environment(args, driver), capture_output=True, text=True)
        check(p.returncode == 0, f"tmakit capture exited {p.returncode}: {p.stderr}")
        check(p.stderr == "", f"the report went to stderr: {p.stderr[:200]}")
        j = json.load(open(report))
        records = [json.loads(line) for line in open(kept)]
    launches, records = split_launches(records)
    ways = probe_lines(p.stdout)  # the probe's stdout passed through
    check(j["status"] == 0 and j["exit"] == 0 and j["argv"] == [args.probe],
          f"the report's run: {j['argv']} {j['status']}")
    check(j["records"] == len(records), f"report: {j['records']} records, the file holds {len(records)}")
    check_records(args, ways, records, driver)
    for g in j["groups"]:
        name = f"group {g['call']} via {g['via']} {g['command']}"
        check(g["count"] == 1, f"{name}: count {g['count']} (every way encodes its own map)")
        check(g["tmakit"]["ok"], f"{name}: tmakit refuses the probe's map: {g['tmakit']['errors']}")
        if g["source"] == "kernel_parameter":  # the bytes the kernel got, re-encoded bit for bit
            check(g["agreement"] == "agree" and g["bytes_source"] == "driver" and g["bytes_match_tmakit"] and
                  g["bytes"] == LAUNCHED_MAP and g["kernel"]["offset"] == 64, f"{name}: {g}")
            continue
        check(g["agreement"] == ("agree" if driver else "no driver verdict"), f"{name}: {g['agreement']}")
        check(g["bytes_source"] == ("driver" if driver else "tmakit") and len(g["bytes"]) == 256, f"{name}: bytes")
        check(not driver or g["bytes_match_tmakit"], f"{name}: the driver's bytes differ: {g['differences']}")
    check(j["configurations"] == len(records), f"{j['configurations']} configurations for {len(records)} records")
    check_launches(ways, launches)
    want = [{"name": "?", "handles": 1, "parameters": "extra", "param_bytes": 192, "received_map": True}]
    check(j["kernels_launched"] == (want if launches else []), f"kernels_launched: {j['kernels_launched']}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=["records", "cli"], required=True)
    ap.add_argument("--probe", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--stub-dir", default="")
    args = ap.parse_args()
    driver = real_driver()
    (run_records if args.mode == "records" else run_cli)(args, driver)
    for f in failures:
        print("FAIL:", f)
    print(f"capture ({args.mode}, {'driver' if driver else 'no driver'}): "
          f"{'ok' if not failures else str(len(failures)) + ' failure(s)'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Writes tests/data/cute_reference.jsonl.gz: CuTe's own answers for random static layouts.

For each of the 16 operations of `tmakit layout`, draws random cases (fixed seed), writes them as
C++ batch files in which every layout is a static CuTe layout (cute::C<n> extents and strides),
compiles each batch against NVIDIA/cutlass's headers, runs it and records the results. A case whose
instantiation does not compile (one of CuTe's static checks fails, e.g. "Stride Divisibility
Condition") is recorded as refused, with the first error message; the batch is then compiled
again without it. See README.md.

  make_reference.py --cutlass DIR --cccl DIR [--cases N] [--jobs J] [--seed S] [--work DIR] [--out FILE]
"""
import argparse
import concurrent.futures
import gzip
import json
import os
import random
import re
import subprocess
import sys
import time

OPS = ["coalesce", "composition", "complement", "logical_divide", "zipped_divide", "tiled_divide",
       "logical_product", "blocked_product", "raked_product", "left_inverse", "right_inverse",
       "max_common_vector", "max_common_layout", "size", "cosize", "print"]

# Extents, weighted towards the small ones (size-1 modes are frequent on purpose).
EXTENTS = [1] * 12 + [2] * 20 + [3] * 6 + [4] * 16 + [5] * 3 + [6] * 5 + [7] * 1 + [8] * 12 + [12] * 2 + [16] * 6 + [32] * 2
RANDOM_STRIDES = [0, 0, 1, 1, 1, 2, 2, 3, 4, 4, 5, 6, 8, 8, 12, 13, 16, 24, 32, 64]


# ---- values: an IntTuple is an int or a list of IntTuples
def leaves(t):
    return [x for c in t for x in leaves(c)] if isinstance(t, list) else [t]


def product(t):
    p = 1
    for x in leaves(t):
        p *= x
    return p


def refill(t, vals):
    """t's structure with its leaves replaced, in order, by vals (an iterator)."""
    return [refill(c, vals) for c in t] if isinstance(t, list) else next(vals)


def notation(t):
    return "(" + ",".join(notation(c) for c in t) + ")" if isinstance(t, list) else str(t)


def cxx(t):
    return "cute::tuple<" + ",".join(cxx(c) for c in t) + ">" if isinstance(t, list) else f"cute::C<{t}>"


class Layout:
    def __init__(self, shape, stride):
        self.shape, self.stride = shape, stride

    def text(self):
        return notation(self.shape) + ":" + notation(self.stride)

    def cxx(self):
        return f"cute::Layout<{cxx(self.shape)},{cxx(self.stride)}>"

    def size(self):
        return product(self.shape)

    def cosize(self):
        return 1 + sum((s - 1) * d for s, d in zip(leaves(self.shape), leaves(self.stride)))

    def rank(self):
        return len(self.shape) if isinstance(self.shape, list) else 1

    def mode(self, i):
        if not isinstance(self.shape, list):
            return self
        return Layout(self.shape[i], self.stride[i])


# ---- random draws
def rand_mode_shape(rng, depth):
    if depth >= 2 or rng.random() < 0.62:
        return rng.choice(EXTENTS)
    return [rand_mode_shape(rng, depth + 1) for _ in range(rng.randint(1, 3))]


def rand_shape(rng, max_size, max_rank=4):
    while True:
        if rng.random() < 0.15:
            s = rng.choice(EXTENTS)  # an integral shape (rank 1, depth 0)
        else:
            s = [rand_mode_shape(rng, 1) for _ in range(rng.randint(1, max_rank))]
        if product(s) <= max_size:
            return s


def rand_strides(rng, shape):
    ext = leaves(shape)
    kind = rng.random()
    order = list(range(len(ext)))
    if rng.random() < 0.5:
        rng.shuffle(order)
    out = [0] * len(ext)
    if kind < 0.60:  # compact in some order, with gaps (factors 2, 3, or a non-divisible jump) and zeros
        cur = 1
        gaps = kind >= 0.30
        for i in order:
            if gaps and rng.random() < 0.3:
                cur = cur * rng.choice([2, 3]) if rng.random() < 0.7 else cur + rng.randint(1, 5)
            out[i] = cur
            cur *= ext[i]
        if kind >= 0.45:
            for i in range(len(ext)):
                if rng.random() < 0.25:
                    out[i] = 0
    else:  # anything
        out = [rng.choice(RANDOM_STRIDES) for _ in ext]
    return refill(shape, iter(out))


def rand_layout(rng, max_size, max_rank=4):
    s = rand_shape(rng, max_size, max_rank)
    return Layout(s, rand_strides(rng, s))


def divisor_or_any(rng, n):
    if rng.random() < 0.7:
        return rng.choice([d for d in range(1, n + 1) if n % d == 0])
    return rng.choice([1, 2, 3, 4, 5, 6, 8, 16])


class Tiler:
    """kind 'layout' (a Layout), 'int' (n), or 'modes' (a list of Tilers); shape_form: written as a bare shape."""

    def __init__(self, kind, value, shape_form=False):
        self.kind, self.value, self.shape_form = kind, value, shape_form

    def text(self, top=True):
        if self.kind == "layout":
            return self.value.text()
        if self.kind == "int":
            return str(self.value)
        if self.shape_form:
            return "(" + ",".join(m.text(False) for m in self.value) + ")"
        return "<" + ",".join(m.text(False) for m in self.value) + ">"

    def cxx(self):
        if self.kind == "layout":
            return self.value.cxx()
        if self.kind == "int":
            return f"cute::C<{self.value}>"
        return "cute::tuple<" + ",".join(m.cxx() for m in self.value) + ">"

    def all_ints(self):
        return self.kind == "int" or (self.kind == "modes" and all(m.all_ints() for m in self.value))


def rand_mode_tiler(rng, a):
    """A tiler for layout a (one mode of the layout being tiled)."""
    x = rng.random()
    if x < 0.3:
        return Tiler("int", divisor_or_any(rng, a.size()))
    if x < 0.8 or a.rank() == 1 or not isinstance(a.shape, list):
        return Tiler("layout", rand_tile_layout(rng, a.size()))
    r = rng.randint(1, a.rank())
    return Tiler("modes", [rand_mode_tiler(rng, a.mode(i)) for i in range(r)])


def rand_tile_layout(rng, n):
    """A small layout meant to tile n elements: usually of a size dividing n."""
    if rng.random() < 0.7:
        s = divisor_or_any(rng, n)
        if rng.random() < 0.3 and s > 1:  # split it: nested shapes with size-1 modes
            parts = [d for d in (1, 2, 4) if s % d == 0]
            p = rng.choice(parts)
            shape = [p, s // p] if rng.random() < 0.6 else [1, [p, s // p]]
        else:
            shape = s
    else:
        shape = rand_shape(rng, 64, 2)
    return Layout(shape, rand_strides(rng, shape))


def rand_tiler(rng, a):
    if rng.random() < 0.3:
        return Tiler("layout", rand_tile_layout(rng, a.size()))
    r = rng.randint(1, a.rank())
    modes = [rand_mode_tiler(rng, a.mode(i)) for i in range(r)]
    t = Tiler("modes", modes)
    if t.all_ints() and rng.random() < 0.5:
        t.shape_form = True
        for m in modes:
            m.shape_form = True
    return t


def rand_profile(rng, a):
    if not isinstance(a.shape, list) or rng.random() < 0.2:
        return 1
    return [1 if rng.random() < 0.6 or not isinstance(a.shape[i], list) else rand_profile(rng, a.mode(i))
            for i in range(rng.randint(1, a.rank()))]


def draw_case(rng, op):
    """(args as tmakit notation, C++ expression evaluated by the batch)."""
    if op in ("size", "cosize"):
        a = rand_layout(rng, 4096)
        return [a.text()], f"cute::{op}({a.cxx()}{{}})"
    if op == "print":
        a = rand_layout(rng, 256)
        return [a.text()], ("offsets", f"{a.cxx()}{{}}")
    if op == "coalesce":
        a = rand_layout(rng, 4096)
        if rng.random() < 0.3:
            return [a.text()], f"cute::coalesce({a.cxx()}{{}})"
        p = rand_profile(rng, a)
        return [a.text(), notation(p)], f"cute::coalesce({a.cxx()}{{}}, {cxx(p)}{{}})"
    if op == "complement":
        a = rand_layout(rng, 256)
        if rng.random() < 0.4:
            return [a.text()], f"cute::complement({a.cxx()}{{}})"
        n = rng.choice([a.size(), a.cosize(), 2 * a.cosize(), rng.randint(1, 4 * a.cosize()), rng.randint(1, 512)])
        return [a.text(), str(n)], f"cute::complement({a.cxx()}{{}}, cute::C<{n}>{{}})"
    if op in ("left_inverse", "right_inverse"):
        a = rand_layout(rng, 1024)
        return [a.text()], f"cute::{op}({a.cxx()}{{}})"
    if op in ("composition", "logical_divide", "zipped_divide", "tiled_divide"):
        a = rand_layout(rng, 4096)
        t = rand_tiler(rng, a)
        return [a.text(), t.text()], f"cute::{op}({a.cxx()}{{}}, {t.cxx()}{{}})"
    if op == "logical_product":
        a = rand_layout(rng, 64)
        t = rand_tiler(rng, a)
        return [a.text(), t.text()], f"cute::{op}({a.cxx()}{{}}, {t.cxx()}{{}})"
    if op in ("blocked_product", "raked_product"):
        a = rand_layout(rng, 64)
        b = rand_layout(rng, 32)
        return [a.text(), b.text()], f"cute::{op}({a.cxx()}{{}}, {b.cxx()}{{}})"
    if op in ("max_common_vector", "max_common_layout"):
        a = rand_layout(rng, 1024)
        if rng.random() < 0.6:  # same shape, other strides: the interesting case
            b = Layout(a.shape, rand_strides(rng, a.shape))
        else:
            b = rand_layout(rng, 1024)
        return [a.text(), b.text()], f"cute::{op}({a.cxx()}{{}}, {b.cxx()}{{}})"
    raise ValueError(op)


# ---- batches
def batch_source(cases):
    lines = ['#include "harness.hpp"']
    first = len(lines) + 1
    for cid, expr in cases:
        if isinstance(expr, tuple):
            lines.append(f"static void c{cid}() {{ cute_reference::emit_offsets({cid}, {expr[1]}); }}")
        else:
            lines.append(f"static void c{cid}() {{ cute_reference::emit({cid}, {expr}); }}")
    lines.append("int main() {")
    lines += [f"  c{cid}();" for cid, _ in cases]
    lines.append("}")
    return "\n".join(lines) + "\n", first


HERE_RE = re.compile(r"^(?:\S*/)?(batch_\d+\.cpp):(\d+):\d+:\s+required from here")
ERR_RE = re.compile(r"^(?:(\S+?):(\d+):\d+: )?error: (.*)$")


def compile_and_run(args, name, cases):
    """Returns ({id: result}, {id: refusal message}); kept in WORK/NAME.json, so a run resumes."""
    done = os.path.join(args.work, name + ".json")
    key = [str(c[1]) for c in cases]
    if os.path.exists(done):
        with open(done) as f:
            saved = json.load(f)
        if saved["exprs"] == key:
            return ({int(k): v for k, v in saved["results"].items()}, {int(k): v for k, v in saved["refused"].items()})
    results, refused = compile_and_run_once(args, name, cases)
    with open(done, "w") as f:
        json.dump({"exprs": key, "results": results, "refused": refused}, f)
    return results, refused


def compile_and_run_once(args, name, cases):
    refused = {}
    todo = list(cases)
    for _ in range(8):
        src, first = batch_source(todo)
        cpp = os.path.join(args.work, name + ".cpp")
        exe = os.path.join(args.work, name)
        with open(cpp, "w") as f:
            f.write(src)
        cmd = [args.cxx, "-std=c++17", "-O0", "-w", "-fmax-errors=0", "-I", os.path.dirname(os.path.abspath(__file__)),
               "-I", os.path.join(args.cutlass, "include"), "-I", args.cccl, cpp, "-o", exe]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode == 0:
            break
        failed = {}
        current = None
        for line in p.stderr.splitlines():
            m = HERE_RE.match(line)
            if m and m.group(1) == name + ".cpp":
                current = todo[int(m.group(2)) - first][0]
                continue
            e = ERR_RE.match(line)
            if e:
                if e.group(1) and e.group(1).endswith(name + ".cpp"):
                    current = todo[int(e.group(2)) - first][0]
                if current is not None and current not in failed:
                    msg = e.group(3)
                    msg = re.sub(r"^static assertion failed: ", "", msg)
                    failed[current] = msg
        if not failed:
            hint = ""
            if re.search(r"cuda\w*\.h: No such file", p.stderr):
                hint = "\n(the CUDA toolkit's headers are not on g++'s include path: set CPATH, see README.md)"
            sys.exit(f"{name}: compile failed without a case to blame:\n{p.stderr[-3000:]}{hint}")
        refused.update(failed)
        todo = [c for c in todo if c[0] not in failed]
        if not todo:
            return {}, refused
    else:
        sys.exit(f"{name}: still failing after 8 rounds")
    out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    results = {}
    for line in out.splitlines():
        cid, _, r = line.partition("\t")
        results[int(cid)] = r
    os.remove(exe)
    return results, refused


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cutlass", required=True, help="a checkout of NVIDIA/cutlass (include/cute is read)")
    ap.add_argument("--cccl", required=True, help="CCCL's include directory (cuda/std/...), e.g. /usr/local/cuda/include/cccl")
    ap.add_argument("--cases", type=int, default=10000, help="distinct cases per operation")
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=400)
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--work", default="/tmp/cute_reference")
    ap.add_argument("--ops", default=",".join(OPS))
    ap.add_argument("--assemble", action="store_true",
                    help="compile nothing: write the cases of the batches already done in WORK (a partial run)")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(here, "..", "data", "cute_reference.jsonl.gz"))
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)

    rng = random.Random(args.seed)
    cases = []  # (id, op, args, expr)
    for op in args.ops.split(","):
        seen = set()
        while len(seen) < args.cases:
            targs, expr = draw_case(rng, op)
            key = tuple(targs)
            if key in seen:
                continue
            seen.add(key)
            cases.append((len(cases), op, targs, expr))
    batches = [cases[i:i + args.batch] for i in range(0, len(cases), args.batch)]
    print(f"{len(cases)} cases in {len(batches)} batches", file=sys.stderr)
    results, refused = {}, {}
    t0 = time.time()
    if args.assemble:
        for k, b in enumerate(batches):
            done = os.path.join(args.work, f"batch_{k}.json")
            if os.path.exists(done):
                with open(done) as f:
                    saved = json.load(f)
                results.update({int(i): v for i, v in saved["results"].items()})
                refused.update({int(i): v for i, v in saved["refused"].items()})
        cases = [c for c in cases if c[0] in results or c[0] in refused]
        batches = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futs = [pool.submit(compile_and_run, args, f"batch_{k}", [(c[0], c[3]) for c in b]) for k, b in enumerate(batches)]
        for k, f in enumerate(concurrent.futures.as_completed(futs)):
            r, x = f.result()
            results.update(r)
            refused.update(x)
            print(f"  {k + 1}/{len(batches)} batches, {time.time() - t0:.0f} s", file=sys.stderr)
    with gzip.open(args.out, "wt") as f:
        for cid, op, targs, _ in cases:
            rec = {"op": op, "args": targs}
            if cid in refused:
                rec["refused"] = refused[cid]
            else:
                r = results[cid]
                rec["result"] = [int(v) for v in r.split()] if op == "print" else r
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")
    print(f"wrote {args.out}: {len(cases)} cases, {len(refused)} refused", file=sys.stderr)


if __name__ == "__main__":
    main()

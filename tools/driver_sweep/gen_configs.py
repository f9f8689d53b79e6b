#!/usr/bin/env python3
"""Generate tensor-map configurations as JSON lines for driver_sweep and `tmakit encode --jsonl`.

Deterministic for a given --seed. Families:
  tiled / im2col / im2col_wide: mostly plausible configurations with values pushed to and past every
  documented limit (dims 0..2^32+1, strides around multiples of 16/32 and 2^40, boxes 0..257, element
  strides 0..9, corners at and past their ranges, misaligned addresses, out-of-range enum values).
  onefactor: a valid baseline with exactly one field varied, for reading the format bit by bit.
"""
import argparse
import json
import random
import sys

ESIZE_BITS = [8, 16, 32, 32, 64, 64, 16, 32, 64, 16, 32, 32, 32, 4, 4, 6]  # bits per element
NDTYPES, NIL, NSW, NL2, NOOB = 16, 3, 7, 4, 2


def pick(r, weighted):
    x = r.random() * sum(w for _, w in weighted)
    for v, w in weighted:
        x -= w
        if x <= 0:
            return v
    return weighted[-1][0]


def loguni(r, lo, hi):
    import math
    return int(round(math.exp(r.uniform(math.log(lo), math.log(hi)))))


def rand_dim(r):
    c = r.random()
    if c < 0.04:
        return r.choice([0, 1, 2**32, 2**32 + 1, 2**31, 2**32 - 1, 2**33])
    if c < 0.5:
        return r.randint(1, 300)
    return loguni(r, 1, 2**32)


def rand_address(r, align):
    c = r.random()
    if c < 0.05:
        return r.choice([0, 16, 2**48, 2**49 - 16, 2**56, 2**64 - 16, 2**47])
    a = r.getrandbits(r.choice([20, 32, 40, 47, 48, 49]))
    if c < 0.12:
        return a | r.choice([1, 2, 4, 8, 16])  # likely misaligned
    return a & ~(align - 1)


def strides_for(r, dims, ebits, mult):
    """Byte strides for dims 1.. as the driver wants them, with padding and occasional faults."""
    out = []
    row = (dims[0] * ebits + 7) // 8
    prev = row
    for i in range(1, len(dims)):
        c = r.random()
        if c < 0.05:
            s = r.choice([0, 8, 15, 16, 24, 2**40, 2**40 - 16, 2**40 + 16, 2**39 + 8, 2**41])
        elif c < 0.15:
            s = loguni(r, 1, 2**40) // 16 * 16 + r.choice([0, 0, 8, 16])
        else:
            base = max(prev, 16)
            s = ((base + mult - 1) // mult) * mult + mult * r.choice([0, 0, 0, 1, 2, r.randint(0, 64)])
        out.append(s)
        prev = s * max(dims[i], 1) if s else prev
        if prev > 2**42:
            prev = r.randint(16, 2**20)
    return out


def rand_box(r, rank, ebits, dims, swz):
    box = []
    for i in range(rank):
        c = r.random()
        if c < 0.04:
            b = r.choice([0, 257, 256, 1, 512])
        elif i == 0:
            span = {0: 256, 1: 32, 2: 64, 3: 128, 4: 128, 5: 128, 6: 128}.get(swz, 256)
            if r.random() < 0.8 and span:
                bytes_ = 16 * r.randint(1, max(1, span // 16))
                b = min(256, max(1, bytes_ * 8 // ebits))
            else:
                b = r.randint(1, 256)
        else:
            b = r.randint(1, 256) if r.random() < 0.5 else min(256, max(1, dims[i] if dims[i] < 300 else r.randint(1, 256)))
        box.append(b)
    return box


def rand_estrides(r, rank):
    if r.random() < 0.5:
        return [1] * rank
    return [r.choice([0, 9, 16]) if r.random() < 0.03 else r.randint(1, 8) for _ in range(rank)]


def common(r, kind):
    dtype = pick(r, [(d, 1) for d in range(NDTYPES)] + [(16, 0.05), (99, 0.02)])
    if kind == "tiled":
        rank = pick(r, [(1, 1), (2, 2), (3, 2), (4, 1.5), (5, 1.5), (0, 0.05), (6, 0.05)])
    else:
        rank = pick(r, [(3, 2), (4, 2), (5, 2), (2, 0.1), (1, 0.05), (6, 0.05)])
    il = pick(r, [(0, 6), (1, 1), (2, 1), (3, 0.05)])
    if il == 2 and r.random() < 0.7:
        swz = 1
    else:
        swz = pick(r, [(s, 1) for s in range(NSW)] + [(7, 0.05)])
    l2 = pick(r, [(v, 1) for v in range(NL2)] + [(4, 0.03)])
    oob = pick(r, [(0, 3), (1, 1), (2, 0.03)])
    ebits = ESIZE_BITS[dtype] if dtype < NDTYPES else 8
    n = max(rank, 1) if rank <= 6 else 6
    dims = [rand_dim(r) for _ in range(n)]
    if dtype in (13, 14, 15) and r.random() < 0.7:
        dims[0] = max(128, dims[0] // 128 * 128) if dtype != 13 else max(2, dims[0] // 2 * 2)
    mult = 32 if (il == 2 or dtype in (14, 15)) else 16
    strides = strides_for(r, dims, ebits, mult)
    align = 32 if mult == 32 else 16
    cfg = {"kind": kind, "dtype": dtype, "rank": rank, "address": rand_address(r, align), "dims": dims,
           "strides": strides, "elem_strides": rand_estrides(r, n), "interleave": il, "swizzle": swz,
           "l2": l2, "oob": oob}
    return cfg, ebits, n


def gen_tiled(r):
    cfg, ebits, n = common(r, "tiled")
    cfg["box"] = rand_box(r, n, ebits, cfg["dims"], cfg["swizzle"])
    if cfg["dtype"] in (14, 15) and r.random() < 0.7:
        cfg["box"][0] = 128
    return cfg


def corner(r, rank, spatial):
    lim = {3: 32768, 4: 128, 5: 16}.get(rank, 16)
    out = []
    for _ in range(spatial):
        c = r.random()
        if c < 0.1:
            out.append(r.choice([-lim - 1, lim, -lim, lim - 1, 0]))
        else:
            out.append(r.randint(-lim, lim - 1) if r.random() < 0.3 else r.randint(-min(lim, 4), min(lim, 4) - 1))
    return out


def gen_im2col(r):
    cfg, ebits, n = common(r, "im2col")
    spatial = max(min(n, 5) - 2, 1)
    cfg["lower"] = corner(r, cfg["rank"], spatial)
    cfg["upper"] = corner(r, cfg["rank"], spatial)
    c = r.random()
    cfg["channels"] = r.choice([0, 257, 512]) if c < 0.04 else (16 * r.randint(1, 16) * 8 // ebits if c < 0.8 else r.randint(1, 256))
    cfg["channels"] = min(cfg["channels"], 600)
    c = r.random()
    cfg["pixels"] = r.choice([0, 1025, 2048]) if c < 0.04 else r.randint(1, 1024) if c < 0.5 else r.randint(1, 256)
    return cfg


def gen_im2col_wide(r):
    cfg = gen_im2col(r)
    cfg["kind"] = "im2col_wide"
    lim = 32768
    cfg["lower"] = [r.choice([-lim - 1, lim, 0, r.randint(-8, 7), r.randint(-lim, lim - 1)])]
    cfg["upper"] = [r.choice([-lim - 1, lim, 0, r.randint(-8, 7), r.randint(-lim, lim - 1)])]
    cfg["mode"] = pick(r, [(0, 1), (1, 1), (2, 0.05)])
    return cfg


BASE = {"kind": "tiled", "dtype": 9, "rank": 3, "address": 0x7f0000000000, "dims": [64, 100, 7],
        "strides": [128, 12800], "box": [64, 32, 2], "elem_strides": [1, 1, 1], "interleave": 0,
        "swizzle": 3, "l2": 2, "oob": 0}


def onefactor():
    """A valid baseline and single-field variations: makes every field's bit position readable."""
    out = [dict(BASE)]

    def var(**kw):
        c = json.loads(json.dumps(BASE))
        for k, v in kw.items():
            c[k] = v
        out.append(c)

    for b in range(4, 64):
        var(address=BASE["address"] ^ (1 << b))
    for i in range(3):
        for b in range(0, 33):
            d = list(BASE["dims"])
            d[i] = (1 << b) if b < 32 else 2**32
            s = [max(128, d[0] * 2 // 16 * 16 + 16 * (d[0] * 2 % 16 != 0)), 0]
            s[1] = s[0] * d[1]
            if s[1] >= 2**40:
                s[1] = s[0]
            var(dims=d, strides=s)
            d2 = list(BASE["dims"])
            d2[i] = (1 << b) + 1 if b < 32 else 2**32 - 1
            var(dims=d2, strides=[max(128, (d2[0] * 2 + 15) // 16 * 16), max(128, (d2[0] * 2 + 15) // 16 * 16) * d2[1]] if i < 2 else BASE["strides"])
    for i in range(2):
        for b in range(4, 41):
            s = list(BASE["strides"])
            s[i] = (1 << b) if b < 40 else 2**40 - 16
            var(strides=s)
    for i in range(3):
        for v in list(range(1, 257)):
            bx = list(BASE["box"])
            bx[i] = v
            if i == 0:
                var(box=bx, swizzle=0)
            else:
                var(box=bx)
    for i in range(3):
        for v in range(1, 9):
            e = list(BASE["elem_strides"])
            e[i] = v
            var(elem_strides=e)
    for t in range(16):
        var(dtype=t, swizzle=0, box=[16 if t not in (13, 14, 15) else 128, 32, 2], dims=[128, 100, 7], strides=[256, 25600])
    for s in range(7):
        var(swizzle=s, box=[16, 32, 2])
    for l in range(4):
        var(l2=l)
    for o in range(2):
        var(oob=o)
    for il in range(3):
        var(interleave=il, swizzle=1 if il == 2 else 0, box=[8, 32, 2])
    for rank in range(1, 6):
        var(rank=rank, dims=[64, 100, 7, 5, 3][:rank], strides=[128, 12800, 89600, 448000][:rank - 1],
            box=[64, 32, 2, 4, 3][:rank], elem_strides=[1] * rank)
    # im2col baseline variations
    ib = {"kind": "im2col", "dtype": 9, "rank": 4, "address": 0x7f0000000000, "dims": [64, 30, 30, 8],
          "strides": [128, 3840, 115200], "elem_strides": [1, 1, 1, 1], "interleave": 0, "swizzle": 3,
          "l2": 2, "oob": 0, "lower": [-1, -1], "upper": [1, 1], "channels": 64, "pixels": 128}
    out.append(dict(ib))
    for k in ("lower", "upper"):
        for i in range(2):
            for v in range(-128, 128):
                c = json.loads(json.dumps(ib))
                c[k][i] = v
                out.append(c)
    for v in range(1, 257):
        c = json.loads(json.dumps(ib)); c["channels"] = v; c["swizzle"] = 0; out.append(c)
    for v in range(1, 1025):
        c = json.loads(json.dumps(ib)); c["pixels"] = v; out.append(c)
    for rank, lo, up in ((3, [-5], [7]), (5, [-2, -3, -4], [1, 2, 3])):
        for v in range(-40000, 40000, 997) if rank == 3 else range(-17, 17):
            c = json.loads(json.dumps(ib))
            c["rank"] = rank
            c["dims"] = [64, 30, 30, 8, 4][:rank]
            c["strides"] = [128, 3840, 115200, 921600][:rank - 1]
            c["elem_strides"] = [1] * rank
            c["lower"] = list(lo); c["upper"] = list(up)
            c["lower"][0] = v
            out.append(c)
            c2 = json.loads(json.dumps(c)); c2["lower"] = list(lo); c2["upper"][-1] = v; out.append(c2)
    for e in range(1, 9):
        for i in range(4):
            c = json.loads(json.dumps(ib)); c["elem_strides"][i] = e; out.append(c)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--family", default="mix", choices=["mix", "tiled", "im2col", "im2col_wide", "onefactor"])
    a = ap.parse_args()
    w = sys.stdout.write
    if a.family == "onefactor":
        for c in onefactor():
            w(json.dumps(c, separators=(",", ":")) + "\n")
        return
    r = random.Random(a.seed)
    fams = {"tiled": gen_tiled, "im2col": gen_im2col, "im2col_wide": gen_im2col_wide}
    for _ in range(a.count):
        if a.family == "mix":
            f = pick(r, [(gen_tiled, 6), (gen_im2col, 3), (gen_im2col_wide, 1)])
        else:
            f = fams[a.family]
        w(json.dumps(f(r), separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()

"""The recorded driver vectors (tests/data/driver_sm90.jsonl.gz: cuTensorMapEncode* on an H200,
driver 580.159.04) through the Python API: every line gets the driver's decision, every accepted
line the driver's 128 bytes, through tmakit.encode_tiled / encode_im2col / encode_im2col_wide with
the line's fields as keyword arguments."""

import gzip
import json

import pytest

import tmakit

ENCODERS = {"tiled": tmakit.encode_tiled, "im2col": tmakit.encode_im2col, "im2col_wide": tmakit.encode_im2col_wide}
# The keyword arguments the encoders take (the recorded lines also carry result and bytes).
PARAMS = ("dtype", "dims", "strides", "box", "elem_strides", "interleave", "swizzle", "l2", "oob", "address", "arch",
          "rank", "lower", "upper", "channels", "pixels", "mode")


def lines(source_dir):
    with gzip.open(source_dir / "tests" / "data" / "driver_sm90.jsonl.gz", "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_every_recorded_decision_and_every_accepted_byte(source_dir):
    meta = json.loads((source_dir / "tests" / "data" / "driver_sm90.meta.json").read_text())
    recorded = lines(source_dir)
    assert len(recorded) == meta["lines"]
    decisions = accepted = bytes_agree = 0
    disagreements = []
    for rec in recorded:
        kind = rec.get("kind", "tiled")
        kw = {k: rec[k] for k in PARAMS if k in rec}
        if kind == "im2col_wide":
            for k in ("lower", "upper"):
                if isinstance(kw.get(k), list):
                    kw[k] = kw[k][0] if kw[k] else 0
        kw.setdefault("arch", "sm_90")
        try:
            m = ENCODERS[kind](**kw)
            result = 0
        except tmakit.Refused:
            m, result = None, 1
        if result == rec["result"]:
            decisions += 1
        elif len(disagreements) < 5:
            disagreements.append(rec)
        if result == 0 and rec["result"] == 0:
            accepted += 1
            bytes_agree += m.hex() == rec["bytes"]
    assert disagreements == []
    assert decisions == len(recorded)
    assert accepted == meta["accepted"]
    assert bytes_agree == accepted


def test_generic_encode_takes_a_recorded_line_as_it_is(source_dir):
    # tmakit.encode() reads the JSON lines schema itself (unknown keys such as "bytes" ignored).
    rec = next(r for r in lines(source_dir) if r["result"] == 0)
    assert tmakit.encode(rec).hex() == rec["bytes"]
    refused = next(r for r in lines(source_dir) if r["result"] == 1)
    with pytest.raises(tmakit.Refused) as e:
        tmakit.encode(refused)
    assert e.value.violations and all(v.rule for v in e.value.violations)

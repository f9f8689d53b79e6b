"""tmakit.check_gather: a descriptor for Blackwell's TMA row gather / scatter on a target, checked as
`tmakit check-gather` checks it (the same rule ids, words and JSON)."""

import json
import subprocess

import pytest

from cli_outcome import without_outcome

import tmakit

ROWS = dict(dtype="bf16", dims=[4096, 65536], strides=[8192], swizzle="128B", arch="sm_100")


@pytest.fixture(scope="module")
def rows():
    """bf16 rows of 4096 elements, box {64, 1}: a map gather4 can use."""
    return tmakit.encode_tiled(box=[64, 1], **ROWS)


def refused(descriptor, **kw):
    with pytest.raises(tmakit.Refused) as e:
        tmakit.check_gather(descriptor, **kw)
    return e.value


def test_one_copy_delivers_four_rows(rows):
    g = tmakit.check_gather(rows, op="gather4", arch="sm_100a", armed_bytes=512)
    assert (g.row_bytes, g.copy_bytes, g.box_bytes, g.expect_tx) == (128, 512, 128, 512)
    assert g.instruction.startswith("cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4")
    assert g.dst == "cta" and g.target == "sm_100a"
    assert "unverified on hardware" in str(g)
    g = tmakit.check_gather(rows, op="gather4", arch="sm_100", dst="multicast", copies=4)
    assert g.expect_tx == 2048
    s = tmakit.check_gather(rows, op="scatter4", arch="103")
    assert s.dst is None and s.expect_tx is None and s.copy_bytes == 512


@pytest.mark.parametrize("op, arch, dst, rule", [
    ("gather4", "sm_90a", None, "gather4.arch"),
    ("gather4", "sm_90a", "multicast", "gather4.arch"),
    ("gather4", "sm_120a", "cluster", "gather4.cluster_destination"),
    ("gather4", "sm_120a", "multicast", "gather4.cluster_destination"),
    ("scatter4", "sm_90a", None, "scatter4.arch"),
    ("scatter4", "sm_120a", None, "scatter4.arch"),
])
def test_each_target_rule_fires_where_the_form_does_not_exist(rows, op, arch, dst, rule):
    assert refused(rows, op=op, arch=arch, dst=dst).rules == [rule]


@pytest.mark.parametrize("op, arch, dst", [
    ("gather4", "sm_100a", "cluster"), ("gather4", "sm_103a", "multicast"), ("gather4", "sm_120a", "cta"),
    ("scatter4", "sm_100a", None), ("scatter4", "sm_103a", None),
])
def test_no_target_rule_where_the_form_exists(rows, op, arch, dst):
    assert tmakit.check_gather(rows, op=op, arch=arch, dst=dst).copy_bytes == 512


def test_the_capability_table_says_the_same(rows):
    for cap in tmakit.capabilities()["capabilities"]:
        if cap["id"] not in ("gather4", "scatter4"):
            continue
        for target, c in cap["cells"].items():
            try:
                tmakit.check_gather(rows, op=cap["id"], arch=target)
                ok = True
            except tmakit.Refused:
                ok = False
            assert ok is c["value"], (cap["id"], target)


def test_map_rules(rows):
    box4 = tmakit.encode_tiled(box=[64, 4], **ROWS)
    assert refused(box4, op="gather4", arch="sm_100").rules == ["gather4.box_rows"]
    rank3 = tmakit.encode_tiled(dtype="bf16", dims=[64, 128, 32], strides=[128, 16384], box=[64, 1, 1], arch="sm_100")
    e = refused(rank3, op="scatter4", arch="sm_100")
    assert e.rules == ["gather4.rank"]
    assert e.violations[0].fix.startswith("encode it as rank 2: globalDim {64, 4096}, globalStrides {128}")
    im2col = tmakit.encode_im2col(dtype="bf16", dims=[64, 32, 32, 8], strides=[128, 4096, 131072], lower=[-1, -1],
                                  upper=[-1, -1], channels=64, pixels=64, arch="sm_100")
    assert refused(im2col, op="gather4", arch="sm_100").rules == ["gather4.mode"]
    # boxDim[0] - 1 patched to 127 (byte 55): 256-byte rows under a 128-byte swizzle, the tile mode's own rule
    wide = bytearray(rows)
    wide[55] = 127
    assert refused(bytes(wide), op="gather4", arch="sm_100").rules == ["swizzle.inner_box_span"]


def test_armed_bytes(rows):
    e = refused(rows, op="gather4", arch="sm_100", armed_bytes=128)
    assert e.rules == ["gather4.armed_bytes"]
    assert "128 B is the map's box, one row, where a gather4 copy delivers four" in e.violations[0].message
    assert e.violations[0].fix.startswith("arm 512 B")
    assert refused(rows, op="gather4", arch="sm_100", armed_bytes=1024, copies=1).rules == ["gather4.armed_bytes"]
    assert refused(rows, op="scatter4", arch="sm_100", armed_bytes=512).rules == ["scatter4.armed_bytes"]


def test_every_finding_at_once(rows):
    box4 = tmakit.encode_tiled(box=[64, 4], **ROWS)
    e = refused(box4, op="gather4", arch="sm_120a", dst="cluster", armed_bytes=128)
    assert e.rules == ["gather4.cluster_destination", "gather4.box_rows", "gather4.armed_bytes"]


@pytest.mark.parametrize("kw", [
    dict(op="gather8", arch="sm_100"), dict(op="gather4", arch="sm_121a"), dict(op="gather4", arch="sm_100", dst="global"),
    dict(op="scatter4", arch="sm_100", dst="cta"), dict(op="scatter4", arch="sm_100", copies=2),
    dict(op="gather4", arch="sm_100", copies=0), dict(op="gather4", arch="sm_100", dst=""),
])
def test_bad_usage_is_a_value_error(rows, kw):
    with pytest.raises(ValueError):
        tmakit.check_gather(rows, **kw)


@pytest.mark.parametrize("kw", [dict(armed_bytes=1.5), dict(armed_bytes=True), dict(copies="2")])
def test_a_wrong_type_is_a_type_error(rows, kw):
    with pytest.raises(TypeError):
        tmakit.check_gather(rows, op="gather4", arch="sm_100", **kw)


@pytest.mark.parametrize("args", [
    ["--op", "gather4", "--arch", "sm_100a", "--armed-bytes", "512"],
    ["--op", "gather4", "--arch", "sm_120a", "--dst", "multicast", "--armed-bytes", "128"],
    ["--op", "scatter4", "--arch", "sm_120a"],
])
def test_the_same_answer_as_the_cli(cli, rows, args):
    out = subprocess.run([cli, "check-gather", rows.hex(), *args, "--json"], capture_output=True, text=True)
    cli_json = without_outcome(json.loads(out.stdout))
    if out.returncode == 0:
        assert {k: v for k, v in tmakit.check_gather(rows, **_kw(args)).json.items() if k != "text"} == cli_json
    else:
        assert refused(rows, **_kw(args)).rules == [e["rule"] for e in cli_json["errors"]]
        assert [v.message for v in refused(rows, **_kw(args)).violations] == [e["message"] for e in cli_json["errors"]]


def _kw(args):
    names = {"--op": "op", "--arch": "arch", "--dst": "dst", "--armed-bytes": "armed_bytes"}
    kw = {names[args[i]]: args[i + 1] for i in range(0, len(args), 2)}
    if "armed_bytes" in kw:
        kw["armed_bytes"] = int(kw["armed_bytes"])
    return kw

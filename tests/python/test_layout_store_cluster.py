"""Layout algebra, store plans and cluster plans from Python, against the CLI for the same input."""

import json
import subprocess

import pytest

import tmakit
from cli_outcome import without_outcome
from tmakit import Layout


def cli_json(cli, *args):
    out = subprocess.run([cli, *args, "--json"], capture_output=True, text=True)
    return out.returncode, json.loads(out.stdout)


@pytest.mark.parametrize("op,a,b", [
    ("composition", "(4,8):(8,1)", "(2,2)"),
    ("logical_divide", "(8,16):(16,1)", "<2:1,4:1>"),
    ("zipped_divide", "(8,16):(16,1)", "<2:1,4:1>"),
    ("tiled_divide", "(8,16):(16,1)", "<2:1,4:1>"),
    ("logical_product", "(2,2):(1,2)", "4:1"),
    ("blocked_product", "(2,2):(1,2)", "(2,3):(1,2)"),
    ("raked_product", "(2,2):(1,2)", "(2,3):(1,2)"),
    ("max_common_layout", "(4,8):(1,4)", "(4,8):(1,4)"),
])
def test_operations_equal_the_cli(cli, op, a, b):
    got = str(getattr(Layout(a), op)(b))
    rc, j = cli_json(cli, "layout", op, a, b)
    assert rc == 0 and got == j["result"]


def test_one_argument_operations_and_queries(cli):
    a = Layout("((2,2),3):((1,4),2)")
    assert str(a) == "((2,2),3):((1,4),2)" and repr(a) == "Layout('((2,2),3):((1,4),2)')"
    assert (a.size(), a.cosize(), a.rank, a.depth, len(a)) == (12, 10, 2, 2, 12)
    assert [a(i) for i in range(4)] == [0, 1, 4, 5]
    for op in ("coalesce", "right_inverse"):
        rc, j = cli_json(cli, "layout", op, str(a))
        assert str(getattr(a, op)()) == j["result"]
    assert a.compose("(2,2)") == a.composition("(2,2)")
    assert a.max_common_vector("12:1") == 2
    assert str(Layout("(2,2):(1,4)").complement()) == "2:2"
    assert Layout("(4,8)") == Layout("(4,8):(1,4)")


def test_refusals_carry_the_layout_rule(cli):
    with pytest.raises(tmakit.Refused) as e:
        Layout("(2,3):(3,2)").left_inverse()  # strides not each a multiple of the next smaller one
    rc, j = cli_json(cli, "layout", "left_inverse", "(2,3):(3,2)")
    assert rc == 1 and e.value.rules == [j["error"]["rule"]]
    assert e.value.violations[0].message == j["error"]["message"] and e.value.violations[0].fix == j["error"]["fix"]
    with pytest.raises(ValueError, match="position"):
        Layout("(4,8:(8,1)")


def test_print_and_svg_equal_the_cli(cli, tmp_path):
    sw = Layout("Sw<3,4,3> o (8,64):(64,1)")
    out = subprocess.run([cli, "layout", "print", str(sw), "--dtype", "bf16"], capture_output=True, text=True)
    assert sw.print(dtype="bf16") == out.stdout
    svg = tmp_path / "a.svg"
    subprocess.run([cli, "layout", "print", str(sw), "--dtype", "bf16", "--svg", str(svg)], check=True, capture_output=True)
    assert sw.svg(dtype="bf16") == svg.read_text()
    assert sw.offsets(dtype="bf16")[1][:8] == [72, 73, 74, 75, 76, 77, 78, 79]  # row 1: chunk 0 XOR 1
    with pytest.raises(ValueError, match="needs dtype"):
        sw.print()
    with pytest.raises(tmakit.Refused) as e:
        Layout("(512,512):(512,1)").print()
    assert e.value.rules == ["layout.too_large_to_draw"]


def test_smem_store_equals_the_cli(cli):
    p = tmakit.smem_store("wgmma m64n128 f32->bf16", "kmajor sw128")
    rc, j = cli_json(cli, "smem-store", "--src", "wgmma m64n128 f32->bf16", "--dst", "kmajor sw128")
    # The CLI's JSON adds its process outcome ("ok", "exit": docs/cli.md); the answer is the same.
    assert rc == 0 and without_outcome({k: v for k, v in p.json.items() if k not in ("text", "svg")}) == without_outcome(j)
    assert p.instruction.startswith("stmatrix") and p.svg.startswith("<svg")


def test_smem_store_refusal(cli):
    args = ("tcgen05 32x32b.x8 n128 f32->bf16", "Sw<3,3,3> o ((8,16),(64,2)):((64,512),(1,8192))")
    with pytest.raises(tmakit.Refused) as e:
        tmakit.smem_store(*args)
    out = subprocess.run([cli, "smem-store", "--src", args[0], "--dst", args[1]], capture_output=True, text=True)
    assert out.returncode == 1 and e.value.rules == ["smem_store.dest.swizzle_units"]
    v = e.value.violations[0]
    assert f"{v.message}; fix: {v.fix}" in out.stderr
    assert tmakit.smem_store(*args, elements=True).ok


def test_multicast_plan_accounts_every_cta():
    box = tmakit.encode_tiled(dtype="bf16", dims=[4096, 4096], strides=[8192], box=[64, 128], swizzle="128B")
    p = tmakit.multicast(box, cluster=(2, 2), share="y", mode="sliced")
    assert p.decision == "sliced" and p.tile_bytes == 16384
    assert [c["expect_bytes"] for c in p.ctas] == [16384] * 4
    assert [c["bytes"] for c in p.ctas] == [8192] * 4 and [c["mask"] for c in p.ctas] == [5, 10, 5, 10]
    with pytest.raises(tmakit.Refused) as e:
        tmakit.multicast(box, cluster=(4, 8), share="x")
    assert e.value.rules == ["cluster.size"]


def test_dsmem_copy_plan():
    p = tmakit.dsmem_copy("(64,32):(1,68)", "(64,32):(1,64)", dtype="f32")
    assert p.path == "bulk_multi" and p.tx_bytes == 8192 and p.issuing_threads == 1 and len(p.pieces) == 32
    q = tmakit.dsmem_copy("(64,16):(1,64)", "Sw<3,4,3> o (64,16):(1,64)", dtype="bf16")
    assert q.path == "st_async" and q.tx_bytes == 2048

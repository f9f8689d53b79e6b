"""What Python refuses, and with which rule: the CLI's rule id for the same input, or TypeError for a
value of no parameter's type. Nothing is read as "missing", padded, cut short, wrapped or written past
a fixed capacity."""

import json
import math
import subprocess

import pytest

import tmakit

KW = dict(dtype="bf16", dims=[4096, 4096], strides=[8192], box=[64, 128])
GMEM, SMEM, TILE = "bf16 (4096,4096):(4096,1)", "Sw<3,4,3> o (128,64):(64,1)", "M=128,K=64"


def cli_json(cli, *args):
    out = subprocess.run([cli, *args, "--json"], capture_output=True, text=True)
    return out.returncode, json.loads(out.stdout)


@pytest.mark.parametrize("key,value", [("dtype", None), ("address", None), ("swizzle", None), ("arch", None),
                                       ("address", math.nan), ("address", math.inf), ("swizzle", -math.inf),
                                       ("address", True), ("address", 16.0), ("dims", [4096.0, 4096])])
def test_none_nan_inf_bool_and_float_are_type_errors(key, value):
    # None, NaN and infinities were read as "missing" (JSON writes the last two as null): the default
    # dtype, address, swizzle or arch was encoded instead
    with pytest.raises(TypeError, match=key):
        tmakit.encode_tiled(**{**KW, key: value})
    with pytest.raises(TypeError):
        tmakit.encode({**KW, key: value})


def test_rank_and_elem_strides_default_to_none():
    assert tmakit.encode_tiled(**KW, rank=None, elem_strides=None) == tmakit.encode_tiled(**KW)


def test_a_2d_map_without_strides_is_refused_as_the_cli_refuses_it(cli):
    # it encoded globalStrides[0] = 0: every row read row 0
    with pytest.raises(tmakit.Refused) as e:
        tmakit.encode_tiled(dtype="bf16", dims=[4096, 4096], box=[64, 128])
    rc, out = cli_json(cli, "encode", "tiled", "--dtype", "bf16", "--dims", "4096,4096", "--box", "64,128")
    assert rc == 2 and e.value.rules == [out["error"]["rule"]] == ["usage.value"]
    assert "strides: expected 1 value" in str(e.value)


@pytest.mark.parametrize("change,key", [
    (dict(box=[64]), "box"), (dict(box=[64, 128, 1]), "box"), (dict(strides=[8192, 8192]), "strides"),
    (dict(elem_strides=[1]), "elem_strides"), (dict(rank=3), "rank"), (dict(dims=[]), "dims"),
])
def test_lists_are_never_padded_or_cut(change, key):
    with pytest.raises(tmakit.Refused) as e:
        tmakit.encode_tiled(**{**KW, **change})
    assert e.value.rules == ["usage.value"] and e.value.violations[0].field == key
    with pytest.raises(tmakit.Refused):
        tmakit.validate(**{**KW, **change})


@pytest.mark.parametrize("kind", [-1, 3, 99])
def test_a_kind_number_no_map_has_is_refused_by_the_library(kind):
    # the list-length check takes kind 0..2 only; any other number goes to the library's own rule
    # (it raised AttributeError here once: found by test_properties.py)
    with pytest.raises(tmakit.Refused) as e:
        tmakit.encode({"dims": [0], "kind": kind})
    assert e.value.rules and all(isinstance(r, str) for r in e.value.rules)


def test_im2col_corners_one_per_spatial_dim(cli):
    kw = dict(dtype="f16", dims=[64, 32, 32, 8], strides=[128, 4096, 131072], lower=[-1, -1], upper=[1, 1],
              channels=64, pixels=128)
    assert tmakit.encode_im2col(**kw).lower == [-1, -1]
    for key in ("lower", "upper"):
        for corners in ([-1], [-1, -1, -1]):
            with pytest.raises(tmakit.Refused) as e:
                tmakit.encode_im2col(**{**kw, key: corners})
            assert e.value.rules == ["usage.value"] and e.value.violations[0].field == key
    rc, out = cli_json(cli, "encode", "im2col", "--dtype", "f16", "--dims", "64,32,32,8", "--strides", "128,4096,131072",
                       "--lower", "-1", "--upper", "1,1", "--channels", "64", "--pixels", "128")
    assert rc == 2 and out["error"]["rule"] == "usage.value"


@pytest.mark.parametrize("value", [2**64, 2**70, -(2**63) - 1, 2**2000])
def test_integers_beyond_64_bits_are_range_refusals(value):
    # 2**2000 ended in SystemError (an OverflowError left set by the conversion)
    with pytest.raises(tmakit.Refused) as e:
        tmakit.encode_tiled(**{**KW, "address": value})
    assert e.value.rules == ["input.range"] and str(value)[:20] in str(e.value)


def test_cyclic_and_deep_lists_are_type_errors():
    cyclic = []
    cyclic.append(cyclic)
    with pytest.raises(TypeError, match="nested more than 8 levels"):
        tmakit.encode(kind="tiled", dtype="bf16", dims=cyclic, box=[64])
    deep = [64]
    for _ in range(100_000):  # deeper than the interpreter's own recursion limit
        deep = [deep]
    with pytest.raises(TypeError, match="nested more than 8 levels"):
        tmakit.encode(kind="tiled", dtype="bf16", dims=[64], box=deep)
    d = {}
    d["self"] = d
    with pytest.raises(TypeError):
        tmakit.encode(kind="tiled", dtype="bf16", dims=[64], box=[64], extra=d)


@pytest.mark.parametrize("cluster,words", [((0, 1), "dimension x has 0 CTAs"), ((16, 16), "= 256 CTAs"),
                                           ((1, 1, 1, 1), "expected 1 to 3 CTA counts"), ((4, 2, 4), "= 32 CTAs")])
def test_plan_clusters_as_the_cli_checks_them(cli, cluster, words):
    with pytest.raises(tmakit.Refused, match=words) as e:
        tmakit.plan(GMEM, SMEM, TILE, cluster=cluster)
    rc, out = cli_json(cli, "plan", "--gmem", GMEM, "--smem", SMEM, "--tile", TILE, "--cluster",
                       ",".join(map(str, cluster)))
    assert rc == 2 and e.value.rules == [out["error"]["rule"]] == ["usage.value"]
    assert tmakit.plan(GMEM, SMEM, TILE, cluster=(4, 4)).expect_tx == 16384


def test_multicast_refuses_empty_and_overlong_clusters():
    m = tmakit.encode_tiled(**KW)
    with pytest.raises(tmakit.Refused) as e:
        tmakit.multicast(m, cluster=(0, 1), share="x")
    assert e.value.rules == ["cluster.size"]
    with pytest.raises(tmakit.Refused) as e:
        tmakit.multicast(m, cluster=(1, 1, 1, 1), share="x")
    assert e.value.rules == ["usage.value"]
    with pytest.raises(ValueError, match="each cluster dimension once"):
        tmakit.multicast(m, cluster=(2, 2), share="xyx")  # was read as "xy"
    assert tmakit.multicast(m, cluster=(2, 2), share="xy").decision


def test_plan_box_beyond_the_planners_modes():
    # ten modes were written into an eight-entry table (stack overflow)
    ten = "bf16 (2,2,2,2,2,2,2,2,2,2):(1,2,4,8,16,32,64,128,256,512)"
    with pytest.raises(tmakit.Refused) as e:
        tmakit.plan_box(ten, box=[1] * 10)
    assert e.value.rules == ["gmem.rank"]
    with pytest.raises(tmakit.Refused) as e:
        tmakit.tensor_map(ten, box=[2] * 10)
    assert e.value.rules == ["gmem.rank"]
    with pytest.raises(tmakit.Refused) as e:
        tmakit.plan_box(GMEM, box=[0, 64])
    assert e.value.rules == ["tile.extent"]
    with pytest.raises(tmakit.Refused) as e:
        tmakit.plan_box(GMEM, box=[2**40, 2**40])  # the box's row-major strides left int64
    assert e.value.rules == ["layout.size_range"]


def test_plan_coordinates_never_wrap():
    p = tmakit.plan(GMEM, SMEM, TILE)
    assert p.instruction(0, [1, 1]) == {"coord": [64, 128], "smem_offset": 0}
    with pytest.raises(tmakit.Refused) as e:
        p.instruction(0, [2**31 - 1, 1])  # 128 (2^31 - 1) wrapped to a coordinate inside the tensor
    assert e.value.rules == ["plan.coord_range"] and "274877906816" in str(e.value)
    assert p.instruction(0, [2**24 - 1, 0])["coord"] == [0, 128 * (2**24 - 1)]


def test_layout_evaluation_never_wraps(cli):
    big = tmakit.Layout("(4,4):(4611686018427387904,4611686018427387904)")
    with pytest.raises(tmakit.Refused) as e:
        big(15)
    assert e.value.rules == ["layout.overflow"]
    rc, out = cli_json(cli, "layout", "print", "(4,4):(4611686018427387904,4611686018427387904)")  # every offset
    assert rc == 1 and out["error"]["rule"] == "layout.overflow"
    assert tmakit.Layout("(4,8):(8,1)")(9) == 10
    with pytest.raises(tmakit.Refused) as e:
        tmakit.Layout("(4,8):(2305843009213693952,1)").byte_offset(3, 8)
    assert e.value.rules == ["layout.overflow"]
    with pytest.raises(tmakit.Refused) as e:
        tmakit.Layout("(4,8):(-8,1)").byte_offset(1, 2)
    assert e.value.rules == ["layout.negative_stride"]
    with pytest.raises(IndexError):
        tmakit.Layout("(4,8):(8,1)").byte_offset(32, 2)
    assert tmakit.Layout("Sw<3,4,3> o (8,64):(64,1)").byte_offset(65, 2) == 128


@pytest.mark.parametrize("strides", ["(16,100000)", "(16,-100000)", "(4611686018427387904,4611686018427387904)"])
def test_store_sources_outside_the_tile_are_refused_as_by_the_cli(cli, strides):
    src = f"tv ((4,8),(2,2)):((32,1),{strides}) 16x8 f32->bf16"
    with pytest.raises(tmakit.Refused) as e:
        tmakit.smem_store(src, "(16,8):(8,1)")
    rc, out = cli_json(cli, "smem-store", "--src", src, "--dst", "(16,8):(8,1)")
    assert rc == 1 and e.value.rules == [out["error"]["rule"]] == ["smem_store.source.out_of_tile"]
    assert e.value.violations[0].message == out["error"]["message"]


def test_store_options_that_change_nothing(cli):
    with pytest.raises(tmakit.Refused) as e:
        tmakit.smem_store("wgmma m64n128 f32->bf16", "kmajor sw128", elements=True)
    rc, out = cli_json(cli, "smem-store", "--src", "wgmma m64n128 f32->bf16", "--dst", "kmajor sw128", "--elements")
    assert rc == 2 and e.value.rules == [out["error"]["rule"]] == ["usage.conflict"]
    with pytest.raises(ValueError, match="nN given twice"):
        tmakit.smem_store("wgmma m64n128 n64 f32->bf16", "kmajor sw128")

"""Property tests of the Python bindings (Hypothesis): for any argument, a call answers, refuses with
a rule (tmakit.Refused), or raises TypeError / ValueError / IndexError for bad usage; it never
crashes, never raises anything else (SystemError, OverflowError), and what it answers is exact
(recomputed here with Python's unbounded integers)."""

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import os  # noqa: E402

import tmakit  # noqa: E402

# TMAKIT_PROPERTY_EXAMPLES: examples per property (200 in the suite; a long run sets more).
SETTINGS = settings(max_examples=int(os.environ.get("TMAKIT_PROPERTY_EXAMPLES", "200")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
INT32 = (-(2**31), 2**31 - 1)
BAD_USAGE = (tmakit.Refused, TypeError, ValueError, IndexError)

# Any value the argument conversion may meet: integers of any size, the values of no parameter's
# type, names, and lists / dicts of them.
scalars = st.one_of(st.integers(), st.integers(-(2**70), 2**70), st.none(), st.booleans(), st.floats(),
                    st.sampled_from(["bf16", "128B", "sm_90", "tiled", "im2col", "x", ""]), st.text(max_size=8))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=6),
                                                       st.dictionaries(st.text(max_size=4), inner, max_size=3)),
                      max_leaves=12)
KEYS = ["kind", "arch", "dtype", "rank", "address", "dims", "strides", "box", "elem_strides", "interleave", "swizzle",
        "l2", "oob", "lower", "upper", "channels", "pixels", "mode"]


@SETTINGS
@given(st.dictionaries(st.sampled_from(KEYS), values, max_size=10))
def test_encode_answers_or_refuses(fields):
    try:
        m = tmakit.encode(fields)
    except BAD_USAGE:
        return
    assert len(m) == 128 and tmakit.decode(m).round_trips


def layout_text(modes):
    return f"({','.join(str(m[0]) for m in modes)}):({','.join(str(m[1]) for m in modes)})"


def exact_offset(shape, stride, i):
    off = 0
    for s, d in zip(shape, stride):
        off += (i % s) * d
        i //= s
    return off


@SETTINGS
@given(st.lists(st.tuples(st.integers(1, 8), st.one_of(st.integers(-64, 64), st.integers(-(2**62), 2**62))),
                min_size=1, max_size=4), st.integers(-2, 5000))
def test_layout_evaluation_is_exact_or_refused(modes, i):
    shape, stride = [s for s, _ in modes], [d for _, d in modes]
    layout = tmakit.Layout(layout_text(modes))
    size = 1
    for s in shape:
        size *= s
    reach = sum(abs((s - 1) * d) for s, d in modes)
    try:
        got = layout(i)
    except IndexError:
        assert not 0 <= i < size
        return
    except tmakit.Refused as e:
        assert e.rules == ["layout.overflow"] and reach >= 2**63
        return
    assert 0 <= i < size and reach < 2**63 and got == exact_offset(shape, stride, i)


PLAN = tmakit.plan("bf16 (4096,8192):(8192,1)", "Sw<3,4,3> o ((128,2),64):((64,8192),1)", "M=256,K=64")


@SETTINGS
@given(st.lists(st.integers(*INT32), min_size=2, max_size=2))
def test_plan_coordinates_are_exact_or_refused(tile):
    k = len(PLAN.instructions) - 1
    base = PLAN.instruction(k, [0, 0])["coord"]
    steps = [[b - a for a, b in zip(base, PLAN.instruction(k, unit)["coord"])] for unit in ([1, 0], [0, 1])]
    exact = [base[j] + tile[0] * steps[0][j] + tile[1] * steps[1][j] for j in range(len(base))]
    try:
        got = PLAN.instruction(k, tile)["coord"]
    except tmakit.Refused as e:
        assert e.rules == ["plan.coord_range"] and any(not INT32[0] <= c <= INT32[1] for c in exact)
        return
    assert got == exact


@SETTINGS
@given(st.lists(st.one_of(st.integers(-40, 40), st.integers(-(2**62), 2**62)), min_size=4, max_size=4))
def test_store_sources_outside_the_tile_are_refused(strides):
    # ((4,8),(2,2)):((s0,s1),(s2,s3)) over a 16 x 8 tile: inside exactly when every reachable index is
    shape = [4, 8, 2, 2]
    src = f"tv ((4,8),(2,2)):(({strides[0]},{strides[1]}),({strides[2]},{strides[3]})) 16x8 f32->bf16"
    lo = sum((s - 1) * d for s, d in zip(shape, strides) if d < 0)
    hi = sum((s - 1) * d for s, d in zip(shape, strides) if d > 0)
    try:
        tmakit.smem_store(src, "(16,8):(8,1)")
    except tmakit.Refused as e:
        inside = lo >= 0 and hi < 128
        assert (e.rules == ["smem_store.source.out_of_tile"]) == (not inside), (e.rules, lo, hi)
        return
    assert lo >= 0 and hi < 128


@SETTINGS
@given(st.binary(min_size=128, max_size=128))
def test_any_128_bytes_decode_and_check_against_a_plan(raw):
    d = tmakit.decode(raw)
    assert isinstance(d.text, str)
    c = tmakit.check_against_plan(raw, PLAN)
    assert isinstance(c.ok, bool) and len(c.expected) == 128


@SETTINGS
@given(st.binary(min_size=128, max_size=128), st.lists(st.integers(-2, 20), min_size=1, max_size=4),
       st.sampled_from(["x", "y", "xy", "z", "xz", ""]), st.sampled_from(["leader_broadcast", "sliced"]),
       st.one_of(st.none(), st.integers(0, 7)))
def test_multicast_answers_or_refuses(raw, cluster, share, mode, slice_dim):
    try:
        p = tmakit.multicast(raw, cluster=cluster, share=share, mode=mode, slice_dim=slice_dim)
    except BAD_USAGE:
        return
    assert 1 <= len(p.ctas) <= 16


layouts = st.lists(st.tuples(st.integers(1, 16), st.integers(0, 5000)), min_size=1, max_size=3).map(layout_text)


@SETTINGS
@given(layouts, layouts, st.sampled_from(["f32", "bf16", "u8", "f64"]), st.integers(0, 2048))
def test_dsmem_copy_answers_or_refuses(src, dst, dtype, threads):
    try:
        p = tmakit.dsmem_copy(src, dst, dtype=dtype, threads=threads)
    except BAD_USAGE:
        return
    assert p.tx_bytes >= 0


@SETTINGS
@given(values)
def test_capabilities_answer_or_refuse(target):
    try:
        c = tmakit.capabilities(target)
    except BAD_USAGE:
        return
    assert len(c["targets"]) in (1, 4) and all(len(x["cells"]) == len(c["targets"]) for x in c["capabilities"])


@SETTINGS
@given(st.binary(min_size=128, max_size=128), st.one_of(st.integers(), st.integers(-(2**70), 2**70), values))
def test_smem_base_of_any_map_answers_or_refuses(raw, address):
    try:
        tmakit.check_smem_base(address, raw)
    except BAD_USAGE:
        return
    # accepted: on the 128-byte minimum and on the swizzle's repeat (8 rows of its span)
    swizzle = str(tmakit.decode(raw).swizzle)  # a name, or the bits' value when they name none
    repeat = {"32B": 256, "64B": 512}.get(swizzle, 1024 if "128B" in swizzle else 1)
    assert address % 128 == 0 and address % repeat == 0


masks = st.one_of(st.integers(), st.integers(-(2**70), 2**70), st.lists(st.integers(-2, 20), max_size=5),
                  st.text(max_size=10), st.dictionaries(st.integers(-2, 20), st.integers(-2, 2**20), max_size=3), values)


@SETTINGS
@given(st.lists(st.integers(-2, 20), min_size=1, max_size=3), masks, st.sampled_from([1, 2, 0, 3]),
       st.sampled_from(["sm_90", "sm_100", "sm_120", "x"]),
       st.one_of(st.none(), st.dictionaries(st.integers(-2, 20), st.integers(-(2**65), 2**65), max_size=3), values))
def test_cluster_stage_masks_and_armed_bytes_answer_or_refuse(cluster, mask, cta_group, arch, armed):
    box = tmakit.encode_tiled(dtype="bf16", dims=[4096, 4096], strides=[8192], box=[64, 128], swizzle="128B")
    try:
        s = tmakit.cluster_stage(cluster, multicast=[{"box": box, "share": "x", "mask": mask}], cta_group=cta_group,
                                 arch=arch, armed=armed)
    except BAD_USAGE:
        return
    assert all(c["expect_bytes"] >= 0 for c in s.ctas)


@SETTINGS
@given(st.integers(-2, 2**41), st.sampled_from(["bf16", "f32", "u8", "16U4_ALIGN8B"]))
def test_a_view_offset_is_named_exactly_when_it_leaves_16_bytes(offset, dtype):
    bits = {"bf16": 16, "f32": 32, "u8": 8, "16U4_ALIGN8B": 4}[dtype]
    gmem = f"{dtype} (1024,256):(256,1) offset={offset}"
    try:
        tmakit.plan(gmem, "(64,64):(64,1)", "s=64,d=64")
    except tmakit.Refused as e:
        aligned = offset * bits % 128 == 0
        assert ("gmem.base_align" in e.rules) == (not aligned) or dtype == "16U4_ALIGN8B"
        if not aligned and dtype != "16U4_ALIGN8B":
            assert f"starts {offset} element" in str(e)
        return
    except BAD_USAGE:
        assert offset < 0 or offset > 2**40
        return
    assert offset * bits % 128 == 0

"""The shared tile's address (check_smem_base, check_against_plan(smem_base=...)), an im2col map's
walk against its convolution (check_im2col_conv) and reduce plans of swizzled tiles, each against
the CLI for the same input."""

import json
import subprocess

import pytest

import tmakit

GMEM, SMEM, TILE = "bf16 (4096,4096):(4096,1)", "Sw<3,4,3> o (128,64):(64,1)", "M=128,K=64"


def test_the_tiles_address_against_the_plan():
    p = tmakit.plan(GMEM, SMEM, TILE)
    assert tmakit.check_against_plan(p.descriptor, p, smem_base=0x7F400).ok
    c = tmakit.check_against_plan(p.descriptor, p, smem_base=0x7F480)
    assert not c.ok and c.rules == ["smem.base_align"]
    f = c.findings[0]
    assert f.severity == "error" and f.expected == "a multiple of 1024 B" and f.actual == "0x7f480 (128-byte aligned)"
    assert "row (r + 1) % 8 of the pattern" in f.effect and "__align__(1024)" in f.fix
    c = tmakit.check_against_plan(p.descriptor, p, smem_base=0x7F440)
    assert c.rules == ["smem.base_align128", "smem.base_align"]


@pytest.mark.parametrize("address", [0x400, 0x480, 0x440, 0x7F80])
def test_the_tiles_address_against_a_descriptor_as_the_cli(cli, address):
    m = tmakit.encode_tiled(dtype="bf16", dims=[4096, 4096], strides=[8192], box=[32, 64], swizzle="64B")
    out = subprocess.run([cli, "decode", m.hex(), "--smem-base", str(address), "--json"], capture_output=True, text=True)
    j = json.loads(out.stdout)["smem_base"]
    assert j["needed"] == 512
    if j["ok"]:
        assert out.returncode == 0 and tmakit.check_smem_base(address, m) is None
    else:
        assert out.returncode == 1
        with pytest.raises(tmakit.Refused) as e:
            tmakit.check_smem_base(address, m)
        assert [v.message for v in e.value.violations] == [x["message"] for x in j["errors"]]


@pytest.mark.parametrize("bad", [None, 1.5, True])
def test_an_address_of_another_type_is_a_type_error(bad):
    p = tmakit.plan(GMEM, SMEM, TILE)
    with pytest.raises(TypeError):
        tmakit.check_smem_base(bad, p.descriptor)
    if bad is not None:  # smem_base=None: not given
        with pytest.raises(TypeError):
            tmakit.check_against_plan(p.descriptor, p, smem_base=bad)


def im2col(upper, elem_strides=(1, 1, 1, 1), lower=(0, 0)):
    return tmakit.encode_im2col(dtype="f16", dims=[64, 16, 16, 2], strides=[128, 2048, 32768], lower=list(lower),
                                upper=list(upper), channels=64, pixels=128, elem_strides=list(elem_strides))


def test_the_reported_im2col_corners_are_refused_as_the_cli(cli):
    with pytest.raises(tmakit.Refused) as e:
        tmakit.check_im2col_conv(im2col([0, 0]), kernel=3)
    assert e.value.rules == ["im2col.conv_extent", "im2col.conv_extent"]
    out = subprocess.run([cli, "check", "im2col", "--dtype", "f16", "--dims", "64,16,16,2", "--strides", "128,2048,32768",
                          "--lower", "0,0", "--upper", "0,0", "--channels", "64", "--pixels", "128", "--conv", "kernel=3",
                          "--json"], capture_output=True, text=True)
    assert out.returncode == 1
    assert [v.message for v in e.value.violations] == [x["message"] for x in json.loads(out.stdout)["errors"]]
    assert tmakit.check_im2col_conv(im2col([-2, -2]), kernel=3) is None
    # stride 2, padding 1: corners -1 / -1 and traversal strides 2 walk it; strides 1 do not
    assert tmakit.check_im2col_conv(im2col([-1, -1], (1, 2, 2, 1), (-1, -1)), kernel=(3, 3), stride=2, pad=1) is None
    with pytest.raises(tmakit.Refused) as e:
        tmakit.check_im2col_conv(im2col([-1, -1], (1, 1, 1, 1), (-1, -1)), kernel=3, stride=2, pad=1)
    assert e.value.rules == ["im2col.conv_stride", "im2col.conv_extent", "im2col.conv_stride", "im2col.conv_extent"]


def test_an_im2col_check_that_cannot_be_made_is_bad_usage():
    with pytest.raises(ValueError, match="kernel: 3 values for 2 spatial dims"):
        tmakit.check_im2col_conv(im2col([0, 0]), kernel=(3, 3, 3))
    with pytest.raises(ValueError, match="not an im2col map"):
        tmakit.check_im2col_conv(tmakit.plan(GMEM, SMEM, TILE).descriptor, kernel=3)
    with pytest.raises(TypeError):
        tmakit.check_im2col_conv(im2col([0, 0]), kernel=3.0)


def test_a_reduce_plan_reads_the_swizzled_tile():
    p = tmakit.plan("f32 (256,96):(96,1)", "Sw<3,4,3> o (64,32):(32,1)", "M=64,N=32", reduce="add")
    assert p.direction == "reduce" and p.swizzle == "128B" and p.smem_alignment == 1024
    assert "cp.reduce.async.bulk.tensor reads it through the 128B swizzle" in p.text
    assert tmakit.check_against_plan(p.descriptor, p).ok
    plain = tmakit.encode_tiled(dtype="f32", dims=[96, 256], strides=[384], box=[32, 64])
    c = tmakit.check_against_plan(plain, p)
    assert c.rules == ["check.swizzle"] and not c.hangs
    assert "other elements are combined into each global position" in c.findings[0].effect
    with pytest.raises(tmakit.Refused) as e:
        tmakit.check_against_plan(plain, p, armed_bytes=8192)
    assert e.value.rules == ["usage.value"]
    with pytest.raises(tmakit.Refused) as e:
        tmakit.plan("f32 (256,96):(96,1)", "Sw<3,4,3> o (64,32):(32,1)", "M=64,N=32", reduce="max")
    assert e.value.rules == ["plan.reduce_dtype"] and ".max does not take f32" in e.value.violations[0].message

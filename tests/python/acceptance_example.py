# The package's acceptance example, exactly as specified: it must run as written after
# `pip install .` on a machine without a GPU (scripts/check_wheel.sh runs this file against the
# installed wheel; test_acceptance.py runs it in the test suite).
import tmakit
m = tmakit.encode_tiled(dtype="bf16", dims=[4096, 4096], strides=[8192], box=[64, 128], swizzle="128B")
assert len(bytes(m)) == 128
assert tmakit.decode(m).box == [64, 128]
p = tmakit.plan(gmem="bf16 (4096,4096):(4096,1)", smem="Sw<3,4,3> o (128,64):(64,1)", tile="M=128,K=64")
assert p.expect_tx == 16384 and len(p.instructions) == 1
try:
    tmakit.encode_tiled(dtype="bf16", dims=[1028, 64], strides=[2056], box=[64, 64])
except tmakit.Refused as e:
    assert e.violations[0].rule == "strides.align16"

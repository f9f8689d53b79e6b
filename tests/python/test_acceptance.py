"""The example the package was specified with, exactly as written (acceptance_example.py; also
inline below): it must run on a machine without a GPU after `pip install .`."""

import runpy
import pathlib


def test_acceptance_example_file_runs():
    runpy.run_path(str(pathlib.Path(__file__).with_name("acceptance_example.py")))


def test_acceptance_example_runs_as_written():
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


def test_the_refusal_in_the_example_is_raised():
    # The example's try/except passes silently when nothing is raised: check that it is.
    import pytest
    import tmakit
    with pytest.raises(tmakit.Refused) as e:
        tmakit.encode_tiled(dtype="bf16", dims=[1028, 64], strides=[2056], box=[64, 64])
    assert [v.rule for v in e.value.violations] == ["strides.align16"]
    assert e.value.violations[0].fix == "pad the row pitch to 2064 bytes"

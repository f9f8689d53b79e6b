"""The example the package was specified with, exactly as written (acceptance_example.py): it must
run on a machine without a GPU after `pip install .`."""

import runpy
import pathlib


def test_acceptance_example_file_runs():
    runpy.run_path(str(pathlib.Path(__file__).with_name("acceptance_example.py")))


def test_the_refusal_in_the_example_is_raised():
    # The example's try/except passes silently when nothing is raised: check that it is.
    import pytest
    import tmakit
    with pytest.raises(tmakit.Refused) as e:
        tmakit.encode_tiled(dtype="bf16", dims=[1028, 64], strides=[2056], box=[64, 64])
    assert [v.rule for v in e.value.violations] == ["strides.align16"]
    assert e.value.violations[0].fix == "pad the row pitch to 2064 bytes"

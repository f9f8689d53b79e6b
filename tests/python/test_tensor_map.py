"""encode / validate / decode / diff from Python against the CLI's answers for the same input."""

import json
import subprocess

import pytest

import tmakit
from cli_outcome import without_outcome

KW = dict(dtype="bf16", dims=[4096, 4096], strides=[8192], box=[64, 128], swizzle="128B")
CLI_ARGS = ["tiled", "--dtype", "bf16", "--dims", "4096,4096", "--strides", "8192", "--box", "64,128", "--swizzle", "128B"]


def run(cli, *args):
    return subprocess.run([cli, *args], capture_output=True, text=True)


def test_bytes_equal_the_cli(cli):
    m = tmakit.encode_tiled(**KW)
    assert isinstance(m, bytes) and len(m) == 128
    assert m.hex() == run(cli, "encode", *CLI_ARGS).stdout.strip()


def test_tensor_map_fields_as_attributes_and_buffer_protocol():
    m = tmakit.encode_tiled(**KW)
    assert (m.dtype, m.dims, m.strides, m.box, m.swizzle) == ("BFLOAT16", [4096, 4096], [8192], [64, 128], "128B")
    assert m.transaction_bytes == 16384
    assert memoryview(m).nbytes == 128 and bytes(memoryview(m)) == bytes(m)
    assert m.fields["boxDim[1]"]["bytes"] == "56"


@pytest.mark.parametrize("form", ["bytes", "bytearray", "memoryview", "hex", "hex0x", "tensormap", "numpy", "numpy_u64"])
def test_decode_takes_every_form(form):
    m = tmakit.encode_tiled(**KW)
    if form.startswith("numpy"):
        np = pytest.importorskip("numpy")
        given = np.frombuffer(m, np.uint8) if form == "numpy" else np.frombuffer(m, np.uint64).copy()
    else:
        given = {"bytes": bytes(m), "bytearray": bytearray(m), "memoryview": memoryview(m), "hex": m.hex(),
                 "hex0x": "0x" + m.hex().upper(), "tensormap": m}[form]
    d = tmakit.decode(given)
    assert d.box == [64, 128] and d.dims == [4096, 4096] and d.round_trips


def test_decode_of_a_torch_tensor():
    torch = pytest.importorskip("torch")
    m = tmakit.encode_tiled(**KW)
    t = torch.frombuffer(bytearray(m), dtype=torch.uint8)
    assert tmakit.decode(t).box == [64, 128]


def test_decode_refuses_other_lengths():
    with pytest.raises(ValueError, match="128 bytes, got 127"):
        tmakit.decode(b"\0" * 127)
    with pytest.raises(ValueError, match="not a descriptor"):
        tmakit.decode("12ab")


def test_decode_equals_the_cli_json(cli):
    m = tmakit.encode_tiled(**KW)
    cli_json = json.loads(run(cli, "decode", m.hex(), "--json").stdout)
    d = tmakit.decode(m).json
    assert {k: v for k, v in d.items() if k != "text"} == without_outcome(cli_json)
    assert tmakit.decode(m).text == run(cli, "decode", m.hex()).stdout


def test_diff_names_every_field_and_byte(cli):
    a = tmakit.encode_tiled(**KW)
    b = tmakit.encode_tiled(**{**KW, "box": [32, 64], "swizzle": "64B"})
    d = tmakit.diff(a, b)
    assert d and not d.identical and len(d) == 5
    assert d.fields == ["swizzle", "boxDim[0]", "boxDim[1]", "boxBytes", "smemAlignment"]
    assert d.differences[2].a == "128" and d.differences[2].b == "64" and d.differences[2].bytes == [56]
    cli_json = json.loads(run(cli, "diff", a.hex(), b.hex(), "--json").stdout)
    assert {k: v for k, v in d.json.items() if k != "text"} == without_outcome(cli_json)
    assert not tmakit.diff(a, bytes(a))


def test_refusals_carry_the_cli_ids_and_words(cli):
    kw = dict(dtype="bf16", dims=[1028, 64, 3], strides=[2056, 7], box=[64, 300, 1], swizzle="128B")
    with pytest.raises(tmakit.Refused) as e:
        tmakit.encode_tiled(**kw)
    out = run(cli, "check", "tiled", "--dtype", "bf16", "--dims", "1028,64,3", "--strides", "2056,7", "--box", "64,300,1",
              "--swizzle", "128B", "--json")
    assert out.returncode == 1
    cli_errors = json.loads(out.stdout)["errors"]
    assert [v.rule for v in e.value.violations] == [x["rule"] for x in cli_errors]
    assert [v.message for v in e.value.violations] == [x["message"] for x in cli_errors]
    assert [v.field for v in e.value.violations] == [x["field"] for x in cli_errors]
    assert len(e.value.violations) >= 3 and all(v.fix for v in e.value.violations)
    assert [v.rule for v in tmakit.validate(**kw)] == e.value.rules
    assert tmakit.validate(**KW) == []
    assert isinstance(e.value, ValueError)


def test_input_errors_are_refusals_with_input_rules():
    with pytest.raises(tmakit.Refused) as e:
        tmakit.encode_tiled(dtype="bogus", dims=[64], box=[64], swizzle="12B")
    assert e.value.rules == ["input.name", "input.name"]
    with pytest.raises(tmakit.Refused) as e:
        tmakit.encode_tiled(dtype="u8", dims=[-1], box=[64])
    assert e.value.rules == ["input.range"]
    with pytest.raises(TypeError):
        tmakit.encode_tiled(dtype="u8", dims=[object()], box=[64])


def test_im2col_kinds():
    m = tmakit.encode_im2col(dtype="f16", dims=[64, 32, 32, 8], strides=[128, 4096, 131072], lower=[-1, -1],
                             upper=[1, 1], channels=64, pixels=128)
    assert m.kind == "im2col" and m.channels == 64 and m.pixels == 128 and m.lower == [-1, -1]
    w = tmakit.encode_im2col_wide(dtype="f16", dims=[64, 32, 8], strides=[128, 4096], lower=-1, upper=1, channels=64,
                                  pixels=128, mode="W")
    assert w.kind == "im2col" and w.lower == [-1]

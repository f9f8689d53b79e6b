"""tmakit.check_map_storage: where a tensor map is stored, checked as `tmakit decode --stored-at` checks it."""

import json
import subprocess

import pytest

import tmakit


def test_64_bytes_past_nothing_is_fine_and_128_is_only_a_note():
    assert tmakit.check_map_storage(0x7F0000000080) == []
    notes = tmakit.check_map_storage(0x7F0000000040)
    assert len(notes) == 1 and notes[0].startswith("note [map.storage_abi] the tensor map at 0x7f0000000040")


def test_a_map_off_64_bytes_is_refused_with_the_clis_rule_and_fix():
    with pytest.raises(tmakit.Refused) as e:
        tmakit.check_map_storage(0x7F0000000020)
    assert e.value.rules == ["map.storage_align"]
    v = e.value.violations[0]
    assert "starts 32 bytes past a 64-byte boundary" in v.message
    assert v.fix.startswith("store the map at a multiple of 128 bytes")


@pytest.mark.parametrize("bad", [None, 1.5, "0x40", True])
def test_a_wrong_type_is_a_type_error(bad):
    with pytest.raises(TypeError):
        tmakit.check_map_storage(bad)


@pytest.mark.parametrize("bad", [-64, 1 << 64])
def test_an_address_out_of_range_is_bad_usage(bad):
    with pytest.raises(tmakit.Refused) as e:
        tmakit.check_map_storage(bad)
    assert e.value.rules == ["usage.value"]


@pytest.mark.parametrize("address", [8, 64, 128])
def test_the_same_answer_as_the_cli(cli, address):
    out = subprocess.run([cli, "decode", "0" * 256, "--stored-at", str(address), "--json"], capture_output=True, text=True)
    storage = json.loads(out.stdout)["storage"]
    if storage["ok"]:
        assert out.returncode == 0
        assert tmakit.check_map_storage(address) == [n["message"] for n in storage["notes"]]
    else:
        assert out.returncode == 1
        with pytest.raises(tmakit.Refused) as e:
            tmakit.check_map_storage(address)
        assert [v.message for v in e.value.violations] == [x["message"] for x in storage["errors"]]

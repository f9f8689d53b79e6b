"""tmakit.cluster_stage: one stage's copies added up per CTA, as `tmakit cluster-stage` adds them."""

import json
import subprocess

import pytest

import tmakit

DSMEM_16K = {"from": 0, "to": 1, "dtype": "f32", "src": "(4096):(1)", "dst": "(4096):(1)"}


def box_16k():  # bf16 64 x 128: 16 KiB per copy
    return tmakit.encode_tiled(dtype="bf16", dims=[4096, 4096], strides=[8192], box=[64, 128], swizzle="128B")


def test_multicast_and_dsmem_add_up_per_cta():
    """The field report: B multicast to both CTAs of a 2x1 cluster and 16 KiB from CTA 0 to CTA 1 by
    DSMEM: CTA 1 arms 32,768 bytes."""
    s = tmakit.cluster_stage((2, 1), multicast=[{"box": box_16k(), "share": "x"}], dsmem=[DSMEM_16K])
    assert [c["expect_bytes"] for c in s.ctas] == [16384, 32768]
    assert (s.ctas[1]["tma_bytes"], s.ctas[1]["dsmem_bytes"]) == (16384, 16384)
    assert s.ctas[0]["receivers_text"] == "0b11 (0x3: CTAs 0, 1)" and s.ctas[1]["issues"]
    assert "CTA 1: arm 32768 bytes on its full barrier (TMA 16384 + DSMEM 16384)" in str(s)


def test_the_same_answer_as_the_cli(cli):
    box = box_16k()
    s = tmakit.cluster_stage((2, 1), multicast=[{"box": box, "share": "x", "mode": "leader_broadcast"}], dsmem=[DSMEM_16K])
    spec = "; ".join(f"{k}={v}" for k, v in DSMEM_16K.items())
    out = subprocess.run([cli, "cluster-stage", "--cluster", "2,1", "--multicast",
                          f"box={bytes(box).hex()}; share=x; mode=leader_broadcast", "--dsmem", spec, "--json"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["ctas"] == s.ctas


def test_the_default_mode_is_sliced_as_the_planner_and_the_cli_take_it():
    s = tmakit.cluster_stage((2, 1), multicast=[{"box": box_16k(), "share": "x"}])
    assert all(c["issues"] for c in s.ctas)  # each CTA issues its slice
    assert tmakit.multicast(box_16k(), cluster=(2, 1), share="x").decision == "sliced"


def test_a_sum_past_the_transaction_count_is_refused():
    big = dict(DSMEM_16K, src="(150000):(1)", dst="(150000):(1)")
    tmakit.cluster_stage((2, 1), dsmem=[big])  # one copy is within it
    with pytest.raises(tmakit.Refused) as e:
        tmakit.cluster_stage((2, 1), dsmem=[big, big])
    assert e.value.rules == ["expect.tx_limit"]


def test_a_copy_outside_the_cluster_is_refused():
    with pytest.raises(tmakit.Refused) as e:
        tmakit.cluster_stage((2, 1), dsmem=[dict(DSMEM_16K, to=2)])
    assert e.value.rules == ["mask.outside_cluster"]
    assert "CTA 0: mask names CTA 2, cluster has 2" in e.value.violations[0].message


@pytest.mark.parametrize("kwargs,refused", [
    ({}, False),                                                           # no copy at all
    ({"dsmem": [{k: v for k, v in DSMEM_16K.items() if k != "dst"}]}, True),  # dst missing
    ({"dsmem": [dict(DSMEM_16K, tox=1)]}, True),                           # unknown key
    ({"dsmem": [dict(DSMEM_16K, to=-1)]}, True),                           # not a rank
    ({"dsmem": [dict(DSMEM_16K, dtype="e2m1")]}, False),                   # sub-byte
    ({"dsmem": [dict(DSMEM_16K, threads=0)]}, False),                     # no thread copies
    ({"multicast": [{"box": box_16k(), "share": "x", "mode": ""}]}, False),  # an empty mode, not the default
    ({"multicast": [{"box": box_16k(), "share": "xx"}]}, False),           # a dimension twice
    ({"multicast": [{"share": "x"}]}, True),                               # box missing
])
def test_bad_copies_are_usage_errors(kwargs, refused):
    """Bad usage is a ValueError, as for tmakit.multicast and tmakit.dsmem_copy; the checks of the
    copies' keys refuse with the CLI's usage.value."""
    with pytest.raises(ValueError) as e:
        tmakit.cluster_stage((2, 1), **kwargs)
    if refused:
        assert isinstance(e.value, tmakit.Refused) and e.value.rules == ["usage.value"]


@pytest.mark.parametrize("kwargs", [
    {"dsmem": [("from", 0)]},                    # not a dict
    {"dsmem": [dict(DSMEM_16K, to="1")]},        # a rank is an integer
    {"dsmem": [dict(DSMEM_16K, threads=True)]},  # not a bool
    {"dsmem": [dict(DSMEM_16K, threads=None)]},  # None is not "not given"
    {"multicast": [{"box": box_16k(), "share": "x", "mode": None}]},
])
def test_wrong_types_are_type_errors(kwargs):
    with pytest.raises(TypeError):
        tmakit.cluster_stage((2, 1), **kwargs)

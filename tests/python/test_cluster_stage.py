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


@pytest.mark.parametrize("mask", [
    {0: 0b0101, 1: 0b1010, 2: 0b0101, 3: 0b1010},      # per CTA, as ints
    {0: [0, 2], 1: [1, 3], 2: "0x5", 3: "0b1010"},     # CTA lists and text
    "0:0b0101,1:[1,3],2:5,3:0xa",                      # the CLI's mask= text
])
def test_the_kernels_masks_as_the_plan_has_them_pass(mask):
    """A 2x2 cluster, A shared along y: CTAs 0 and 2 share one tile, 1 and 3 the other."""
    s = tmakit.cluster_stage((2, 2), multicast=[{"box": box_16k(), "share": "y", "mask": mask}])
    assert [c["expect_bytes"] for c in s.ctas] == [16384] * 4


def test_a_mask_of_the_wrong_ctas_names_the_missing_and_the_extra():
    with pytest.raises(tmakit.Refused) as e:
        tmakit.cluster_stage((2, 2), multicast=[{"box": box_16k(), "share": "y", "mask": {0: 0b0011, 1: 0b1010}}])
    assert e.value.rules == ["multicast.mask_mismatch"]  # CTA 1's is the plan's
    v = e.value.violations[0]
    assert v.field == "CTA 0"
    assert v.message.startswith("multicast 1: error [multicast.mask_mismatch] CTA 0: ctaMask 0b0011 (0x3: CTAs 0, 1), "
                                "the plan's 0b0101 (0x5: CTAs 0, 2): missing CTA 2")
    assert "extra CTA 1, which does not share the tile" in v.message


def test_a_mask_past_the_cluster_is_refused_once(cli):
    """A mask written for a 4-CTA cluster, in a 2-CTA one: the same refusal as the CLI's."""
    with pytest.raises(tmakit.Refused) as e:
        tmakit.cluster_stage((2, 1), multicast=[{"box": box_16k(), "share": "x", "mask": 0b1111}])
    assert e.value.rules == ["multicast.mask_outside_cluster"]
    out = subprocess.run([cli, "cluster-stage", "--cluster", "2,1", "--multicast",
                          f"box={bytes(box_16k()).hex()}; share=x; mask=0b1111", "--json"], capture_output=True, text=True)
    assert out.returncode == 1
    assert json.loads(out.stdout)["error"]["message"] == e.value.violations[0].message


def pairs(**kwargs):
    """Two CTA pairs (cta_group::2): A per CTA, B sliced across the four; 32 KiB lands in each CTA."""
    return tmakit.cluster_stage((4, 1), multicast=[{"box": box_16k(), "share": "y"}, {"box": box_16k(), "share": "x"}],
                                cta_group=2, **kwargs)


def test_cta_pairs_arm_the_pairs_bytes_on_the_even_cta():
    s = pairs(arch="sm_100", armed={0: 65536, 1: 0, 2: 65536, 3: 0})
    assert (s.cta_group, s.arch) == (2, "sm_100")
    assert [c["expect_bytes"] for c in s.ctas] == [65536, 0, 65536, 0]
    assert [c["tma_landed_bytes"] for c in s.ctas] == [32768] * 4
    assert [c["tma_barrier"] for c in s.ctas] == [0, 0, 2, 2]
    one = tmakit.cluster_stage((4, 1), multicast=[{"box": box_16k(), "share": "y"}, {"box": box_16k(), "share": "x"}])
    assert [c["expect_bytes"] for c in one.ctas] == [32768] * 4 and one.cta_group == 1


def test_the_cluster_size_times_one_cta_is_named_as_the_pairs_mistake():
    """tilelang #2644's count: 4 x 32 KiB armed on each pair's even CTA, where the pair's is 2 x."""
    with pytest.raises(tmakit.Refused) as e:
        pairs(arch="sm_100", armed={0: 4 * 32768, 2: 4 * 32768})
    assert e.value.rules == ["expect.armed_mismatch"] * 2
    assert ("131072 B = 4 x 32768, the cluster's 4 CTAs x the TMA bytes into one CTA; with cta_group::2 a pair's "
            "even CTA counts the TMA bytes of its pair only" in e.value.violations[0].message)


def test_every_finding_at_once():
    """sm_90 has no CTA pairs; the masks and the armed bytes are checked all the same."""
    with pytest.raises(tmakit.Refused) as e:
        tmakit.cluster_stage((4, 1), multicast=[{"box": box_16k(), "share": "x", "mask": 0b0011}], cta_group=2,
                             armed={0: 16384})
    assert e.value.rules == ["cta_group.arch"] + ["multicast.mask_mismatch"] * 4 + ["expect.armed_mismatch"]
    with pytest.raises(tmakit.Refused) as e:
        tmakit.cluster_stage((3, 1), dsmem=[DSMEM_16K], cta_group=2, arch="sm_100")
    assert e.value.rules == ["cta_group.pair"]


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
    ({"multicast": [{"box": box_16k(), "share": "x", "mask": 0x10000}]}, True),  # a ctaMask has 16 bits
    ({"multicast": [{"box": box_16k(), "share": "x", "mask": [0, 0]}]}, True),   # a CTA twice
    ({"multicast": [{"box": box_16k(), "share": "x", "mask": {16: 1}}]}, True),  # no CTA 16
    ({"multicast": [{"box": box_16k(), "share": "x", "mask": "0:1,0:1"}]}, False),  # a CTA twice
    ({"multicast": [{"box": box_16k(), "share": "x", "mask": {0: "0:1"}}]}, True),  # one mask per CTA
    ({"dsmem": [DSMEM_16K], "cta_group": 3}, True),                        # 1 or 2
    ({"dsmem": [DSMEM_16K], "arch": "sm_80"}, False),                      # no such target
    ({"dsmem": [DSMEM_16K], "armed": {0: -1}}, True),                      # not a byte count
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
    {"multicast": [{"box": box_16k(), "share": "x", "mask": None}]},   # None is not "not given"
    {"multicast": [{"box": box_16k(), "share": "x", "mask": 1.0}]},
    {"multicast": [{"box": box_16k(), "share": "x", "mask": [True]}]},
    {"dsmem": [DSMEM_16K], "cta_group": True},
    {"dsmem": [DSMEM_16K], "armed": [(0, 16384)]},                     # a dict {cta: bytes}
])
def test_wrong_types_are_type_errors(kwargs):
    with pytest.raises(TypeError):
        tmakit.cluster_stage((2, 1), **kwargs)

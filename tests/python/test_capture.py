"""tmakit.capture(): the maps this process had the driver encode inside the block, read back from
libtmakit_capture.so's records; a RuntimeError naming the CLI form where the library is not
preloaded. The preloaded runs are subprocesses (the library must be there before Python starts);
they need no GPU: without libcuda the capture's own entry points answer (CUDA_ERROR_UNKNOWN)."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

import tmakit

SCRIPT = r'''
import ctypes, json, tmakit
U64, U32 = ctypes.c_uint64, ctypes.c_uint32
encode = ctypes.CDLL(None).cuTensorMapEncodeTiled  # dlsym(RTLD_DEFAULT): the capture hands it out

def tiled(row_pitch):
    m = (ctypes.c_uint8 * 128)()
    return encode(m, 9, 2, ctypes.c_void_p(0x7f0000000000), (U64 * 2)(4096, 4096), (U64 * 1)(row_pitch),
                  (U32 * 2)(64, 128), (U32 * 2)(1, 1), 0, 3, 0, 0)

tiled(8192)  # before the block: not in it
with tmakit.capture() as maps:
    tiled(8192)
    tiled(8190)
print(json.dumps([dict(call=m.call, via=m.via, dims=m.params["dims"], ok=m.ok,
                       rules=[v.rule for v in m.violations]) for m in maps]))
'''


@pytest.fixture(scope="module")
def library(cli):
    path = pathlib.Path(cli).resolve().parent / "libtmakit_capture.so"
    if not path.exists():
        pytest.skip("no libtmakit_capture.so next to the tmakit binary")
    return str(path)


def test_without_the_library_it_says_to_use_the_cli():
    with pytest.raises(RuntimeError, match=r"tmakit capture -- python3"):
        with tmakit.capture():
            pass


@pytest.mark.parametrize("shared_file", [False, True])
def test_the_maps_of_the_block_and_their_verdicts(library, tmp_path, shared_file):
    env = dict(os.environ, LD_PRELOAD=library)
    env.pop("TMAKIT_CAPTURE", None)
    if shared_file:  # as under `tmakit capture`: the records file is the CLI's, and keeps every record
        env["TMAKIT_CAPTURE"] = str(tmp_path / "maps.jsonl")
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    maps = json.loads(out.stdout)
    assert [(m["call"], m["via"], m["dims"], m["ok"]) for m in maps] == [
        ("cuTensorMapEncodeTiled", "dlsym", [4096, 4096], True),
        ("cuTensorMapEncodeTiled", "dlsym", [4096, 4096], False)]
    assert maps[1]["rules"] == ["strides.align16"]
    if shared_file:
        assert len((tmp_path / "maps.jsonl").read_text().splitlines()) == 3


LAUNCH_SCRIPT = r'''
import ctypes, json, tmakit
lookup = ctypes.CDLL(None).cuGetProcAddress_v2  # handed out by the capture (dlsym(RTLD_DEFAULT))
lookup.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, ctypes.c_uint64, ctypes.c_void_p]
fn = ctypes.c_void_p()
assert lookup(b"cuLaunchKernel", ctypes.byref(fn), 12000, 0, None) == 0 and fn.value
launch = ctypes.CFUNCTYPE(ctypes.c_int, *[ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3)(fn.value)
params = (ctypes.c_uint8 * 192)()  # zeros: no window could be a map
size = ctypes.c_size_t(192)
extra = (ctypes.c_void_p * 5)(1, ctypes.addressof(params), 2, ctypes.addressof(size), None)
with tmakit.capture() as maps:
    launch(None, 1, 1, 1, 1, 1, 1, 0, None, None, extra)
print(json.dumps(dict(maps=len(maps), launches=maps.launches)))
'''


def test_the_kernels_launched_in_the_block(library):
    env = dict(os.environ, LD_PRELOAD=library)
    env.pop("TMAKIT_CAPTURE", None)
    out = subprocess.run([sys.executable, "-c", LAUNCH_SCRIPT], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    assert seen["maps"] == 0
    assert [(r["call"], r["kernel"], r["parameters"], r["param_count"], r["param_bytes"]) for r in seen["launches"]] == [
        ("kernel_launch", "?", "extra", 1, 192)]

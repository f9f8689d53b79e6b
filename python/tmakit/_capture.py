"""tmakit.capture(): the tensor maps this process has the driver encode inside a with-block.

    with tmakit.capture() as maps:
        run_my_kernel()                      # CuTe DSL, Triton, cuda.core, ... build their maps
    for m in maps:
        print(m.call, m.via, m.result, m.ok, m.violations)

The recording is libtmakit_capture.so's (tools/capture), which must be in the process before it
starts: it replaces the process's dlsym and the driver's entry points, which a library loaded later
(ctypes) cannot do. So run the script under the CLI, which preloads it and also prints the full
report at the end:

    tmakit capture -- python3 my_script.py

Inside the block, capture() reads back the records this process appended (to the file the CLI set
in TMAKIT_CAPTURE, or to a temporary file of its own when that is not set) and checks each with
tmakit's validate(); outside a preloaded process it raises RuntimeError saying the above.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any, Iterator

from ._errors import Violation
from ._records import Record, TensorMap

_LIBRARY = "libtmakit_capture.so"


class CapturedMap(Record):
    """One recorded call: `call` ("cuTensorMapEncodeTiled", ...), `via` (how the program reached it:
    linked, dlsym, cuGetProcAddress, cuGetProcAddress_v2), `result` (the CUresult the program got),
    `params` (the arguments, in tmakit.encode()'s schema), `descriptor` (the 128 bytes the driver
    wrote, None unless result is 0), `violations` (tmakit's refusals of the arguments, [] when it
    accepts them) and `ok`."""

    __slots__ = ()

    @property
    def descriptor(self) -> TensorMap | None:
        return TensorMap(bytes.fromhex(self.bytes)) if self.result == 0 else None

    @property
    def ok(self) -> bool:
        return not self.violations


def preloaded() -> bool:
    """Whether libtmakit_capture.so is in this process (it must be preloaded to record anything)."""
    try:
        with open("/proc/self/maps") as f:
            return any(_LIBRARY in line for line in f)
    except OSError:
        return False


def _captured(record: dict[str, Any]) -> CapturedMap:
    from . import validate  # the package's validate (a cycle at import time otherwise)

    params = {k: v for k, v in record.items() if k not in ("call", "via", "result", "driver", "pid", "map", "bytes")}
    violations: list[Violation] = [] if "dims" not in params else validate(params)
    return CapturedMap(dict(call=record["call"], via=record.get("via", ""), result=record["result"],
                            driver=record.get("driver", True), map=record.get("map", 0), params=params,
                            bytes=record["bytes"], violations=violations))


class capture:  # noqa: N801 (a context manager used as a function: `with tmakit.capture() as maps`)
    """Records the tensor maps this process has the driver encode inside the block (module doc)."""

    def __init__(self) -> None:
        self.maps: list[CapturedMap] = []
        # the kernels launched inside the block, once per kernel handle: the capture's kernel_launch
        # records (kernel, parameters, param_bytes, ...), not maps
        self.launches: list[dict[str, Any]] = []
        self._path = ""
        self._own = False
        self._start = 0

    def __enter__(self) -> "capture":
        if not preloaded():
            raise RuntimeError(
                "tmakit.capture() reads what libtmakit_capture.so records, and that library must be loaded before "
                "the process starts: run the script as `tmakit capture -- python3 SCRIPT` (which also reports every "
                "map), or with LD_PRELOAD=<build or lib dir>/libtmakit_capture.so TMAKIT_CAPTURE=maps.jsonl")
        self._path = os.environ.get("TMAKIT_CAPTURE", "")
        self._own = not self._path
        if self._own:  # the library writes to stderr without a file: give it one for the block
            fd, self._path = tempfile.mkstemp(prefix="tmakit-capture-", suffix=".jsonl")
            os.close(fd)
            os.environ["TMAKIT_CAPTURE"] = self._path
        self._start = os.path.getsize(self._path) if os.path.exists(self._path) else 0
        return self

    def __exit__(self, *exc: Any) -> None:
        pid = os.getpid()
        if os.path.exists(self._path):
            with open(self._path, "rb") as f:
                f.seek(self._start)
                for line in f.read().decode(errors="replace").splitlines():
                    try:
                        record = json.loads(line)
                    except json.JSONDecodeError:
                        continue
                    if not (isinstance(record, dict) and record.get("pid", pid) == pid and "call" in record):
                        continue
                    if record["call"] == "kernel_launch":
                        self.launches.append(record)
                    else:
                        self.maps.append(_captured(record))
        if self._own:
            del os.environ["TMAKIT_CAPTURE"]
            os.unlink(self._path)

    def __iter__(self) -> Iterator[CapturedMap]:
        return iter(self.maps)

    def __len__(self) -> int:
        return len(self.maps)

"""The objects tmakit's calls return: thin attribute views of the library's own answers.

Each wraps the JSON object the CLI prints for the same request (`tmakit decode --json`,
`tmakit diff --json`, `tmakit plan --json`, ...), so its keys are the CLI's keys; `.json` is that
object, `.text` the CLI's text output. Nothing here computes: the C++ library answers.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, Iterator

from . import _tmakit


class Record:
    """Attributes over a dict from the library (`.json`)."""

    __slots__ = ("_data",)

    def __init__(self, data: dict[str, Any]):
        object.__setattr__(self, "_data", data)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._data[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no attribute {name!r}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._data))

    @property
    def json(self) -> dict[str, Any]:
        """The library's answer as a dict (the CLI's --json object)."""
        return self._data

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self._data.items() if k not in ("text", "svg", "fields"))
        return f"{type(self).__name__}({shown})"


class Decoded(Record):
    """A descriptor's fields (`tmakit decode --json`): the parameters (kind, arch, dtype, rank, address,
    dims, strides, box, elem_strides, interleave, swizzle, l2, oob; im2col: lower, upper, channels,
    pixels) as attributes, and `fields` (every field: value in words, raw bits, byte offsets),
    `transaction_bytes`, `unexplained_bytes`, `notes`, `round_trips`, `text`."""

    __slots__ = ()
    kind: str
    rank: int
    fields: dict[str, dict[str, Any]]
    params: dict[str, Any]
    transaction_bytes: int
    unexplained_bytes: list[int]
    notes: list[str]
    round_trips: bool
    text: str

    def __getattr__(self, name: str) -> Any:
        data = self._data
        if name in data:
            return data[name]
        if name in data["params"]:
            return data["params"][name]
        raise AttributeError(f"Decoded has no attribute {name!r}")

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._data["params"]))

    def __str__(self) -> str:
        return self.text


class TensorMap(bytes):
    """The 128 bytes of a CUtensorMap (memory order): `bytes(m)`, `m.hex()`, the buffer protocol
    (memoryview(m), numpy.frombuffer(m, numpy.uint8)), and the decoded fields as attributes
    (m.box, m.dims, m.swizzle, ...; all of them in m.decoded)."""

    def __new__(cls, data: bytes | bytearray | memoryview) -> "TensorMap":
        b = super().__new__(cls, data)
        if len(b) != 128:
            raise ValueError(f"a tensor map is 128 bytes, got {len(b)}")
        return b

    @cached_property
    def decoded(self) -> Decoded:
        """Every field of the descriptor (tmakit.decode)."""
        return Decoded(_tmakit.decode(self))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.decoded, name)

    # Fields whose names bytes already has as methods.
    @property
    def lower(self) -> list[int]:  # type: ignore[override]
        """pixelBoxLowerCorner (im2col maps)."""
        return self.decoded.lower

    @property
    def upper(self) -> list[int]:  # type: ignore[override]
        """pixelBoxUpperCorner (im2col maps)."""
        return self.decoded.upper

    def __repr__(self) -> str:
        return f"TensorMap('{self.hex()}')"

    def __str__(self) -> str:
        return self.decoded.text


class FieldDifference(Record):
    """One differing field: `field` (its name, or "reserved"), `a` and `b` (values in words), `bytes`
    (the differing byte offsets it accounts for)."""

    __slots__ = ()
    field: str
    a: str
    b: str
    bytes: list[int]


class Diff(Record):
    """Two descriptors compared (`tmakit diff --json`): `identical`, `differences` (FieldDifference
    each), `text`. Truthy when they differ; iterating gives the differences."""

    __slots__ = ()
    identical: bool
    text: str

    @property
    def differences(self) -> list[FieldDifference]:
        return [FieldDifference(d) for d in self._data["differences"]]

    @property
    def fields(self) -> list[str]:
        """The names of the differing fields, in layout order."""
        return [d["field"] for d in self._data["differences"]]

    def __iter__(self) -> Iterator[FieldDifference]:
        return iter(self.differences)

    def __len__(self) -> int:
        return len(self._data["differences"])

    def __bool__(self) -> bool:
        return not self._data["identical"]

    def __str__(self) -> str:
        return self.text


class Plan(Record):
    """A TMA plan (`tmakit plan --json`'s "plan" object as attributes: dims, instructions,
    expect_tx_bytes, tx_bytes_per_instruction, smem_bytes, smem_alignment, swizzle, multicast,
    direction, ...), with `expect_tx` (= expect_tx_bytes), `descriptor` (its TensorMap), `gmem` and
    `smem` (as planned), `text` (`tmakit plan`'s text) and `instruction(k, tile)`."""

    __slots__ = ("_handle", "_all")
    expect_tx_bytes: int
    tx_bytes_per_instruction: int
    instructions: list[dict[str, Any]]
    dims: list[dict[str, Any]]
    smem_bytes: int
    smem_alignment: int
    swizzle: str
    direction: str

    def __init__(self, handle: Any):
        everything = handle.json()
        super().__init__(everything["plan"])
        object.__setattr__(self, "_handle", handle)
        object.__setattr__(self, "_all", everything)

    @property
    def expect_tx(self) -> int:
        """Bytes each receiving CTA's barrier expects per stage (expect_tx_bytes)."""
        return self._data["expect_tx_bytes"]

    @property
    def descriptor(self) -> TensorMap:
        """The plan's descriptor (address: the tensor's when planned from one, else 0)."""
        return TensorMap(self._handle.descriptor())

    @property
    def gmem(self) -> str:
        return self._all["gmem"]

    @property
    def smem(self) -> str:
        return self._all["smem"]

    @property
    def text(self) -> str:
        return self._handle.text()

    @property
    def json(self) -> dict[str, Any]:
        """`tmakit plan --json`'s object (without "result")."""
        return self._all

    def instruction(self, k: int, tile: list[int] | tuple[int, ...]) -> dict[str, Any]:
        """Instruction k of the tile at `tile` (one tile coordinate per global mode): its TMA
        coordinates (innermost first) and shared-memory byte offset."""
        return self._handle.instruction(k, list(tile))

    def __str__(self) -> str:
        return self.text


class PlanFinding(Record):
    """One way a descriptor (or a kernel's byte count) differs from the plan: `rule` (check.box,
    check.armed_bytes, ...), `severity`, `field` (where it differs), `expected` (the plan's), `actual`
    (also `value`), `bytes` (the differing byte offsets), `effect` (what it does to the copy), `fix`,
    `message`, `what` (the message between the rule id and the fix), as tmakit.Violation has them."""

    __slots__ = ()
    rule: str
    severity: str
    field: str
    value: str
    expected: str
    actual: str
    bytes: list[int]
    effect: str
    fix: str
    message: str
    what: str

    def __str__(self) -> str:
        return self.message


class PlanCheck(Record):
    """A descriptor checked against a plan: `ok` (no error finding), `hangs` (a barrier would wait for
    bytes that never come), `findings`, `copy_bytes` (what one copy of the descriptor delivers),
    `stage_bytes`, `plan_expect_tx`, `armed_bytes` (what the barrier is armed with: the caller's count,
    else the plan's expect_tx), `address_compared`, `expected` (the plan's descriptor)."""

    __slots__ = ()
    ok: bool
    hangs: bool
    copy_bytes: int
    stage_bytes: int
    plan_expect_tx: int
    armed_bytes: int
    address_compared: bool

    @property
    def findings(self) -> list[PlanFinding]:
        return [PlanFinding(f) for f in self._data["findings"]]

    @property
    def fields(self) -> list[str]:
        """The fields of the findings, in order."""
        return [f["field"] for f in self._data["findings"]]

    @property
    def rules(self) -> list[str]:
        return [f["rule"] for f in self._data["findings"]]

    @property
    def expected(self) -> TensorMap:
        return TensorMap(self._data["expected"])

    @property
    def text(self) -> str:
        if not self._data["findings"]:
            return f"matches the plan: one copy delivers {self.copy_bytes} B, the plan expects {self.plan_expect_tx} B per stage"
        return "\n".join(f["message"] for f in self._data["findings"])

    def __bool__(self) -> bool:
        return bool(self._data["ok"])

    def __str__(self) -> str:
        return self.text


class GatherCheck(Record):
    """A descriptor checked for Blackwell's TMA row gather or scatter (`tmakit check-gather --json`):
    `op`, `target`, `dst` (None for scatter4), `instruction` (the PTX form), `row_bytes` (one row of
    boxDim[0] elements), `copy_bytes` (the four rows one copy moves), `box_bytes` (the map's box, as a
    tiled copy delivers it), `copies`, `expect_tx` (copies x copy_bytes: what to arm the barrier with;
    None for scatter4), `armed_bytes`, `text`. Only returned when nothing is refused."""

    __slots__ = ()
    op: str
    target: str
    dst: str | None
    instruction: str
    row_bytes: int
    copy_bytes: int
    box_bytes: int
    copies: int
    expect_tx: int | None
    armed_bytes: int | None
    text: str

    def __str__(self) -> str:
        return self.text


class StorePlan(Record):
    """A register -> shared-memory store plan (`tmakit smem-store --json`'s object: instruction,
    instructions_per_thread, order, wavefronts, candidates, fixes, ...), with `text` and `svg`."""

    __slots__ = ()
    instruction: str
    instructions_per_thread: int
    text: str
    svg: str

    def __str__(self) -> str:
        return self.text


class MulticastPlan(Record):
    """One operand's tile shared across a cluster: `decision`, `tile_bytes`, `buffer_bytes`,
    `slice_dim`, `notes`, and `ctas` (per CTA rank: coord, issues, mask, slice, coord_offset,
    smem_offset, bytes, senders, fan_in, expect_bytes)."""

    __slots__ = ()
    decision: str
    tile_bytes: int
    ctas: list[dict[str, Any]]


class ClusterStage(Record):
    """Every copy that lands in one stage of a cluster, added up per CTA (`tmakit cluster-stage`):
    `cluster`, `cta_group` (1 or 2), `arch`, `ctas` (per CTA rank: expect_bytes, the bytes to arm its
    full barrier with, and its tma_bytes and dsmem_bytes parts; tma_landed_bytes, the TMA bytes
    landing in its shared memory, and tma_barrier, the CTA whose barrier counts them (with
    cta_group 2, its pair's even CTA); remote_arrivals and init_count; senders and receivers as
    masks and as text, "0b11 (0x3: CTAs 0, 1)"; issues), `notes`, and `text` (one line per CTA)."""

    __slots__ = ()
    cluster: tuple[int, int, int]
    cta_group: int
    arch: str
    ctas: list[dict[str, Any]]
    text: str

    def __str__(self) -> str:
        return self.text


class DsmemPlan(Record):
    """An SM-to-SM copy: `path` (bulk_single, bulk_multi, st_async, st_cluster), `reason`,
    `reason_text`, `pieces` ((src, dst, bytes) each), `tx_bytes` (what the receiving barrier must
    expect), `issuing_threads`, `receiver_init_count`, ..."""

    __slots__ = ()
    path: str
    tx_bytes: int

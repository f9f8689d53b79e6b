"""tmakit.Refused and tmakit.Violation: how the library's refusals reach Python."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping


@dataclass(frozen=True)
class Violation:
    """One violated rule, with the ids and words the CLI prints: the library's one diagnostic shape
    (rule id, where, what, fix) and its line.

    rule: the stable id ("strides.align16", "plan.inner_contiguous", "layout.composition_stride", ...);
    field (also `where`): the parameter or place it concerns ("globalStrides[0]", "tile mode 0 (M)", "");
    value: the offending value as text ("" where the message holds the numbers); message: the CLI's
    line ("error [strides.align16] globalStrides[0] = 2056: ...; fix: ..."); fix: the fix alone;
    what: the line between the rule id and the fix ("globalStrides[0] = 2056: ..."; "" where the
    refusal has no finding behind it).
    """

    rule: str
    field: str
    value: str
    message: str
    fix: str
    what: str = ""

    @property
    def where(self) -> str:
        """The place the finding concerns: `field`."""
        return self.field

    def __str__(self) -> str:
        return self.message


class Refused(ValueError):
    """The library refused: every violation at once, in `violations` (a list of Violation)."""

    violations: list[Violation]

    def __init__(self, violations: Iterable[Violation | Mapping[str, Any]]):
        self.violations = [v if isinstance(v, Violation) else Violation(**v) for v in violations]
        super().__init__("\n".join(v.message for v in self.violations) or "refused")

    @property
    def rules(self) -> list[str]:
        """The rule ids, in order."""
        return [v.rule for v in self.violations]

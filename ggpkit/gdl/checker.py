"""Static checks of a GDL game description (placeholder: full checks land next)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ggpkit.gdl.kif import Rule
from ggpkit.gdl.terms import Pos


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem found by the checker, printed as ``file:line:col: severity: message``."""

    pos: Pos
    severity: str
    message: str

    def __str__(self) -> str:
        return f"{self.pos}: {self.severity}: {self.message}"


def check_rules(rules: Sequence[Rule]) -> list[Problem]:
    """Every problem of a game description, in source order."""
    return []

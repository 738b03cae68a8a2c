"""What peg solitaire declares beyond the rules: its notation, board look, solver and hint.

Providers here are what ``PegGame.info.capabilities`` names; each imports the heavy
parts (the solver's kernels, the value table) only when it is first called.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from pathlib import Path
from typing import Any

from ggpkit.games.api import Game
from ggpkit.games.capabilities import BoardStyle, Solution, Solver, TableProgress
from ggpkit.gdl.terms import Const, Func, Term

_SHORT_RE = re.compile(r"^\s*([a-g])\s*c?([1-7])\s*[-x ]\s*([a-g])\s*c?([1-7])\s*$", re.IGNORECASE)

BOARD = BoardStyle(
    relation="hole",
    col_arg=2,
    rows_down=True,
    pieces={"peg": {"color": "#b45309", "label": ""}},
    look="holes",
    col_labels={f"c{i}": str(i) for i in range(1, 8)},
)
"""``(hole ROW COL content)``: rows a..g from the top, columns c1..c7; pegs in holes."""


class PegNotation:
    """``b4-d4`` for ``(jump b c4 d c4)``: source row and column, then target."""

    help = "b4-d4 (the peg on b c4 jumps over c c4 into d c4)"

    def short(self, move: Term) -> str:
        """The short form of a jump (other terms as they are)."""
        if isinstance(move, Func) and move.name == "jump" and len(move.args) == 4:
            sr, sc, dr, dc = (str(a) for a in move.args)
            return f"{sr}{sc.removeprefix('c')}-{dr}{dc.removeprefix('c')}"
        return str(move)

    def parse(self, text: str) -> Term | None:
        """A jump from its short form (``b4-d4``, also ``bc4-dc4``); None if not that form."""
        m = _SHORT_RE.match(text)
        if m is None:
            return None
        sr, sc, dr, dc = m.groups()
        return Func(
            "jump", (Const(sr.lower()), Const(f"c{sc}"), Const(dr.lower()), Const(f"c{dc}"))
        )


class PegExactSolver:
    """The peg solver behind the ``Solver`` protocol: from the value table when it is built."""

    def __init__(self) -> None:
        from ggpkit.games.peg.solver import PegSolver
        from ggpkit.games.peg.table import PegTable, PegTableError

        try:
            table = PegTable() if PegTable.available() else None
        except PegTableError:
            table = None
        self.solver = PegSolver(lookup=table.lookup if table is not None else None)
        self.with_table = table is not None

    def solve(self, game: Game[Any], state: Hashable, role: str) -> Solution:
        """The state's value and one move keeping it. Not every move's value: proving
        that a move loses points can take seconds without the table, longer than a short
        play clock; the best move is found from the memo the value's search leaves."""
        from ggpkit.games.peg.solver import board_of_facts

        value, _ = self.solver.value(board_of_facts(game.facts(state)))
        move = None if game.is_terminal(state) else self.solver.best_move(game, state)
        note = "from the table of all positions" if self.with_table else "by search"
        return Solution({role: value}, move, notes=(f"peg solver, {note}",))


def solver() -> Solver:
    """The exact solver (also the web coach's hint: it answers in milliseconds)."""
    return PegExactSolver()


def build_table(progress: TableProgress) -> Path:
    """Build the table of all reachable positions (about 10 minutes, 210 MB in the cache)."""
    from ggpkit.games.peg.table import build, table_path

    return build(table_path(), progress)


def end_reason(facts: frozenset[Term]) -> str:
    """No jump is left; how many pegs stay, and whether the last one is in the centre."""
    pegs = sorted(
        f"{f.args[0]} {f.args[1]}"
        for f in facts
        if isinstance(f, Func) and f.name == "hole" and str(f.args[2]) == "peg"
    )
    if pegs == ["d c4"]:
        return "no jump is left: the last peg is in the centre"
    if len(pegs) == 1:
        return f"no jump is left: one peg remains, on {pegs[0]} (not the centre)"
    return f"no jump is left: {len(pegs)} pegs remain"

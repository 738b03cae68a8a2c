"""Local search over the lines of a view (``ggpkit.games.repair``): from a line that
gives the view, it wanders among the lines that give it too, to one whose last state
meets a condition, and finds none where the view rules the condition out."""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable

from games.gdl2_support import MONTY_HALL
from ggpkit.games.gdl.game import GdlGame, load_kif_text
from ggpkit.games.repair import repair_line
from ggpkit.games.views import RoleView
from ggpkit.gdl.kif import parse_term

TRUE_LINE = [["(place d1)", "(pick d3)"], ["(reveal d2)", "wait"]]
"""The car behind door 1, the contestant on door 3, the host opening door 2."""


def _holds(game: GdlGame, fact: str) -> Callable[[Hashable], bool]:
    term = parse_term(fact)
    return lambda state: term in game.facts(state)


def test_from_the_true_line_it_finds_each_door_the_view_allows_and_no_other() -> None:
    game = load_kif_text(MONTY_HALL, "monty", reasoner="prover")
    joints = [[parse_term(m) for m in joint] for joint in TRUE_LINE]
    view = RoleView("contestant", (joints[0][1], joints[1][1]),
                    (frozenset(), frozenset({parse_term("(opened d2)")})))  # fmt: skip
    start = (game.initial_state(),)
    for door, allowed in (("d3", True), ("d1", True), ("d2", False)):
        wanted = _holds(game, f"(car {door})")
        found = repair_line(game, view, random.Random(1), start, 2_000, None, joints, wanted)
        assert (found is not None) == allowed, door
        if found is not None:
            assert len(found) == 3 and wanted(found[-1])
            assert _holds(game, "(opened d2)")(found[-1]) and _holds(game, "(pick d3)")(found[-1])

"""GDL-II test games: a Monty Hall written here from the puzzle's rules, and the public
games of ``../shared/gdl2-games`` (or ``$GGPKIT_GDL2_GAMES_DIR``) sorted by what their
rules do as written. Tests that read the folder skip cleanly where it is absent; its
games are never copied into the project.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

MONTY_HALL = """\
; The Monty Hall puzzle: nature hides a car behind one of three doors while the
; contestant picks one; nature then opens another door without the car, which the
; contestant sees; the contestant stays or switches, and is shown where the car was.
(role random)
(role contestant)
(door d1) (door d2) (door d3)
(init (phase hide))

(<= (legal random (place ?d)) (true (phase hide)) (door ?d))
(<= (legal contestant (pick ?d)) (true (phase hide)) (door ?d))
(<= (legal random (reveal ?d))
    (true (phase reveal)) (door ?d) (not (true (car ?d))) (not (true (pick ?d))))
(<= (legal contestant wait) (true (phase reveal)))
(<= (legal random wait) (true (phase decide)))
(<= (legal contestant stay) (true (phase decide)))
(<= (legal contestant switch) (true (phase decide)))

(<= (sees contestant (opened ?d)) (does random (reveal ?d)))
(<= (sees contestant (car ?d)) (true (phase decide)) (true (car ?d)))

(<= (next (car ?d)) (does random (place ?d)))
(<= (next (car ?d)) (true (car ?d)))
(<= (next (pick ?d)) (does contestant (pick ?d)))
(<= (next (pick ?d)) (true (pick ?d)) (not (true (phase decide))))
(<= (next (pick ?d)) (true (pick ?d)) (does contestant stay))
(<= (next (pick ?d))
    (does contestant switch) (door ?d) (not (true (pick ?d))) (not (true (opened ?d))))
(<= (next (opened ?d)) (does random (reveal ?d)))
(<= (next (opened ?d)) (true (opened ?d)))
(<= (next (phase reveal)) (true (phase hide)))
(<= (next (phase decide)) (true (phase reveal)))
(<= (next (phase over)) (true (phase decide)))

(<= terminal (true (phase over)))
(<= won (true (pick ?d)) (true (car ?d)))
(<= (goal contestant 100) won)
(<= (goal contestant 0) (not won))
"""

FRAGMENTS = {
    "minesweeper_robot.kif": "minesweeper.kif",
    "minesweeper1_robot.kif": "minesweeper1.kif",
}
"""Fragments, with the game each extends: rules for a ``robot_choice`` meant to be added
to a minesweeper (no role, legal, goal or terminal), loaded with the game beside them
(:func:`ggpkit.games.gdl.game.extended_game`)."""

REPAIRED = {
    "BattleshipsFog.kif": ((46, 12, "safety"), 6, "(role ?player) added"),
    "ConnectThreeDecompositionII.kif": ((141, 5, "keyword"), 1, "(true (turn ?c)) is no rule"),
    "blackjack.kif": ((271, 9, "arity"), 5, "'next-player/1'"),
    "minesweeper.kif": ((159, 5, "arity"), 1, "read as (not open)"),
    "numberguessing.kif": ((126, 10, "arity"), 1, "'true/2'"),
}
"""Files the checker refuses as written (first error: line, column, kind) that load
repaired (:mod:`ggpkit.gdl.repairs`): the number of repairs, and words of the first
one's warning, which stands at the first error's place. Unsafe role variables tested
by ``distinct``; a stray ``(true ...)`` after a rule closed early; a relation with two
arities (``next-player``, ``true``); a bare ``not``."""

MISSPELT = {
    "IrrelevantMultiboardConnectThreeDecompositionI.kif": (
        (233, 2),
        "'winningolor' is never defined: read as 'winningcolor', one letter apart",
    ),
}
"""Files the checker only warns of, a relation never defined, which load reads as the
defined relation one letter away (:func:`ggpkit.gdl.repairs.read_misspelt_relations`):
the warning's place and the repair's words. As written, ``winningolor`` leaves playerb
without a goal in some terminal states."""

RULE_BUGS: dict[str, str] = {}
"""Files that load, but whose random matches reach terminal states where a role has no
goal or two (as the rules are written: the prover and the propnet agree), with why;
tests that play them skip such a match saying so. None of the public files today: GDL-II
ones have their goals completed (:func:`ggpkit.gdl.game_rules.with_goal_completion`),
and the one plain GDL file that was here is :data:`MISSPELT`."""

COMPLETED = {
    "HoldYourCourseII.kif": "the player's goal reads an undefined 'score': no goal, ever",
    "KriegTictactoe.kif": "both players may complete a line at once: two goals each",
    "MontyHall-20door.kif": "nature may keep the candidate's own door twice: after a "
    "switch the candidate has chosen no door, and so has no goal",
    "minesweeper1.kif": "some numbers of missed cells have no goal rule",
}
"""GDL-II files whose rules as written leave a role no goal or two in some terminal
states: playable once their goals are completed (the highest value, 0 where none)."""

PLAYABLE = (
    "BankerAndThief.kif", "BlindBreakthrough.kif", "CabbageGoatWolf.kif", "HiddenConnect.kif",
    "Mastermind448.kif", "MontyHall.kif", "MontyHall2.kif", "SmallDominion2.kif",
    "rockpaperscissors.kif", "twogenerals.kif", *COMPLETED, *REPAIRED, *MISSPELT, *FRAGMENTS,
)  # fmt: skip
"""Files whose random matches all end with one goal per role."""

LOADED = (*PLAYABLE, *RULE_BUGS)

PERFECT = ("CabbageGoatWolf.kif", "IrrelevantMultiboardConnectThreeDecompositionI.kif",
           "rockpaperscissors.kif")  # fmt: skip
"""Files without ``sees``: plain GDL, of perfect information as far as GDL can tell."""

SLOW = ("SmallDominion2.kif",)
"""Runs on the join code (grounding refuses it) and takes longest: its long checks are slow."""


def gdl2_dir() -> Path:
    """The folder of public GDL-II games; skips the test where it is absent."""
    env = os.environ.get("GGPKIT_GDL2_GAMES_DIR")
    path = Path(env) if env else Path(__file__).resolve().parents[3] / "shared" / "gdl2-games"
    if not path.is_dir():
        pytest.skip(f"{path} (the public GDL-II games) is not present")
    return path


def marked(names: tuple[str, ...]) -> list[object]:
    """``names`` as pytest parameters, the :data:`SLOW` ones marked slow."""
    return [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in names]

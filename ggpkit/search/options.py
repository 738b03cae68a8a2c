"""What one compiled tree search is told: how long it runs, and how it searches.

Why objects, not arguments: a search takes some twenty settings, and a signature that
long was copied by every tree and forwarded positionally, where swapping two booleans
would pass unnoticed. :class:`SearchLimit` is how long (the shape of python-chess's
``engine.Limit``); :class:`SearchOptions` is how, one field per setting, each with its
default, the parser of its text in an agent spec (``mcts:paths=16``) and its help, so
that the spec's options and help are read from here and stated nowhere else.

Most fields are settings a person gives. ``seed`` and ``pieces`` are not: the caller
sets them for each search (a fresh random stream, the pieces the agent found this
match). Where a default is None, the MCTS agent decides per game; a tree searched
directly takes None as the plain search (no heuristic, one path at a time).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import Field, dataclass, field, fields
from typing import Any

from ggpkit.gdl.terms import Term

Parser = Callable[[str], float | int | bool]
"""Reads an option's value from its text; raises ValueError saying what is valid."""

UCB_C = 1.4
"""The UCB constant (rewards in 0..1) where a leaf is valued by several playouts."""

UCB_C_PATHS = 0.4
"""The UCB constant where each of a batch's paths gets one playout (the compiled tree's
default). One playout is a noisy value: with 1.4 the visits spread almost evenly over
the moves of a wide position, and a forced reply got a small share of them. 0.4 is
CadiaPlayer's 40 on the 0-100 goal scale, and played better than 1.4 in arenas
(DEVELOPERS.md)."""


def positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise ValueError("must be > 0")
    return value


def non_negative_float(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise ValueError("must be >= 0")
    return value


def share(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise ValueError("must be between 0 and 1")
    return value


def flag(text: str) -> bool:
    if text not in ("0", "1"):
        raise ValueError("must be 0 or 1")
    return text == "1"


def positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise ValueError("must be a whole number > 0")
    return value


def non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise ValueError("must be a whole number >= 0")
    return value


def option(parse: Parser, text: str, unset: str | None = None) -> dict[str, Any]:
    """A field's metadata: how its value is read from a spec, what it does (``help``)
    and, for a default of None, what happens unless it is given (``unset``)."""
    return {"parse": parse, "help": text, "unset": unset}


@dataclass(frozen=True, slots=True)
class SearchLimit:
    """How long one search runs; None: no limit of that kind, but one must be given."""

    time: float | None = None
    """Seconds of wall clock (a compiled call that would overrun them is not started)."""
    iterations: int | None = None
    """Passes down the tree (a batch of paths counts one a path)."""


@dataclass(frozen=True, slots=True)
class SearchOptions:
    """How a compiled tree searches (see the module docstring). A tree ignores what it
    cannot do (its help says which trees do what)."""

    c: float | None = field(
        default=None,
        metadata=option(
            non_negative_float,
            "C: the exploration constant of UCB, for rewards in 0..1",
            f"{UCB_C_PATHS:g} where paths share a batch, else {UCB_C:g}",
        ),
    )
    leaf: int = field(
        default=8,
        metadata=option(
            positive_int,
            "N: playouts per new leaf (where paths share a batch, its 64 lanes are split among"
            " them instead; one path at a time, 8 or more fill a whole 64-lane batch)",
        ),
    )
    mast: bool = field(
        default=False,
        metadata=option(
            flag,
            "1: compiled-tree playouts choose moves by MAST (epsilon-greedy on each move's"
            " mean reward in the match's earlier playouts), one playout per leaf",
        ),
    )
    """Off until an arena shows it helps (see DEVELOPERS.md)."""
    grave: int = field(
        default=0,
        metadata=option(
            non_negative_int,
            "N: the compiled tree selects by GRAVE, a node's all-moves-as-first statistics"
            " used from N visits (0: UCB)",
        ),
    )
    paths: int | None = field(
        default=None,
        metadata=option(
            positive_int,
            "N: in games of several roles, the compiled tree's 64-lane leaf batch is shared"
            " by the leaves of N paths, which descend with virtual losses (1: one leaf's"
            " batch at a time)",
            "chosen per game so that a path's playouts cost about what the path does, 4-64",
        ),
    )
    goals: float | None = field(
        default=None,
        metadata=option(
            share,
            "W: in the compiled tree over paths, a new leaf whose state gives every role a"
            " goal is worth that share of those goals, the rest of its playouts",
            "0.6 where random matches show that mid-game goals foretell the result, else 0",
        ),
    )
    material: float | None = field(
        default=None,
        metadata=option(
            share,
            "W: where the goal heuristic is off, a new leaf is worth that share of what the"
            " pieces each role won or lost since the root say, pieces found by random"
            " matches (0: off)",
            "0.5 where piece counts foretell the results, else 0",
        ),
    )
    greedy: bool = field(
        default=False,
        metadata=option(
            flag,
            "1: the compiled tree's playouts on a propnet take a move that ends the game at"
            " its role's best goal and take back one that lets the next role do so"
            " (0: uniformly random)",
        ),
    )
    """Off: their trials cost little where few moves can end a game and much where many
    can, and in the arenas they did not pay for their cost (DEVELOPERS.md)."""
    wins: bool = field(
        default=True,
        metadata=option(
            flag,
            "1: the compiled tree on a propnet proves a new node where its mover wins in"
            " one, trying the moves seen to end a playout so (Teytaud and Teytaud's"
            " decisive moves), so the solver sees a threat when the node is made",
        ),
    )
    minimax: float = field(
        default=0.0,
        metadata=option(
            share,
            "W: where a goal or material heuristic is on, selection mixes that share of each"
            " move's heuristic value backed up by minimax over the tree into its mean"
            " (implicit minimax backups, Lanctot et al. 2014)",
        ),
    )
    blunders: bool = field(
        default=True,
        metadata=option(
            flag,
            "1: in the compiled tree, a path that ends in a reply proven to lose for its"
            " mover adds nothing to the means of the moves above it, the mover will not"
            " play it (0: it counts as that loss)",
        ),
    )
    """Counted as a reward, each such reply, visited once before it is shunned, raised
    the move that threatened it above a better quiet one."""
    latches: bool = field(
        default=True,
        metadata=option(
            flag,
            "1: the compiled tree on a propnet proves a node whose latched facts (true or"
            " false for good) already settle every role's goal",
        ),
    )
    mobility: float = field(
        default=0.0,
        metadata=option(
            share,
            "W: where the goal and material heuristics are off and random matches show it"
            " foretells the results, a new leaf in the compiled tree on a propnet is worth"
            " that share of each role's share of the roles' legal moves (0: off)",
        ),
    )
    """Off: no measured gain."""
    nested: float = field(
        default=0.0,
        metadata=option(
            share,
            "S: in a one-role game on a propnet, that share of each move's time goes to a"
            " nested Monte Carlo search, whose best line is played where it beats the tree's",
        ),
    )
    """Off: with the depth-first solver it did no better than the solver alone."""
    dfs: float = field(
        default=0.5,
        metadata=option(
            share,
            "S: likewise, that share of the searches' time goes first to a depth-first"
            " solver with a transposition table kept for the match, which solves small"
            " puzzles outright (0: off; it runs in one process only)",
        ),
    )
    """Half: it solved more puzzles of the corpus, and scored more, than the tree alone."""
    bfs: float = field(
        default=0.2,
        metadata=option(
            share,
            "S: likewise, that share of the searches' time goes before all to a"
            " breadth-first search for the shortest line to the top goal, played once"
            " found; where random matches show a step counter, it keeps each position"
            " once, at its first arrival (it stops for the match once its table is full;"
            " not in fill puzzles)",
        ),
    )
    """A fifth: see the results file (puzzles that pay for short solutions)."""
    ordered: bool | None = field(
        default=None,
        metadata=option(
            flag,
            "1: that solver tries each state's moves best first by the goal each leads to,"
            " then fewest onward moves first (Warnsdorff's rule: the square hardest to reach"
            " later is visited now); 0: in the rules' order",
            "1 where random matches show the goal to rise at nearly every move (it counts"
            " the moves: the longest line wins), the moves do not commute and the game is"
            " no fill puzzle, else 0",
        ),
    )
    """Not everywhere: ordering costs a look at each child before the search goes down,
    and on in every puzzle where moves do not commute it lost more puzzles than it won
    (see the results file)."""
    monotone: bool = field(
        default=True,
        metadata=option(
            flag,
            "1: where random matches never see a one-role game's goal rise, that solver"
            " values a state already at the least goal so at once (goal-monotonicity)",
        ),
    )
    """On: it found such goals in the queens puzzles, hitori and a few more, where it
    raised the scores, and changed nothing elsewhere."""
    commute: bool = field(
        default=True,
        metadata=option(
            flag,
            "1: where random matches show a one-role game's moves to commute (either order"
            " reaches one state, and no move becomes legal that was not), that solver tries"
            " each set of moves in one order (not in fill puzzles)",
        ),
    )
    """On: see the results file (queens, knights)."""
    fill: bool = field(
        default=True,
        metadata=option(
            flag,
            "1: where random matches show a one-role game to be a fill puzzle (moves fill"
            " slots its top goal needs filled, in any order), that solver branches on the"
            " slot with the fewest moves left and drops a state with a slot none fills",
        ),
    )
    """On: see the results file (fill puzzles: sudoku, futoshiki, hidato)."""
    toggles: bool = field(
        default=True,
        metadata=option(
            flag,
            "1: where random matches show a one-role game's moves always legal, each"
            " flipping the same facts wherever played (lights out), the fewest moves that"
            " leave no fact ruling out the top goal are found by linear algebra over GF(2)"
            " and played where the rules confirm the line",
        ),
    )
    """On: see the results file (lightsOut)."""
    seed: int = 0
    """The search's random stream (set for each search)."""
    pieces: tuple[frozenset[Term], ...] = ()
    """One set of facts per role in the game's role order, set for each search where the
    material heuristic is used: the goals a leaf is worth then come from the facts of
    each set that hold, each role's pieces won or lost since the root against the
    others', at the share ``goals``. Trees that cannot count facts ignore it."""

    def exploration(self, batched: bool) -> float:
        """The UCB constant: ``c`` where given, else :data:`UCB_C_PATHS` where paths share
        a batch (``batched``), else :data:`UCB_C`."""
        if self.c is not None:
            return self.c
        return UCB_C_PATHS if batched else UCB_C

    def path_count(self) -> int:
        """The paths of a batch: ``paths``, or one where not given."""
        return 1 if self.paths is None else self.paths

    def goal_share(self) -> float:
        """The heuristic's share of a leaf's value: ``goals``, or none where not given."""
        return 0.0 if self.goals is None else self.goals


def parsers(options: type[SearchOptions]) -> dict[str, Parser]:
    """Each option a person may give, in field order, with the parser of its text."""
    return {f.name: f.metadata["parse"] for f in fields(options) if "parse" in f.metadata}


def help_lines(options: type[SearchOptions]) -> list[str]:
    """``name=VALUE: what it does (default: ...)`` for each option a person may give."""
    return [_help_line(f) for f in fields(options) if "parse" in f.metadata]


def _help_line(f: Field[Any]) -> str:
    meta: Mapping[str, Any] = f.metadata
    default = meta["unset"] if f.default is None else _shown(f.default)
    return f"{f.name}={meta['help']} (default: {default})"


def _shown(value: object) -> str:
    """A default as a spec writes it: a flag as 0 or 1, a number without a needless .0."""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)

"""What every compiled search tree promises its caller (the MCTS agent), and how it says no.

A game declares a tree as a capability (``Capabilities.tree_search``); the tree lives in
this layer, below the games, so its contract does too.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Protocol

from ggpkit.errors import GgpkitError
from ggpkit.gdl.terms import Term


class CannotSearchError(GgpkitError):
    """This tree cannot search this game or state (two roles choosing at once without
    batched paths, too many joint moves, a state of another game): the agent searches
    another way. Any other error from a tree is a fault and is not caught."""


@dataclass(frozen=True, slots=True)
class TreeReport:
    """What a compiled tree search found at its root, for the role that chooses there."""

    mover: str
    moves: tuple[Term, ...]
    visits: tuple[float, ...]
    means: tuple[float, ...]
    """The mover's mean reward (0..1) after each move."""
    exact: tuple[float | None, ...]
    """The mover's proven value (0..1) after each move, where proven."""
    proven: Mapping[str, float] | None
    """Every role's proven value (0..1) of the root, if proven."""
    iterations: int
    playouts: float
    best_line: tuple[Term, ...] = ()
    """One-role games: the moves of the best line found from the root."""
    best_value: float = -1.0
    greedy: bool = False
    """The playouts were greedy (asked for, and the tree's playouts are otherwise
    uniform): they then cost more than the game's own timed playouts."""


class TreeSearch(Protocol):
    """A game's compiled MCTS tree (one per agent, not shared between threads).

    The MCTS agent runs its search in it instead of in Python where a game declares one;
    its tree is kept between calls (a search from a state near the last root continues).
    """

    def search(
        self,
        state: Hashable,
        seconds: float | None,
        iterations: int | None,
        c: float,
        leaf: int,
        seed: int,
        mast: bool = False,
        grave: int = 0,
        paths: int = 1,
        goals: float = 0.0,
        role: str | None = None,
        material: tuple[frozenset[Term], ...] = (),
        greedy: bool = False,
        wins: bool = False,
        minimax: float = 0.0,
        blunders: bool = True,
        latches: bool = True,
        mobility: bool = False,
        nested: float = 0.0,
        dfs: float = 0.0,
        ordered: bool = False,
        monotone: bool = False,
    ) -> TreeReport:
        """Search ``state`` within the limits (UCB constant ``c``, ``leaf`` playouts per leaf;
        ``mast``: playouts choose moves by MAST, one playout per leaf; ``grave`` > 0:
        selection by GRAVE with that reference threshold; ``paths`` > 1: that many paths
        descend, with virtual losses, before their leaves are played out together;
        ``goals`` > 0, with paths: a leaf is worth that share of the goals its state
        gives, where it gives every role one, the rest of its playouts; trees that do not
        know goals outside terminal states ignore it; ``material``, one set of facts per
        role in the game's role order: the goals a leaf is worth then come from the facts
        of each set that hold, each role's pieces won or lost since the root against the
        others'; trees that cannot count facts ignore it; ``greedy``: playouts take a
        move that wins at once where they find one and take back one that lets the next
        role win at once, in trees whose playouts are uniform otherwise; ``wins``: a new
        node where its mover has a move that wins at once is proven when it is made, in
        trees that can look; ``minimax`` > 0, with ``goals``: selection mixes that share of
        each child's heuristic goals, backed up by minimax over the tree, into its mean
        reward, in trees that keep them; ``blunders``: a path that ends in a move proven to
        lose for its mover adds nothing to the means of the moves above it; ``latches``: a
        node whose latched facts (facts that can no longer change) settle every role's
        goal is a leaf of that value, in trees that find latches; ``mobility``, with
        ``goals`` and paths: the goals a leaf is worth are each role's share of all roles' legal
        moves, in the leaf or, for a role without a choice there, in its parent, in
        trees that know each role's moves; ``nested`` > 0, in a one-role game searched
        for ``seconds``: that share of them goes to a nested Monte Carlo search, whose
        best line is reported where it beats the tree's, in trees that have one; ``dfs`` > 0,
        likewise: that share goes first to a depth-first search with a transposition
        table, kept for the match, which solves small puzzles outright; ``ordered``: that
        search tries each state's moves best first by the goal of the state each leads
        to; ``monotone``: where random matches never see role 0's goal rise, that search
        values a state already at the role's least goal so at once). Where several
        roles choose in ``state``, the report is ``role``'s (decoupled statistics: each
        role its own).

        Raises :class:`CannotSearchError` where it cannot search the game (two
        roles choosing at once without batched paths, or too many joint moves): the
        agent then searches another way.
        """
        ...

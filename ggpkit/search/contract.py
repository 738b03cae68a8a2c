"""What every compiled search tree promises its caller (the MCTS agent), and how it says no.

A game declares a tree as a capability (``Capabilities.tree_search``); the tree lives in
this layer, below the games, so its contract does too.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from ggpkit.errors import GgpkitError
from ggpkit.gdl.terms import Term
from ggpkit.search.options import SearchLimit, SearchOptions


class CannotSearchError(GgpkitError):
    """This tree cannot search this game or state (two roles choosing at once without
    batched paths, too many joint moves, a state of another game): the agent searches
    another way. Any other error from a tree is a fault and is not caught."""


class SimultaneousMovesError(CannotSearchError):
    """A state where two or more roles choose at once, met by a search that takes one
    mover per state: a compiled tree without batched paths, or the generic solver (the
    value of such a state needs mixed strategies). ``game`` and ``roles`` say where,
    when the search knows."""

    def __init__(self, message: str, game: str | None = None, roles: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.game = game
        self.roles = tuple(roles)


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
    fill: Term | None = None
    """One-role fill puzzles whose solver knows no line to the top goal yet: the move
    its search is under, to play ahead of the tree's statistics, which know nothing of
    a goal given only at the end (:mod:`~ggpkit.search.puzzles.fill_slots`)."""
    greedy: bool = False
    """The playouts were greedy (asked for, and the tree's playouts are otherwise
    uniform): they then cost more than the game's own timed playouts."""


class TreeSearch(Protocol):
    """A game's compiled MCTS tree (one per agent, not shared between threads).

    The MCTS agent runs its search in it instead of in Python where a game declares one;
    its tree is kept between calls (a search from a state near the last root continues).
    """

    def search(
        self, state: Hashable, limit: SearchLimit, options: SearchOptions, role: str | None = None
    ) -> TreeReport:
        """Search ``state`` within ``limit`` as ``options`` say: each option's help says
        what it does and in which trees; a tree ignores what it cannot do. As a tree
        reads them: ``c`` None is :meth:`SearchOptions.exploration`'s; ``paths`` None is
        one path at a time; ``goals`` is the share of whichever heuristic values a leaf
        (None: none): its state's goals, or with ``pieces`` what each role's pieces won
        or lost since the root say, or with ``mobility`` > 0 each role's share of all
        roles' legal moves in the leaf or, for a role without a choice there, in its
        parent (trees that do not know goals outside terminal states, count facts or
        know each role's moves ignore them); ``nested`` and ``dfs`` are shares of this
        search's ``limit.time``, in a one-role game searched for a time (searched for
        iterations, they are only loaded). Where several roles choose in ``state``, the
        report is ``role``'s (decoupled statistics: each role its own; None: the first
        choosing role's).

        Raises :class:`CannotSearchError` where it cannot search the game (two
        roles choosing at once without batched paths, or too many joint moves): the
        agent then searches another way.
        """
        ...

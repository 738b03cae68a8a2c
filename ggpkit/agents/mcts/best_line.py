"""The best line of a one-role game: kept from search to search, and played.

Why: in a deterministic one-role game a line found is a guaranteed score, where a
sample of visits is only a guess, so the agent keeps the best complete line any of
its searches saw (the Python tree's playouts, the compiled tree's report, a worker's
reply) and plays it while it passes the state searched and the tree has not proven
its next move worse than another.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from ggpkit.agents.mcts.choice import candidates
from ggpkit.games.api import Game
from ggpkit.gdl.terms import Term

WAIT_CANDIDATES = 4
"""How many of the root's moves are tried as a wait before a kept line's early end (see
:meth:`BestLine.unless_end_waits`): each costs two steps of the game."""

Line = list[tuple[Hashable, Term]]
"""A line as (state, the move made there) pairs, from the first state on."""


class BestLine:
    """The best line seen in a match, worth ``value`` (0..1; -1 before any)."""

    def __init__(self) -> None:
        self.value = -1.0
        self.line: Line = []

    def clear(self) -> None:
        self.value, self.line = -1.0, []

    def offer(self, value: float, line: Line) -> None:
        """Keep ``line`` where it beats the line kept so far."""
        if value > self.value:
            self.value, self.line = value, line

    def keep(self, game: Game[Any], state: Hashable, value: float, moves: Sequence[Term]) -> None:
        """Keep a line of ``moves`` from ``state`` (a compiled search's, or a worker's)
        worth ``value`` where it beats the line kept so far."""
        if not moves or value <= self.value:
            return
        line: Line = []
        for move in moves:
            line.append((state, move))
            state = game._next(state, [move])
        self.value, self.line = value, line

    def line_from(self, state: Hashable) -> tuple[float, tuple[Term, ...]]:
        """The best value (0..1) seen and the moves of its line from ``state``, if the kept
        line passes it; else (-1, ())."""
        k = self._index(state)
        if k is None:
            return -1.0, ()
        return self.value, tuple(m for _, m in self.line[k:])

    def next_move(self, state: Hashable) -> Term | None:
        """The next move of the line, if it passes ``state`` (what was before is dropped)."""
        k = self._index(state)
        if k is None:
            return None
        self.line = self.line[k:]
        return self.line[0][1]

    def _index(self, state: Hashable) -> int | None:
        """Where the line passes ``state`` (None: it does not)."""
        return next((k for k, (s, _) in enumerate(self.line) if s == state), None)

    def not_proven_worse(
        self, move: Term, moves: Sequence[Term], exact: Sequence[float | None]
    ) -> bool:
        """Whether the line's next ``move`` is among the searched root's ``moves`` not
        proven worse than another (``exact``: their proven values); if not, the line is
        dropped and the tree's choice played.

        Why: a line worth nothing is only the first random line that ended; the tree may
        have proven its move lost while other moves are still open. Worthless lines are
        still followed where the tree knows nothing better: a random line beats the
        tree's choice among equals, which leans to the moves listed first."""
        if move not in moves or len(exact) != len(moves):
            return True
        if moves.index(move) in candidates(exact):
            return True
        self.clear()
        return False

    def unless_end_waits(
        self,
        game: Game[Any],
        state: Hashable,
        move: Term,
        moves: Sequence[Term],
        visits: Sequence[float],
    ) -> Term:
        """``move``, the line's next, unless it ends the game below the top goal while one
        of ``moves`` (the searched root's, most visited first) keeps that same end open:
        then that move.

        Why: in a deterministic one-role game such a move loses nothing (the end is still
        there a move later, worth as much), and the searches get another move's time to
        find better. A way to give up for a few points that is legal throughout (as
        hanoi_6_disks's ``giveup``), taken at once, leaves the solver no time to finish."""
        if len(self.line) > 1 or self.value >= 1.0:
            return move
        role = game.roles[0]
        ranked = sorted(range(len(moves)), key=lambda i: -visits[i])
        for other in [moves[i] for i in ranked if moves[i] != move][:WAIT_CANDIDATES]:
            after = game._next(state, [other])
            if game.is_terminal(after) or move not in game.legal_moves(after, role):
                continue
            end = game._next(after, [move])
            if game.is_terminal(end) and game.goals(end)[role] / 100.0 >= self.value:
                self.line = [(after, move)]  # the same end, a move later
                return other
        return move

"""Repairing a line of play until it gives a role's view: local search over joint moves.

The depth-first walk of :mod:`~ggpkit.games.sampling` proves a choice wrong only by
walking every line below it. Where the view's percepts all come late and speak of many
early choices at once, that is hopeless: in minesweeper the miner plants seven mines
unseen, and the sweeper's counts, seen steps later, fit one layout in thousands. A walk
guesses whole layouts; this module *mends* one. It keeps a complete line (a joint move
per step, the role's own moves as played), scores it by how many steps give the role
its percepts, and changes one other role's move at one step at a time (a mine moved
from one cell to another), replaying the steps after it with their moves where those
stay legal; a change that does not lower the score is kept. Counts that each speak of a
few mines are then met one by one, as a person solves the puzzle. The search restarts
from a fresh random line when a long run of changes found nothing better.

Local search proves nothing: it never says that no line exists, only finds one. The
replay of a player's record runs it after a short walk of the sampler
(:func:`~ggpkit.match.replay.history_of`). Players do not: mixed into the sampler's walks
it found minesweeper's layouts ten times sooner but made blind breakthrough's histories
rarer (65 steps of 142 without one, against 49).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ggpkit.games.api import Game
from ggpkit.games.information import History, can_play
from ggpkit.games.views import RoleView
from ggpkit.gdl.terms import Term

PATIENCE_PER_STEP = 20
"""Changes without a better score, per step of the line, before the search restarts."""


@dataclass(slots=True)
class _Line:
    """A line from the base state: its states, joint moves, each step's legal moves
    (role order; the own role's is its move as played), and which steps fit the view.
    ``states`` is one longer than ``joints`` unless the line got stuck (a state in which
    the role could not play its move), after which no step fits."""

    states: list[Hashable]
    joints: list[list[Term]] = field(default_factory=list)
    legal: list[list[list[Term]]] = field(default_factory=list)
    fits: list[bool] = field(default_factory=list)

    @property
    def score(self) -> int:
        return sum(self.fits)

    def copy(self) -> _Line:
        return _Line(list(self.states), list(self.joints), list(self.legal), list(self.fits))


class Repair:
    """Local search for a line from ``base`` (a history of the view's first steps).

    ``start`` (joint moves from ``base``) is the line each run of the search starts
    from, its moves kept where they stay legal (else a random line); ``wanted`` is a
    condition the line's last state must also meet. From a line that already gives the
    view, changes that keep every step fitting are accepted, so the search wanders
    among the histories of the view until one meets ``wanted``: a referee, who knows
    the true line, asks so whether a refused move was legal in a state the role could
    not rule out."""

    def __init__(self, game: Game[Any], view: RoleView, rng: random.Random,
                 base: History, deadline: float | None,
                 start: Sequence[Sequence[Term]] | None = None,
                 wanted: Callable[[Hashable], bool] | None = None) -> None:  # fmt: skip
        self.game, self.view, self.rng, self.deadline = game, view, rng, deadline
        self.base = base
        self.start = start
        self.wanted = wanted
        self.first = len(base) - 1
        """The view's step at which the line begins."""
        self.length = view.turn - self.first
        self.own = game.roles.index(view.role)
        self.spent = 0
        """Steps replayed so far."""
        self.best: _Line | None = None
        self.stale = 0
        """Changes since the best line's score last rose."""

    def run(self, budget: int) -> History | None:
        """A line that gives the view, within ``budget`` more replayed steps, or None.
        The search goes on where the last call left it (the sampler calls it between
        its walks)."""
        if self.length <= 0:
            return self.base if self.length == 0 else None
        stop = self.spent + budget
        while self.spent < stop and not self._late():
            if self.best is None or self.stale >= PATIENCE_PER_STEP * self.length:
                self.best, self.stale = self._replayed(self._fresh(), 0, None), 0
            if self._found(self.best):
                return (*self.base[:-1], *self.best.states)
            changed = self._changed(self.best)
            if changed is None:
                return None  # no other role has a choice anywhere: nothing to change
            self.stale = 0 if changed.score > self.best.score else self.stale + 1
            if changed.score >= self.best.score:
                self.best = changed
        found = self.best
        if found is not None and self._found(found):
            return (*self.base[:-1], *found.states)
        return None

    def _fresh(self) -> _Line:
        """A line to start from: ``start``'s joint moves, else none (random ones)."""
        return _Line([self.base[-1]], [list(joint) for joint in self.start or ()])

    def _found(self, line: _Line) -> bool:
        """Whether ``line`` gives the view at every step and meets ``wanted``."""
        if line.score < self.length:
            return False
        return self.wanted is None or self.wanted(line.states[-1])

    def _late(self) -> bool:
        return self.deadline is not None and time.perf_counter() > self.deadline

    def _changed(self, line: _Line) -> _Line | None:
        """``line`` with one other role's move changed at one step, the rest replayed."""
        choices = [
            (k, r)
            for k, legal in enumerate(line.legal)
            for r, moves in enumerate(legal)
            if r != self.own and len(moves) > 1
        ]
        if not choices:
            return None
        step, role = self.rng.choice(choices)
        current = line.joints[step][role]
        moves = [m for m in line.legal[step][role] if m != current]
        joint = list(line.joints[step])
        joint[role] = self.rng.choice(moves)
        return self._replayed(line.copy(), step, joint)

    def _replayed(self, line: _Line, start: int, joint: list[Term] | None) -> _Line:
        """``line`` replayed from its step ``start``, whose joint move becomes ``joint``
        (None: kept where legal); later steps keep each move that stays legal and draw
        the others at random."""
        game, view = self.game, self.view
        before = line.joints[start:]
        if joint is not None:
            before[:1] = [joint]
        del line.states[start + 1 :], line.joints[start:], line.legal[start:], line.fits[start:]
        for k in range(start, self.length):
            state, step = line.states[k], self.first + k
            self.spent += 1
            if not can_play(game, state, view, step) or self._late():
                break
            legal = [
                [view.moves[step]] if r == self.own else game.legal_moves(state, role)
                for r, role in enumerate(game.roles)
            ]
            wanted: list[Term | None] = (
                list(before[k - start]) if k - start < len(before) else [None] * len(legal)
            )
            chosen = [
                m if m is not None and m in moves else self.rng.choice(moves)
                for m, moves in zip(wanted, legal, strict=True)
            ]
            line.legal.append(legal)
            line.joints.append(chosen)
            line.fits.append(game._percepts(state, chosen)[view.role] == view.percepts[step])
            line.states.append(game._next(state, chosen))
        return line


def repair_line(
    game: Game[Any],
    view: RoleView,
    rng: random.Random,
    base: History,
    budget: int,
    deadline: float | None = None,
    start: Sequence[Sequence[Term]] | None = None,
    wanted: Callable[[Hashable], bool] | None = None,
) -> History | None:
    """A history that gives ``view`` and begins with ``base`` (a history of its first
    steps), whose last state meets ``wanted`` where given, found by local search from
    ``start`` (joint moves; else random ones) within ``budget`` replayed steps and the
    ``deadline`` (``time.perf_counter()``); None when neither sufficed (which proves
    nothing)."""
    return Repair(game, view, rng, base, deadline, start, wanted).run(budget)


__all__ = ["Repair", "repair_line"]

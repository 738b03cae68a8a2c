"""A sampled frontier of an information set, advanced a step at a time (a particle filter).

:func:`~ggpkit.games.information.advance_belief` carries the exact posterior of every
state a role's view allows; past a few hundred states it is too big to carry. The
walks of :mod:`~ggpkit.games.sampling` find one history at a time and prove a guess
wrong only by backing up through every line below it: in blind breakthrough, where the
opponent's pawns move unseen for dozens of turns and a capture on offer late in the
match speaks of one of them, the walks found no history at one step in three.

Between the two, this module carries a *sample* of the frontier: at each step every kept
state is expanded by every joint move that gives the view (as the exact pass does),
and where more than ``keep`` states result, ``keep`` are drawn by weight (with
replacement: a state drawn twice weighs twice), the bootstrap particle filter's
resampling. Since the kept states are diverse (hundreds of distinct placements of the
unseen pawns) the percept that rules most of them out rarely rules out all; where it
does, the frontier has *died* and the caller falls back on the walks, which back up.

A step that runs out of its time stops expanding (states in a random order by weight,
so the expanded ones are themselves a sample) once it has a few successors; a state with
many joint moves (nature dealing from a deck, placing ships) is left to the walks, whose
percept-led order finds the few joint moves that give the view.

A sample dies where the set narrows sharply: in blind breakthrough a black player's
exact set grew to 2,083 states by its eighth step and shrank to 8 by its fourteenth,
and a sample of 1,000 at the eighth often held none of their ancestors. A
:class:`Frontier` keeps its samples of earlier turns and, where it dies, filters again
from a few turns back, then from further back, with eight times the states, within the
caller's patience: the narrow step is then known, and a wider sample on the way to it
holds its ancestors far more often. Only where that fails too do the walks take over.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from ggpkit.games.api import Game
from ggpkit.games.information import History, InformationSetError, can_play, joint_moves
from ggpkit.games.views import RoleView

WIDEST_STATE = 256
"""Joint moves one state of a sampled frontier may have; a wider step is refused
(InformationSetError), and the caller's walks take over."""

STATES_AT_ONCE = 32
"""States expanded in one call (one compiled call on a propnet) between looks at the clock."""

FEWEST_SUCCESSORS = 16
"""Successors a step out of time still finds before it stops expanding states."""

RECOVERY_BACKS = (2, 8, 32, 10**9)
"""Turns back (from the step that died) a dying frontier filters again from, in order;
the last reaches the start."""

RECOVERY_FACTOR = 8
"""A frontier filtered again keeps this many times the states of the one that died."""

STEP_SHARES = 4
"""A step filtered on the way to a later turn may take this share of the time left (1/4),
or its even share where larger: steps differ a hundredfold in cost (a set of eight
states, then of two thousand), and even shares starve the dear ones."""

MEND_SECONDS = 0.05
"""Time a mended step (:meth:`Frontier._mend`) looks for closer successors once it has some."""

SNAPSHOTS_KEPT = 64
"""Earlier turns' samples a frontier keeps (and its first), to filter again from."""


class TooWide(InformationSetError):
    """A state of the frontier has more joint moves than a filter expands."""


class FrontierDied(InformationSetError):
    """No state of a sample gives the view's next step; holds the last sample that lived."""

    def __init__(self, step: int, states: dict[Hashable, float],
                 lines: dict[Hashable, History]) -> None:  # fmt: skip
        super().__init__(f"no state of the frontier gives step {step + 1}")
        self.step = step
        self.states = states
        self.lines = lines


def weighted_order(belief: dict[Hashable, float], rng: random.Random) -> list[Hashable]:
    """The states of ``belief`` in a random order in which heavier ones come earlier: each
    prefix is a sample without replacement by weight (exponential keys, Efraimidis and
    Spirakis), so a step that stops early has expanded a fair sample."""
    keyed = [(-math.log(1.0 - rng.random()) / weight, index, state)
             for index, (state, weight) in enumerate(belief.items()) if weight > 0]  # fmt: skip
    keyed.sort()
    return [state for _, _, state in keyed]


def resample(grown: dict[Hashable, float], keep: int, rng: random.Random) -> dict[Hashable, float]:
    """``keep`` draws from ``grown`` by weight, with replacement, merged: each state drawn
    weighs as often as it was drawn (systematic resampling, one random offset)."""
    states = list(grown)
    total = sum(grown.values())
    step = total / keep
    point = rng.random() * step
    drawn: dict[Hashable, float] = {}
    running = 0.0
    for state in states:
        running += grown[state]
        while point < running:
            drawn[state] = drawn.get(state, 0.0) + 1.0
            point += step
    return drawn


def advance_sample(
    game: Game[Any],
    belief: dict[Hashable, float],
    view: RoleView,
    step: int,
    keep: int,
    rng: random.Random,
    until: float,
    use_percepts: bool = True,
    parents: dict[Hashable, Hashable] | None = None,
) -> tuple[dict[Hashable, float], bool]:
    """``belief`` (a frontier at joint move ``step`` of ``view``: state -> weight) one joint
    move on, by Bayes' rule with the other roles uniformly random, and whether the result
    is exact (every state expanded, none dropped).

    States are expanded heaviest-first in a random order; past ``until``
    (``perf_counter``) the step stops once it has :data:`FEWEST_SUCCESSORS` successors.
    More than ``keep`` successors are resampled down to ``keep``. ``parents``, where
    given, gets one state before for each state after. InformationSetError where no
    expanded state has a successor (the frontier died) or a state has more than
    :data:`WIDEST_STATE` joint moves."""
    grown: dict[Hashable, float] = {}
    order = weighted_order(belief, rng)
    seen = view.percepts[step] if use_percepts else None
    expanded = 0
    while expanded < len(order):
        if len(grown) >= FEWEST_SUCCESSORS and time.perf_counter() > until:
            break
        batch = order[expanded : expanded + STATES_AT_ONCE]
        expanded += len(batch)
        found = game._seen_successors(batch, view.role, view.moves[step], seen, WIDEST_STATE)
        for state, (count, successors) in zip(batch, found, strict=True):
            if count > WIDEST_STATE:
                raise TooWide(f"{count} joint moves in one state: too wide")
            for after in successors:  # (none where the role could not play its move)
                grown[after] = grown.get(after, 0.0) + belief[state] / count
                if parents is not None:
                    parents.setdefault(after, state)
    if not grown:
        raise InformationSetError(f"no state of the frontier gives {view.role} step {step + 1}")
    exact = expanded == len(order) and len(grown) <= keep
    if len(grown) > keep:
        grown = resample(grown, keep, rng)
    total = sum(grown.values())
    return {state: weight / total for state, weight in grown.items()}, exact


def filter_line(
    game: Game[Any],
    view: RoleView,
    start: tuple[int, dict[Hashable, float], dict[Hashable, History]],
    keep: int,
    rng: random.Random,
    deadline: float,
    use_percepts: bool = True,
) -> tuple[dict[Hashable, float], dict[Hashable, History], bool]:
    """A sample (``start``: its turn, states and lines) filtered on to ``view``'s turn,
    each step with its share of the time until ``deadline``: the states, a line of
    each, and whether they are exact (given an exact start). FrontierDied where a
    step left none (with the last sample that lived); TooWide as
    :func:`advance_sample`."""
    turn, states, lines = start
    exact = True
    for step in range(turn, view.turn):
        now = time.perf_counter()
        until = now + max(deadline - now, 0.0) / min(view.turn - step, STEP_SHARES)
        parents: dict[Hashable, Hashable] = {}
        try:
            after, whole = advance_sample(
                game, states, view, step, keep, rng, until, use_percepts, parents
            )
        except TooWide:
            raise
        except InformationSetError:
            raise FrontierDied(step, states, lines) from None
        lines = {state: (*lines[parents[state]], state) for state in after}
        states, exact = after, exact and whole
    return states, lines, exact


@dataclass
class Frontier:
    """A role's information set carried turn by turn: every state with its posterior
    while ``exact``, else a sample of at most ``keep``; a line (history) of each."""

    states: dict[Hashable, float]
    lines: dict[Hashable, History]
    turn: int
    keep: int
    exact: bool = True
    broken_at: int | None = None
    """The first step whose percepts the lines broke (:meth:`_mend`), if they did: the
    states are then near the view, not in it."""
    snapshots: list[tuple[int, dict[Hashable, float], dict[Hashable, History]]] = field(
        default_factory=list
    )

    @classmethod
    def start(cls, game: Game[Any], keep: int) -> Frontier:
        """The frontier before the first move: the initial state, surely."""
        initial = game.initial_state()
        frontier = cls({initial: 1.0}, {initial: (initial,)}, 0, keep)
        frontier.snapshots.append((0, frontier.states, frontier.lines))
        return frontier

    @classmethod
    def of_histories(cls, game: Game[Any], ends: dict[Hashable, float],
                     lines: dict[Hashable, History], turn: int, keep: int) -> Frontier:  # fmt: skip
        """A sampled frontier of histories found otherwise (the walks'), of ``turn``:
        ``ends`` their last states with their weights, ``lines`` a history of each."""
        total = sum(ends.values())
        states = {state: weight / total for state, weight in ends.items()}
        initial = game.initial_state()
        frontier = cls(states, lines, turn, keep, exact=False)
        frontier.snapshots += [(0, {initial: 1.0}, {initial: (initial,)}), (turn, states, lines)]
        return frontier

    def advance(self, game: Game[Any], view: RoleView, rng: random.Random, deadline: float,
                patience: float, use_percepts: bool = True) -> None:  # fmt: skip
        """The frontier filtered on to ``view``'s turn within ``deadline``; where it dies,
        filtered again from earlier samples (:data:`RECOVERY_BACKS`, wider) until
        ``patience``. FrontierDied (with the last sample that lived, the first time)
        where none lives; TooWide as :func:`advance_sample`."""
        start = (self.turn, self.states, self.lines)
        try:
            states, lines, exact = filter_line(game, view, start, self.keep, rng, deadline,
                                               use_percepts)  # fmt: skip
        except FrontierDied as died:
            try:
                states, lines, since = self._recover(game, view, rng, died, patience,
                                                     use_percepts)  # fmt: skip
                if self.broken_at is not None and since <= self.broken_at:
                    self.broken_at = None  # filtered again from before the break
            except FrontierDied:
                states, lines = self._mend(game, view, rng, died, use_percepts)
                if self.broken_at is None:
                    self.broken_at = died.step
            exact = False
        self.states, self.lines, self.turn = states, lines, view.turn
        self.exact = self.exact and exact
        self.snapshots.append((view.turn, states, lines))
        if len(self.snapshots) > SNAPSHOTS_KEPT:
            del self.snapshots[1]  # the first (the start) stays

    def _recover(self, game: Game[Any], view: RoleView, rng: random.Random, died: FrontierDied,
                 patience: float, use_percepts: bool,
                 ) -> tuple[dict[Hashable, float], dict[Hashable, History], int]:  # fmt: skip
        """States of ``view``'s turn filtered again from samples of earlier turns (and
        the turn they were filtered from), each try with an equal share of the time left
        until ``patience``; ``died`` again where none lives."""
        tried: set[int] = set()
        for index, back in enumerate(RECOVERY_BACKS):
            now = time.perf_counter()
            if now >= patience:
                break
            start = max((s for s in self.snapshots if s[0] <= died.step - back),
                        key=lambda s: s[0], default=self.snapshots[0])  # fmt: skip
            if start[0] in tried:
                continue
            tried.add(start[0])
            until = now + (patience - now) / (len(RECOVERY_BACKS) - index)
            try:
                states, lines, _ = filter_line(game, view, start, self.keep * RECOVERY_FACTOR,
                                               rng, until, use_percepts)  # fmt: skip
            except FrontierDied:
                continue
            return (*resample_lines(states, lines, self.keep, rng), start[0])
        raise died

    def _mend(
        self, game: Game[Any], view: RoleView, rng: random.Random, died: FrontierDied,
        use_percepts: bool,
    ) -> tuple[dict[Hashable, float], dict[Hashable, History]]:  # fmt: skip
        """The last resort where no sample gives the view: each step that none gives is
        taken by the successors whose percepts differ least from the view's
        (:func:`closest_successors`), the steps after it filtered as before. A state
        near the view (whose turn it is, what was seen last) beats none. Where the
        role's own moves cannot be played on that way (a pawn it moves was taken in
        every state mended), mended again from earlier samples, further back each time;
        FrontierDied where none serves."""
        starts = [(died.step, died.states, died.lines)]
        starts += sorted((s for s in self.snapshots if s[0] < died.step), key=lambda s: -s[0])
        for index, start in enumerate(starts):
            if index > 0 and index & (index - 1):
                continue  # the samples 1, 2, 4, 8 ... back
            mended = self._mend_from(game, view, rng, start, use_percepts)
            if mended is not None:
                return mended
        raise died

    def _mend_from(
        self, game: Game[Any], view: RoleView, rng: random.Random,
        start: tuple[int, dict[Hashable, float], dict[Hashable, History]], use_percepts: bool,
    ) -> tuple[dict[Hashable, float], dict[Hashable, History]] | None:  # fmt: skip
        """:meth:`_mend` from one sample (its turn, states and lines); None where the
        role's own moves cannot be played on the way."""
        until = time.perf_counter() + MEND_SECONDS
        try:
            return filter_line(game, view, start, self.keep, rng, until, use_percepts)[:2]
        except FrontierDied as died:
            step, states, lines = died.step, died.states, died.lines
        while True:
            parents: dict[Hashable, Hashable] = {}
            until = time.perf_counter() + MEND_SECONDS
            try:
                after = closest_successors(game, states, view, step, rng, until, parents)
            except FrontierDied:
                return None
            lines = {state: (*lines[parents[state]], state) for state in after}
            try:
                return filter_line(game, view, (step + 1, after, lines), self.keep, rng,
                                   until + MEND_SECONDS, use_percepts)[:2]  # fmt: skip
            except FrontierDied as again:
                step, states, lines = again.step, again.states, again.lines


def closest_successors(
    game: Game[Any], belief: dict[Hashable, float], view: RoleView, step: int,
    rng: random.Random, until: float, parents: dict[Hashable, Hashable],
) -> dict[Hashable, float]:  # fmt: skip
    """The successors of ``belief`` at joint move ``step`` whose percepts differ least
    from the view's (fewest missing and extra), with their weights, expanded
    heaviest-first until ``until`` once some are found. FrontierDied where no state
    lets the role play its move; TooWide as :func:`advance_sample`."""
    best = math.inf
    grown: dict[Hashable, float] = {}
    wanted = view.percepts[step]
    for state in weighted_order(belief, rng):
        if grown and time.perf_counter() > until:
            break
        if not can_play(game, state, view, step):
            continue
        joints = list(joint_moves(game, state, view.role, view.moves[step]))
        if len(joints) > WIDEST_STATE:
            raise TooWide(f"{len(joints)} joint moves in one state: too wide")
        for joint in joints:
            distance = len(game._percepts(state, joint)[view.role] ^ wanted)
            if distance > best:
                continue
            if distance < best:
                best, grown = distance, {}
                parents.clear()
            after = game._next(state, joint)
            grown[after] = grown.get(after, 0.0) + belief[state] / len(joints)
            parents.setdefault(after, state)
    if not grown:
        raise FrontierDied(step, belief, {})
    total = sum(grown.values())
    return {state: weight / total for state, weight in grown.items()}


def resample_lines(
    states: dict[Hashable, float], lines: dict[Hashable, History], keep: int,
    rng: random.Random,
) -> tuple[dict[Hashable, float], dict[Hashable, History]]:  # fmt: skip
    """``states`` drawn down to ``keep`` where there are more, with their lines."""
    if len(states) <= keep:
        return states, lines
    drawn = resample(states, keep, rng)
    total = sum(drawn.values())
    return {s: w / total for s, w in drawn.items()}, {s: lines[s] for s in drawn}

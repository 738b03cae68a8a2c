"""Information sets: the states a role's view of a match leaves possible, and how likely each is.

A role of a GDL-II game knows only its view (:class:`~ggpkit.games.views.RoleView`): its
own moves and its percepts. A *history* is a line of states from the initial state in
which, at every step, some joint move gave the role the move it played and exactly the
percepts it saw; its last state is one the role may be in. The set of those last states
is the role's information set.

Small games enumerate every history (:func:`histories`) or the posterior of every state
(:func:`weighted_states`); big ones sample them (:func:`sample_hypothesis`), by a
depth-first walk over the joint moves in random order that backs up where a step cannot
give the view, within a budget of expanded steps and, where given, a deadline.

Why weights: the states of an information set are not equally likely. In Monty Hall a
host who could open either of two doors opens the one seen half the time only, so the
contestant's first door hides the car one time in three, not one in two. Each step of a
sampled history carries a *factor*: the share of the other roles' joint moves (nature's
and the opponents', taken as uniformly random) that give the view. Sampling picks a
consistent joint move uniformly, so the product of the factors is the history's
importance weight (HyperPlay's, Schofield et al. 2012): the prior probability of the
line over the probability of sampling it.

``use_percepts=False`` reads a view as if its percepts were never told: histories need
only give the role its own moves. It is the honest baseline of a player that ignores
what it sees. Everything here reads the game through its contract only (the unchecked
steps, ``_next`` and ``_percepts``, on joint moves made of legal moves: checking each
again doubled the cost of a walk).
"""

from __future__ import annotations

import itertools
import math
import random
import time
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ggpkit.errors import GgpkitError
from ggpkit.games.api import Game
from ggpkit.games.views import RoleView
from ggpkit.gdl.terms import Term

History = tuple[Hashable, ...]
"""The states of a line of play, from the initial state; the last is the current one."""

MAX_JOINTS = 100_000
"""Joint moves one step may have before :func:`joint_moves` refuses to list them."""

COUNTED_JOINTS = 32
"""A sampled step's factor is counted over every joint move where a step has at most this
many; over more, it is estimated from the first this many tried (in random order), so
that a wide step (nature placing ships) costs no more than a narrow one."""


class InformationSetError(GgpkitError, ValueError):
    """A view no history gives (it is not of this game), or a set too big to list."""


@dataclass(frozen=True, slots=True)
class Hypothesis:
    """A sampled history and the factor of each of its steps (see the module doc)."""

    line: History
    factors: tuple[float, ...] = ()

    @property
    def weight(self) -> float:
        """The history's importance weight: the product of its steps' factors."""
        return math.prod(self.factors)

    @property
    def state(self) -> Hashable:
        """The state the history ends in."""
        return self.line[-1]

    def prefix(self, steps: int) -> Hypothesis:
        """The history's first ``steps`` joint moves."""
        return Hypothesis(self.line[: steps + 1], self.factors[:steps])


def joint_moves(game: Game[Any], state: Hashable, role: str, move: Term) -> Iterator[list[Term]]:
    """Every joint move of ``state`` (role order) in which ``role`` plays ``move``."""
    options = [[move] if other == role else game.legal_moves(state, other) for other in game.roles]
    count = math.prod(len(moves) for moves in options)
    if count > MAX_JOINTS:
        raise InformationSetError(f"{count} joint moves in one step: too many to list")
    for joint in itertools.product(*options):
        yield list(joint)


def _fits(game: Game[Any], state: Hashable, joint: list[Term], view: RoleView, step: int,
          use_percepts: bool) -> bool:  # fmt: skip
    """Whether ``joint`` (legal in ``state``) gives the role the percepts of ``step``."""
    return not use_percepts or game._percepts(state, joint)[view.role] == view.percepts[step]


def _playable(game: Game[Any], state: Hashable, view: RoleView, step: int) -> bool:
    """Whether the role could play its move of ``step`` in ``state``."""
    return not game.is_terminal(state) and view.moves[step] in game.legal_moves(state, view.role)


def successors(
    game: Game[Any], state: Hashable, view: RoleView, step: int, use_percepts: bool = True
) -> list[Hashable]:
    """The states after ``state`` that give ``view``'s role its move and percepts of
    joint move number ``step`` (duplicates kept once)."""
    if not _playable(game, state, view, step):
        return []
    found: dict[Hashable, None] = {}
    for joint in joint_moves(game, state, view.role, view.moves[step]):
        if _fits(game, state, joint, view, step, use_percepts):
            found.setdefault(game._next(state, joint), None)
    return list(found)


def histories(
    game: Game[Any], view: RoleView, limit: int = 10_000, use_percepts: bool = True
) -> list[History]:
    """Every history that gives ``view`` (states merged where two lines meet).

    InformationSetError when there are more than ``limit`` (sample them instead) or none.
    """
    frontier: list[History] = [(game.initial_state(),)]
    for step in range(view.turn):
        grown: dict[Hashable, History] = {}
        for line in frontier:
            for after in successors(game, line[-1], view, step, use_percepts):
                grown.setdefault(after, (*line, after))
                if len(grown) > limit:
                    raise InformationSetError(
                        f"more than {limit} states fit {view.role}'s view at step {step + 1}"
                    )
        frontier = list(grown.values())
    if not frontier:
        raise InformationSetError(f"no line of {game.name} gives {view.role} this view")
    return frontier


def information_set(
    game: Game[Any], view: RoleView, limit: int = 10_000, use_percepts: bool = True
) -> list[Hashable]:
    """Every state ``view``'s role may be in (see :func:`histories`)."""
    return [line[-1] for line in histories(game, view, limit, use_percepts)]


def weighted_states(
    game: Game[Any], view: RoleView, limit: int = 10_000, use_percepts: bool = True
) -> dict[Hashable, float]:
    """The posterior probability of each state of ``view``'s information set, the other
    roles (nature and opponents) playing uniformly at random: exact, by a forward pass
    over every history. InformationSetError as for :func:`histories`."""
    belief: dict[Hashable, float] = {game.initial_state(): 1.0}
    for step in range(view.turn):
        belief = advance_belief(game, belief, view, step, limit, use_percepts)
    return belief


def advance_belief(
    game: Game[Any],
    belief: dict[Hashable, float],
    view: RoleView,
    step: int,
    limit: int = 10_000,
    use_percepts: bool = True,
    parents: dict[Hashable, Hashable] | None = None,
) -> dict[Hashable, float]:
    """``belief`` (state: probability, at joint move ``step`` of ``view``) one joint move
    on, by Bayes' rule with the other roles uniformly random; ``parents``, where given,
    gets one state before for each state after. InformationSetError when more than
    ``limit`` states (or ``limit`` times 8 joint moves to try) would be needed, or none
    is left."""
    grown: dict[Hashable, float] = {}
    work = 0
    for state, mass in belief.items():
        if not _playable(game, state, view, step):
            continue
        joints = list(joint_moves(game, state, view.role, view.moves[step]))
        work += len(joints)
        if work > 8 * limit:
            raise InformationSetError(f"more than {8 * limit} joint moves to weigh")
        for joint in joints:
            if _fits(game, state, joint, view, step, use_percepts):
                after = game._next(state, joint)
                grown[after] = grown.get(after, 0.0) + mass / len(joints)
                if parents is not None:
                    parents.setdefault(after, state)
        if len(grown) > limit:
            raise InformationSetError(
                f"more than {limit} states fit {view.role}'s view at step {step + 1}"
            )
    total = sum(grown.values())
    if not grown or total <= 0:
        raise InformationSetError(f"no line of {game.name} gives {view.role} this view")
    return {state: mass / total for state, mass in grown.items()}


class _OutOfTime(Exception):
    """The deadline passed in the middle of a step's options (caught by the walk)."""


TIME_CHECK_EVERY = 16
"""Joint moves tried between two looks at the clock (a step may have thousands)."""


class _Options:
    """One step's options for a sampling walk: the consistent successors of a state, in
    random order, each once, found lazily; and the step's factor once one is found."""

    def __init__(self, game: Game[Any], state: Hashable, view: RoleView, step: int,
                 rng: random.Random, use_percepts: bool,
                 deadline: float | None = None) -> None:  # fmt: skip
        self.game, self.state, self.view, self.step = game, state, view, step
        self.use_percepts = use_percepts
        self.deadline = deadline
        self.joints: list[list[Term]] = []
        if _playable(game, state, view, step):
            self.joints = list(joint_moves(game, state, view.role, view.moves[step]))
            rng.shuffle(self.joints)
        self.tried = 0
        self.hits = 0
        self.seen: set[Hashable] = set()
        self.factor = 1.0

    def next(self) -> Hashable | None:
        """The next consistent successor not given before, or None when none is left."""
        while self.tried < len(self.joints):
            self._check_clock(self.tried)
            joint = self.joints[self.tried]
            self.tried += 1
            if not _fits(self.game, self.state, joint, self.view, self.step, self.use_percepts):
                continue
            self.hits += 1
            after: Hashable = self.game._next(self.state, joint)
            if after in self.seen:
                continue
            self.seen.add(after)
            self._count()
            return after
        return None

    def _count(self) -> None:
        """Set the factor: hits over tries, after trying up to :data:`COUNTED_JOINTS`."""
        if not self.use_percepts:
            return
        stop = min(len(self.joints), max(COUNTED_JOINTS, self.tried))
        hits, tried = self.hits, self.tried
        for index, joint in enumerate(self.joints[tried:stop], tried):
            self._check_clock(index)
            hits += _fits(self.game, self.state, joint, self.view, self.step, True)
        self.factor = hits / stop

    def _check_clock(self, tried: int) -> None:
        """_OutOfTime once the deadline has passed (looked at every few joint moves)."""
        if (
            self.deadline is not None
            and tried % TIME_CHECK_EVERY == TIME_CHECK_EVERY - 1
            and time.perf_counter() > self.deadline
        ):
            raise _OutOfTime


def sample_hypothesis(
    game: Game[Any],
    view: RoleView,
    rng: random.Random,
    start: Hypothesis | None = None,
    budget: int = 10_000,
    deadline: float | None = None,
    use_percepts: bool = True,
) -> Hypothesis | None:
    """A history that gives ``view``, with its factors, extending ``start`` (a hypothesis
    of an earlier turn of the same view; default: the initial state) depth first, never
    backing up past it. None when ``budget`` expanded steps, or the ``deadline``
    (``time.perf_counter()``), came first, or no extension exists."""
    base = start or Hypothesis((game.initial_state(),))
    line, factors = list(base.line), list(base.factors)
    if len(line) - 1 > view.turn:
        return None
    stack: list[_Options] = []
    expanded = 0
    while len(line) - 1 < view.turn:
        if len(stack) == len(line) - len(base.line):
            expanded += 1
            if expanded > budget or (deadline is not None and time.perf_counter() > deadline):
                return None
            stack.append(_Options(game, line[-1], view, len(line) - 1, rng, use_percepts, deadline))
        try:
            after = stack[-1].next()
        except _OutOfTime:
            return None
        if after is not None:
            line.append(after)
            factors.append(stack[-1].factor)
            continue
        stack.pop()
        if not stack:
            return None
        line.pop()
        factors.pop()
    return Hypothesis(tuple(line), tuple(factors))


def extend_hypothesis(
    game: Game[Any],
    view: RoleView,
    rng: random.Random,
    start: Hypothesis,
    budget: int = 400,
    deadline: float | None = None,
    use_percepts: bool = True,
) -> Hypothesis | None:
    """``start`` (a hypothesis of an earlier turn of the same view) walked on to
    ``view``'s turn; where it cannot be, backed up one step, then two, four, eight...,
    then to the start, each walk within ``budget`` expanded steps. None when the
    ``deadline`` came first or no history exists.

    Why back up: a percept that kills a history usually speaks of the last few steps (a
    mark that failed: the opponent took that cell lately), so the nearest choices are
    the ones to revise (HyperPlay backtracks the same way); a walk from the start
    backtracks chronologically, and at turn 25 of Krieg tic-tac-toe it found nothing in
    ten thousand steps.
    """
    steps = len(start.line) - 1
    back = 0
    while True:
        begin = start.prefix(max(0, steps - back))
        found = sample_hypothesis(game, view, rng, begin, budget, deadline, use_percepts)
        if found is not None:
            return found
        if steps - back <= 0 or (deadline is not None and time.perf_counter() > deadline):
            return None
        back = max(1, 2 * back)


def sample_history(
    game: Game[Any],
    view: RoleView,
    rng: random.Random,
    budget: int = 10_000,
    start: History | None = None,
    use_percepts: bool = True,
) -> History | None:
    """One history that gives ``view``, drawn at random; None when ``budget`` expanded
    steps found none. ``start``, a history of an earlier turn of the same view, is
    extended where it can be (backing up as :func:`extend_hypothesis` does); where it
    cannot, the walk starts over from the initial state with a budget of its own."""
    if start:
        walk = max(1, budget // 25)
        found = extend_hypothesis(game, view, rng, Hypothesis(start), walk, None, use_percepts)
        if found is not None:
            return found.line
    found = sample_hypothesis(game, view, rng, None, budget, None, use_percepts)
    return None if found is None else found.line


def sample_states(
    game: Game[Any],
    view: RoleView,
    count: int,
    rng: random.Random,
    budget: int = 10_000,
    distinct: bool = False,
) -> list[Hashable]:
    """Up to ``count`` states drawn from ``view``'s information set (each from a history
    sampled afresh; with repeats unless ``distinct``); fewer where the budget ran out."""
    found: dict[Hashable, None] = {}
    repeated: list[Hashable] = []
    for _ in range(count):
        line = sample_history(game, view, rng, budget)
        if line is not None:
            found.setdefault(line[-1], None)
            repeated.append(line[-1])
    return list(found) if distinct else repeated


def views_agree(
    game: Game[Any], line: Sequence[Hashable], view: RoleView, use_percepts: bool = True
) -> bool:
    """Whether ``line`` (a history) can give ``view``: each state follows from the one
    before by a joint move that gives the role its move and percepts."""
    if len(line) != view.turn + 1 or line[0] != game.initial_state():
        return False
    return all(
        line[k + 1] in successors(game, line[k], view, k, use_percepts) for k in range(view.turn)
    )

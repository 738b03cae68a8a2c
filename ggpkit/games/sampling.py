"""Sampling histories that give a role's view, for information sets too big to list.

A *history* (:mod:`~ggpkit.games.information`) is a line of states in which, at every
step, some joint move gave the role its own move and exactly its percepts. This module
draws one at random by a depth-first walk over the joint moves that backs up where a
step cannot give the view, within a budget of expanded steps and, where given, a
deadline. Three things keep the walk from drowning in big games:

* **Restarts** (Luby, Sinclair and Zuckerman's universal sequence): a walk that backs
  up step by step (chronologically) from a percept that a choice made twenty steps
  earlier contradicts (the dealer's hidden card in blackjack, seen at the end) explores
  every line below that choice first. Walks of growing budgets, each from the start
  with fresh random orders, reach the wrong early choice again after a few dead ends.
  Each walk also tries at most a growing number of a state's joint moves.
* **Dead states** (:class:`DeadStates`): a state from which no line gives the rest of
  the view is remembered, per step, and never walked again, by this walk or a later
  one of the same view: a view only grows, and what one turn's percepts ruled out stays
  ruled out.
* **Percept-led order**: the joint moves whose terms share runs of arguments with the
  step's percepts are tried first (a scan that reports ``(ghostship 1 2 1 3)``, among
  2,304 ways nature scans a turn, is most likely nature's ``(doscan 1 2 1 3 ...)``),
  then those that share them with later percepts (the dealer's hidden card, dealt
  unseen, is most likely one the end of the round shows). The order never loses a
  line: every joint move is still tried before a state is declared dead. But a cue can
  mislead as often as it helps: in Krieg tic-tac-toe the cells a player later *gets* are
  the ones the opponent did not take, and a walk led by them takes exactly those for the
  opponent, walk after walk. So every other walk goes in random order. The order makes
  the proposal less uniform; the factors (estimated over joint moves drawn at random)
  keep the weights near the truth.

Why weights: see :mod:`~ggpkit.games.information`. Each step of a sampled history
carries a *factor*, the share of the other roles' joint moves (uniformly random) that
give the view, counted where a step has few joint moves and estimated from a random
sample where it has many; the product is the history's importance weight (HyperPlay's,
Schofield et al. 2012).
"""

from __future__ import annotations

import functools
import heapq
import itertools
import math
import random
import time
from collections import Counter
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ggpkit.games.api import Game
from ggpkit.games.information import History, Hypothesis, can_play, fits_view
from ggpkit.games.views import RoleView
from ggpkit.gdl.terms import Func, Term

COUNTED_JOINTS = 32
"""A sampled step's factor is counted over every joint move where a step has at most this
many; over more, it is estimated from this many drawn at random, so that a wide step
(nature placing ships) costs no more than a narrow one."""

JOINT_CAP = 64
"""Joint moves of one state a walk tries before it gives up on the state, times the
walk's term of Luby's sequence: the percept-led order puts the joint moves that give the
view first where there are any, and a state with none among 45,000 (an opponent's 25
moves times nature's 1,792 scans) costs seconds to prove dead; the cap grows with the
restarts, so a long enough search still tries every joint move."""

TIME_CHECK_EVERY = 16
"""Joint moves tried between two looks at the clock (a step may have thousands)."""

DEAD_STATES_KEPT = 200_000
"""Dead states a :class:`DeadStates` keeps before it forgets them all (memory bound)."""


class DeadStates:
    """The states of one view, per step, from which no line gives the rest of the view.

    Valid for every later turn of the same view (a longer view only rules out more);
    :meth:`clear` for a new match. Holds the flag it was found under: a state dead for a
    walk that heeds percepts may live for one that heeds only the role's own moves.
    """

    def __init__(self, use_percepts: bool = True, heed_from: int = 0) -> None:
        self.use_percepts = use_percepts
        self.heed_from = heed_from
        """The first step whose percepts a walk heeds (with ``use_percepts``): a last
        resort that cannot give the whole view may still give its latest steps, which
        say most about the state the role is now in (whose turn it is, say)."""
        self._dead: set[tuple[int, Hashable]] = set()

    def heeds(self, step: int) -> bool:
        """Whether a walk under these dead states must give the percepts of ``step``."""
        return self.use_percepts and step >= self.heed_from

    def __contains__(self, key: tuple[int, Hashable]) -> bool:
        return key in self._dead

    def __len__(self) -> int:
        return len(self._dead)

    def add(self, step: int, state: Hashable) -> None:
        if len(self._dead) >= DEAD_STATES_KEPT:
            self._dead.clear()
        self._dead.add((step, state))

    def clear(self) -> None:
        self._dead.clear()


class _OutOfTime(Exception):
    """The deadline passed in the middle of a step's options (caught by the walk)."""


LONGEST_RUN = 4
"""Runs of consecutive arguments compared, from two up to this many (a ship's cells)."""


@functools.lru_cache(maxsize=1 << 16)
def _runs(term: Term) -> frozenset[tuple[str, ...]]:
    """The runs of two to :data:`LONGEST_RUN` consecutive arguments of ``term`` and of
    its subterms, as text: ``(ghostship 3 1 2 1)`` and ``(doscan 4 4 3 1 2 1 1 1)``
    share ``3 1 2 1``, which a lone number or pair would not tell. Cached: a walk ranks
    the same moves step after step (nature's 2,000 scans, at every step of a walk)."""
    found: set[tuple[str, ...]] = set()
    if isinstance(term, Func):
        names = [str(a) for a in term.args]
        for size in range(2, LONGEST_RUN + 1):
            found.update(tuple(names[i : i + size]) for i in range(len(names) - size + 1))
        for arg in term.args:
            found |= _runs(arg)
    return frozenset(found)


def _weight(runs: frozenset[tuple[str, ...]]) -> int:
    """Longer shared runs say much more: two numbers in a row are often shared by chance,
    four seldom, so each run counts four times as much as one a number shorter."""
    return sum(4 ** len(run) for run in runs)


@dataclass(frozen=True, slots=True)
class _Cues:
    """The runs of arguments of a step's percepts (``now``) and of every later step's
    (``later``, each with the number of later steps that show it): what the joint moves
    of the step most likely echo. A run seen step after step is more telling than one
    seen once: a ship that stays put is in every scan, nature's decoys in one each."""

    now: frozenset[tuple[str, ...]]
    later: Mapping[tuple[str, ...], int]
    scores: dict[Term, int] = field(default_factory=dict, compare=False)
    """Each move's score, once computed (a walk ranks a step's moves at every restart)."""
    runs: frozenset[tuple[str, ...]] = field(init=False, compare=False)
    """Every run of ``now`` and ``later``: a move that shares none scores 0 at once (most
    of nature's deals in small Dominion, tens of thousands ranked at every step of a walk)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "runs", self.now | self.later.keys())

    NONE: ClassVar[_Cues]
    """No cues: the joint moves come in random order."""


_Cues.NONE = _Cues(frozenset(), {})


def _cues(view: RoleView) -> list[_Cues]:
    """Each step's cues (see :class:`_Cues`), for every step of ``view``."""
    own = [frozenset().union(*map(_runs, seen)) for seen in view.percepts]
    cues: list[_Cues] = []
    later: Counter[tuple[str, ...]] = Counter()
    for now in reversed(own):
        cues.append(_Cues(now, Counter(later)))
        later.update(now)
    return cues[::-1]


NOW_WEIGHT = 8
"""How much more a run shared with the step's own percepts counts than a later one: more,
but not so much that a pair shared by chance now outweighs four in a row seen later
(the opponent's ship placed unseen at the start, scanned turn after turn)."""


def _move_scores(moves: list[Term], cues: _Cues) -> list[int]:
    """How many runs of arguments each move shares with the step's percepts, then with
    later ones (see :class:`_Cues`): the moves most likely to have caused them."""
    scores = []
    known = cues.scores
    for move in moves:
        score = known.get(move)
        if score is None:
            runs = _runs(move)
            if runs.isdisjoint(cues.runs):
                score = known[move] = 0
            else:
                later = sum(4 ** len(run) * cues.later[run] for run in runs & cues.later.keys())
                score = known[move] = NOW_WEIGHT * _weight(runs & cues.now) + later
        scores.append(score)
    return scores


def _kind(move: Term) -> str:
    """A move's kind: the name of its function (``fire`` of ``(fire 2 3)``), or itself."""
    return move.name if isinstance(move, Func) else str(move)


def _by_kind(ranked: list[tuple[int, int]], moves: list[Term]) -> list[tuple[int, int]]:
    """``ranked`` (index, score; best first) taken in turns over the moves' kinds: each
    kind's best, then each kind's second best... Runs shared with the percepts measure
    a move only against moves of its kind: a ship's ``(move 2 3 2 4)`` shares four
    numbers with the scan that shows ``(ghostship 2 3 2 4)``, while the shot that
    made the scan show (any ``(fire x y)``) shares none, and ranked by score alone every
    move would come before the first shot."""
    queues: dict[str, list[tuple[int, int]]] = {}
    for entry in ranked:
        queues.setdefault(_kind(moves[entry[0]]), []).append(entry)
    if len(queues) < 2:
        return ranked
    rounds = itertools.zip_longest(*queues.values())
    return [entry for turn in rounds for entry in turn if entry is not None]


class _JointOrder:
    """The joint moves of a step (one list of moves per role), best cue score first,
    generated lazily: a step can have 45,000 and a walk tries a few hundred.

    Each role's moves are ranked by score (ties in random order); the joint moves come in
    order of the sum of their moves' ranks, then of falling total score (a heap of index
    tuples, each one's successors one rank further in one role). Ranks, not scores, are
    summed: the scan that echoes the percepts must come early with *any* move of the
    opponent, whose moves may echo them by chance (a ship moved onto a scanned cell)
    while the one that fits (a shot) echoes nothing."""

    def __init__(self, options: list[list[Term]], cues: _Cues, rng: random.Random) -> None:
        self.options: list[list[Term]] = []
        self.scores: list[list[int]] = []
        for moves in options:
            shuffled = list(moves)
            rng.shuffle(shuffled)
            scores = _move_scores(shuffled, cues) if cues.now or cues.later else []
            if scores:
                ranked = _by_kind(sorted(enumerate(scores), key=lambda pair: -pair[1]), shuffled)
                shuffled = [shuffled[i] for i, _ in ranked]
                scores = [score for _, score in ranked]
            self.options.append(shuffled)
            self.scores.append(scores or [0] * len(shuffled))
        self.count = math.prod(len(moves) for moves in self.options) if options else 0
        start = (0,) * len(self.options)
        self._heap: list[tuple[int, int, int, tuple[int, ...]]] = []
        self._pushed: set[tuple[int, ...]] = set()
        self._order = itertools.count()
        if self.count:
            self._push(start)

    def _push(self, index: tuple[int, ...]) -> None:
        total = sum(scores[i] for scores, i in zip(self.scores, index, strict=True))
        heapq.heappush(self._heap, (sum(index), -total, next(self._order), index))
        self._pushed.add(index)

    def pop(self) -> list[Term] | None:
        """The best joint move not given yet, or None when every one was."""
        if not self._heap:
            return None
        *_, index = heapq.heappop(self._heap)
        for role, i in enumerate(index):
            if i + 1 < len(self.options[role]):
                after = (*index[:role], i + 1, *index[role + 1 :])
                if after not in self._pushed:
                    self._push(after)
        return [moves[i] for moves, i in zip(self.options, index, strict=True)]

    def drawn(self, count: int, rng: random.Random) -> list[list[Term]]:
        """Every joint move where there are at most ``count``, else ``count`` drawn
        uniformly at random (each role's move drawn on its own)."""
        if self.count <= count:
            return [list(j) for j in itertools.product(*self.options)] if self.count else []
        return [[rng.choice(moves) for moves in self.options] for _ in range(count)]


class _Options:
    """One step's options for a walk: the consistent successors of a state not known
    dead, each once, found lazily (percept-led order), at most ``cap`` joint moves tried;
    and the step's factor."""

    def __init__(self, game: Game[Any], state: Hashable, view: RoleView, step: int,
                 rng: random.Random, dead: DeadStates, cues: _Cues, cap: int,
                 deadline: float | None = None) -> None:  # fmt: skip
        self.game, self.state, self.view, self.step = game, state, view, step
        self.rng = rng
        self.use_percepts = dead.heeds(step)
        self.dead = dead
        self.deadline = deadline
        options = _options_of(game, state, view, step)
        self.joints = _JointOrder(options, cues if self.use_percepts else _Cues.NONE, rng)
        self.tried = 0
        self.seen: set[Hashable] = set()
        self.cap = cap
        self.complete = True
        """Whether every joint move was tried and every successor walked found dead: only
        then is the state dead (a walk that gave up at its cap proves nothing)."""

    def next(self) -> Hashable | None:
        """The next consistent successor not given before and not dead, or None (at the
        end of the joint moves, or at the walk's cap of joint moves tried)."""
        while self.tried < self.joints.count:
            if self.tried >= self.cap:
                self.complete = False
                return None
            self._check_clock(self.tried)
            joint = self.joints.pop()
            self.tried += 1
            if joint is None:
                break
            if not fits_view(self.game, self.state, joint, self.view, self.step, self.use_percepts):
                continue
            after: Hashable = self.game._next(self.state, joint)
            if after in self.seen or (self.step + 1, after) in self.dead:
                continue
            self.seen.add(after)
            return after
        return None

    def share(self) -> float:
        """The share of the step's joint moves that give the view (the step's factor):
        counted over all of them where there are few, else estimated over
        :data:`COUNTED_JOINTS` drawn at random, the one found counted too (a share is
        never 0 where one fits). Asked only of the steps of a history found, so that a
        walk that dies pays nothing for it."""
        if not self.use_percepts:
            return 1.0
        counted = self.joints.drawn(COUNTED_JOINTS, self.rng)
        hits = 0
        for index, joint in enumerate(counted):
            self._check_clock(index)
            hits += fits_view(self.game, self.state, joint, self.view, self.step, True)
        if len(counted) == self.joints.count:
            return hits / len(counted)
        return (hits + 1) / (len(counted) + 1)

    def _check_clock(self, tried: int) -> None:
        """_OutOfTime once the deadline has passed (looked at every few joint moves)."""
        if (
            self.deadline is not None
            and tried % TIME_CHECK_EVERY == TIME_CHECK_EVERY - 1
            and time.perf_counter() > self.deadline
        ):
            raise _OutOfTime


def luby(index: int) -> int:
    """The ``index``-th term (from 1) of Luby's sequence: 1 1 2 1 1 2 4 1 1 2 ..."""
    size = 1
    while size < index + 1:
        size = 2 * size + 1
    while True:
        if size == index:
            return (size + 1) // 2
        size //= 2
        if index > size:
            index -= size


class _Walk:
    """Depth-first walks from ``base`` to the view's turn, restarted with growing budgets."""

    def __init__(self, game: Game[Any], view: RoleView, rng: random.Random, base: Hypothesis,
                 deadline: float | None, dead: DeadStates) -> None:  # fmt: skip
        self.game, self.view, self.rng, self.base = game, view, rng, base
        self.deadline, self.dead = deadline, dead
        self.cues = _cues(view)
        self.spent = 0
        self.barren = 0
        """Walks in a row that found no successor of the base state (nor proved it dead)."""
        self.exhausted = False
        """Set when a walk backed up past the base: no history extends it."""

    def run(self, budget: int, barren: int | None = None) -> Hypothesis | None:
        """A history within ``budget`` expanded steps over every restart, or None; or
        None after ``barren`` walks in a row found no successor of the base state."""
        unit = max(1, self.view.turn - (len(self.base.line) - 1))
        for restart in itertools.count(1):
            left = budget - self.spent
            if left <= 0 or self._late() or (barren is not None and self.barren >= barren):
                return None
            try:
                led = restart % 2 == 1  # every other walk in random order: see the module doc
                size = luby(restart)
                found = self._dive(min(left, unit * size), JOINT_CAP * size, led)
            except _OutOfTime:
                return None
            if found is not None or self.exhausted:
                return found
        raise AssertionError("unreachable")

    def _late(self) -> bool:
        return self.deadline is not None and time.perf_counter() > self.deadline

    def _dive(self, budget: int, cap: int, led: bool) -> Hypothesis | None:
        """One depth-first walk of at most ``budget`` expanded steps, trying at most
        ``cap`` joint moves of each."""
        line = list(self.base.line)
        stack: list[_Options] = []
        expanded = 0
        while len(line) - 1 < self.view.turn:
            if len(stack) == len(line) - len(self.base.line):
                if expanded >= budget or self._late():
                    return None
                expanded += 1
                self.spent += 1
                step = len(line) - 1
                options = _Options(self.game, line[-1], self.view, step, self.rng, self.dead,
                                   self.cues[step] if led else _Cues.NONE, cap,
                                   self.deadline)  # fmt: skip
                stack.append(options)
            after = stack[-1].next()
            if after is not None:
                line.append(after)
                continue
            done = stack.pop()
            if done.complete:
                self.dead.add(done.step, done.state)
            if not stack:
                self.exhausted = done.complete
                self.barren = self.barren + 1 if not done.seen else 0
                return None
            stack[-1].complete &= done.complete
            line.pop()
        factors = [*self.base.factors, *(options.share() for options in stack)]
        return Hypothesis(tuple(line), tuple(factors))


def sample_hypothesis(
    game: Game[Any],
    view: RoleView,
    rng: random.Random,
    start: Hypothesis | None = None,
    budget: int = 10_000,
    deadline: float | None = None,
    use_percepts: bool = True,
    dead: DeadStates | None = None,
    barren: int | None = None,
) -> Hypothesis | None:
    """A history that gives ``view``, with its factors, extending ``start`` (a hypothesis
    of an earlier turn of the same view; default: the initial state), never backing up
    past it. None when ``budget`` expanded steps, ``barren`` walks in a row without a
    successor of the start, or the ``deadline`` (``time.perf_counter()``), came first,
    or no extension exists.
    ``dead``, kept by the caller over a match, remembers the states found dead (its flag
    overrides ``use_percepts``)."""
    base = start or Hypothesis((game.initial_state(),))
    if len(base.line) - 1 > view.turn:
        return None
    dead = dead if dead is not None else DeadStates(use_percepts)
    if (len(base.line) - 1, base.state) in dead:
        return None
    walk = _Walk(game, view, rng, base, deadline, dead)
    return walk.run(budget, barren)


def extend_hypothesis(
    game: Game[Any],
    view: RoleView,
    rng: random.Random,
    start: Hypothesis,
    budget: int = 400,
    deadline: float | None = None,
    use_percepts: bool = True,
    dead: DeadStates | None = None,
) -> Hypothesis | None:
    """``start`` (a hypothesis of an earlier turn of the same view) walked on to
    ``view``'s turn; where it cannot be, backed up one step, then two, four, eight...,
    then to the start, each walk within ``budget`` expanded steps and, but the last, a
    :data:`LEVEL_SHARE` of the time left. None when the ``deadline`` came first or no
    history exists.

    Why back up: a percept that kills a history usually speaks of the last few steps (a
    mark that failed: the opponent took that cell lately), so the nearest choices are
    the ones to revise (HyperPlay backtracks the same way). Why a share of the time: a
    walk from a state that a much earlier guess doomed tries joint move after joint
    move without proving the state dead (a ship guessed at the start, seen elsewhere
    by the first scan: 80,000 joint moves of one step, none fits), and it must not eat
    the time of the walk from further back that would mend the guess.
    """
    dead = dead if dead is not None else DeadStates(use_percepts)
    steps = len(start.line) - 1
    back = 0
    while True:
        begin = start.prefix(steps - back)
        last = back >= steps
        until = deadline if last or deadline is None else _share_of(deadline, LEVEL_SHARE)
        barren = None if last else BARREN_WALKS
        found = sample_hypothesis(game, view, rng, begin, budget, until, use_percepts, dead,
                                  barren)  # fmt: skip
        if found is not None:
            return found
        if last or (deadline is not None and time.perf_counter() > deadline):
            return None
        back = min(steps, max(1, 2 * back))


LEVEL_SHARE = 0.3
"""Share of the time left that a walk from one backing-up point of
:func:`extend_hypothesis` may take (the walk from furthest back takes all of it)."""


BARREN_WALKS = 8
"""Walks in a row from one backing-up point of :func:`extend_hypothesis` (but the last)
that find no successor of it before the walk moves further back: eight restarts of
Luby's sequence try its joint moves up to four caps deep, in both orders; a state none
of them fits is most likely doomed by an earlier choice."""


def _share_of(deadline: float, share: float) -> float:
    """A deadline ``share`` of the way from now to ``deadline``."""
    now = time.perf_counter()
    return now + share * max(deadline - now, 0.0)


def greedy_history(
    game: Game[Any],
    view: RoleView,
    rng: random.Random,
    start: Hypothesis,
    deadline: float | None = None,
) -> Hypothesis | None:
    """``start`` walked on to ``view``'s turn without backing up: at each step, of the
    first :data:`JOINT_CAP` joint moves in percept-led order that give the role its own
    move, the first that gives the step's percepts, else one whose percepts differ from
    them least. A last resort that heeds what it can, where no history of the whole view
    was found: a walk deaf to the percepts loses what the role was just told (whose turn
    it is in blind breakthrough, the hand it was dealt in small Dominion), and the move it
    then finds legal may be refused. None where the role's own move cannot be played;
    past ``deadline`` (``time.perf_counter()``), the walk so far, short of the view's
    turn, for a later call to go on from (a walk of many steps on a slow reasoner may
    take several turns' shares of time)."""
    cues = _cues(view)
    line, factors = list(start.line), list(start.factors)
    for step in range(len(line) - 1, view.turn):
        if _past(deadline):
            break
        joint = _nearest_joint(game, line[-1], view, step, _JointOrder(
            _options_of(game, line[-1], view, step), cues[step], rng), deadline)  # fmt: skip
        if joint is None and _past(deadline):
            break
        if joint is None:
            return None
        line.append(game._next(line[-1], joint))
        factors.append(1.0)
    return Hypothesis(tuple(line), tuple(factors))


def _past(deadline: float | None) -> bool:
    """Whether ``deadline`` (``time.perf_counter()``; None: none) has passed."""
    return deadline is not None and time.perf_counter() > deadline


def _options_of(game: Game[Any], state: Hashable, view: RoleView, step: int) -> list[list[Term]]:
    """Each role's moves at ``state`` with the role's own of ``step`` (none where it
    cannot play it)."""
    if not can_play(game, state, view, step):
        return []
    move = view.moves[step]
    return [[move] if r == view.role else game.legal_moves(state, r) for r in game.roles]


def _nearest_joint(game: Game[Any], state: Hashable, view: RoleView, step: int,
                   order: _JointOrder, deadline: float | None) -> list[Term] | None:  # fmt: skip
    """Of the first :data:`JOINT_CAP` joint moves of ``order``, the first that gives the
    role its percepts of ``step``, else the one whose percepts differ from them in the
    fewest terms; None where there is none, or past ``deadline``."""
    wanted = view.percepts[step]
    best: tuple[int, list[Term]] | None = None
    for _ in range(min(order.count, JOINT_CAP)):
        joint = order.pop()
        if joint is None or _past(deadline):
            break
        differ = len(game._percepts(state, joint)[view.role] ^ wanted)
        if differ == 0:
            return joint
        if best is None or differ < best[0]:
            best = (differ, joint)
    return None if best is None or _past(deadline) else best[1]


def sample_history(
    game: Game[Any],
    view: RoleView,
    rng: random.Random,
    budget: int = 10_000,
    start: History | None = None,
    use_percepts: bool = True,
    dead: DeadStates | None = None,
    deadline: float | None = None,
) -> History | None:
    """One history that gives ``view``, drawn at random; None when ``budget`` expanded
    steps (or the ``deadline``, ``time.perf_counter()``) found none. ``start``, a history
    of an earlier turn of the same view, is extended where it can be (backing up as
    :func:`extend_hypothesis` does); where it cannot, the walk starts over from the
    initial state with a budget of its own."""
    dead = dead if dead is not None else DeadStates(use_percepts)
    if start:
        walk = max(1, budget // 25)
        found = extend_hypothesis(
            game, view, rng, Hypothesis(start), walk, deadline, use_percepts, dead
        )
        if found is not None:
            return found.line
    found = sample_hypothesis(game, view, rng, None, budget, deadline, use_percepts, dead)
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
    dead = DeadStates()
    for _ in range(count):
        line = sample_history(game, view, rng, budget, dead=dead)
        if line is not None:
            found.setdefault(line[-1], None)
            repeated.append(line[-1])
    return list(found) if distinct else repeated

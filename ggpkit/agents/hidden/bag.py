"""A bag of sampled histories, kept through a match and updated with each percept.

HyperPlay's hypotheses (Schofield, Cerexhe and Thielscher, AAAI 2012): rather than sample
the information set afresh each turn, keep N histories and extend each by the turn's
move and percepts. A history that can no longer give the view has *died*: it is backed
up to an earlier step and walked forward again
(:func:`~ggpkit.games.sampling.extend_hypothesis`), as HyperPlay backtracks to the
last choice with options left. The bag is refilled with fresh samples while time
allows, so that it does not collapse onto the survivors of one early guess.

Each history keeps its steps' factors (:class:`~ggpkit.games.information.Hypothesis`):
the searches weigh its state by their product, which makes the bag's states a fair
sample of the posterior (the host in Monty Hall who opens the door seen only half the
time he could).

Before any walk, the bag carries the *frontier*: the states of the information set and
their posterior, a step at a time (:mod:`~ggpkit.games.filtering`), every one while they
are few, a sample of :data:`FRONTIER_STATES` beyond. Walks take over only where the
frontier dies (its sample held no state the next percept allows) or a step is too wide
to expand (nature dealing from a deck); where the walks then find histories of the
whole view, the next turn carries them on as a frontier again.
"""

from __future__ import annotations

import random
import time
from collections.abc import Hashable
from typing import Any

from ggpkit.games.api import Game
from ggpkit.games.filtering import Frontier, FrontierDied, TooWide
from ggpkit.games.information import History, Hypothesis
from ggpkit.games.sampling import DeadStates, extend_hypothesis, sample_hypothesis
from ggpkit.games.views import RoleView

FRONTIER_STATES = 4_000
"""States of the frontier the bag carries from turn to turn (0: none, walks only). While
the information set has at most this many, the bag holds all of them with their exact
posterior rather than samples (sixteen samples weigh Monty Hall's two doors too roughly
to see that switching wins two times in three); beyond, a sample of this many. In
blind breakthrough, where the set grows past 30,000 states mid-match and narrows to a
few dozen, samples of 1,000 still died in some matches (docs/results.md)."""
WALK_BUDGET = 400
"""Expanded steps one walk may take before the bag gives up on it (and backs up more)."""
PERSIST_BUDGET = 100_000
"""Expanded steps of the walk from the start of an empty bag's last search (its
deadline, not this, is what usually ends it)."""
LATE_TRIES = 3
"""Walks an empty bag takes at its deadline, of each kind (see ``HistoryBag._late``)."""
LATE_GRACE = 0.1
"""Seconds past its deadline an empty bag may look for a history that heeds every percept."""


class HistoryBag:
    """Up to ``size`` histories of one role's view, updated turn by turn.

    ``use_percepts=False`` samples histories that give the role its own moves only: the
    bag of a player that ignores what it sees.
    """

    def __init__(self, size: int, rng: random.Random, use_percepts: bool = True) -> None:
        self.size = max(1, size)
        self.rng = rng
        self.use_percepts = use_percepts
        self.hypotheses: list[Hypothesis] = []
        self.turn = -1
        self.resampled = 0
        """Histories that died and were walked again, over the match (for tests and notes)."""
        self.frontier: Frontier | None = None
        """States of the information set with their posterior, while the frontier lives."""
        self.anchors: list[Hypothesis] = []
        """Histories of the last turn the bag held histories of the whole view: where every
        history dies and none is found again, they are walked on heeding the role's own
        moves only, and the next turns start again from them."""
        self.relaxed = False
        """Whether the bag holds histories that broke a percept (its last resort: walks
        that heed the role's own moves only, and their extensions). They are walked on
        while they fit the new steps, but never become anchors, and where they die the
        bag starts again from its anchors: a walk from a line that broke a percept can
        only back up past the break."""
        self.dead = DeadStates(use_percepts)
        """States no history of the view goes through, found by the walks of any turn."""

    def clear(self) -> None:
        """Forget every history (a new match)."""
        self.hypotheses = []
        self.turn = -1
        self.resampled = 0
        self.frontier = None
        self.anchors = []
        self.relaxed = False
        self.dead.clear()

    def update(
        self, game: Game[Any], view: RoleView, deadline: float, patience: float | None = None
    ) -> None:
        """Bring every history to ``view``'s turn, within ``deadline`` (``perf_counter``)
        where it can; past it only while the bag is empty (a search needs one state):
        until ``patience`` (where later) looking for a history of the whole view, then
        briefly for one that gives the role's own moves. A view of an earlier turn than
        the bag's starts the bag over."""
        if view.turn < self.turn or self.turn < 0:
            self.clear()  # a new match
            if FRONTIER_STATES > 0:
                self.frontier = Frontier.start(game, FRONTIER_STATES)
        if self.frontier is not None:
            self._advance(game, view, deadline, deadline if patience is None else patience)
        if self.frontier is not None:
            self.turn = view.turn
            return
        before = self.hypotheses  # own-moves-only ones too: they may fit the new steps
        was_relaxed = self.relaxed
        kept: list[Hypothesis] = []
        for hypothesis in before:
            grown = self._extend(game, view, hypothesis, deadline)
            if grown is not None and not game.is_terminal(grown.state):
                kept.append(grown)
        self.hypotheses = kept
        self.relaxed = was_relaxed and bool(kept)  # walked on, they still broke a percept
        starts = self.anchors if was_relaxed or not before else before
        self._fill(game, view, deadline, starts, patience)
        if self.hypotheses and not self.relaxed:
            self.anchors = self.hypotheses[:LATE_TRIES]
            self._carry_on(game)
        self.turn = view.turn

    def _advance(self, game: Game[Any], view: RoleView, deadline: float, patience: float) -> None:
        """The frontier brought to ``view``'s turn within ``deadline`` (filtered again
        until ``patience`` where it dies); where it dies all the same (or a step is too
        wide), dropped for a bag drawn from it at the last step it lived (by posterior,
        so of equal weights), which the update then walks on."""
        assert self.frontier is not None
        try:
            self.frontier.advance(game, view, self.rng, deadline, patience, self.use_percepts)
            return
        except FrontierDied as died:
            turn, states, lines = died.step, died.states, died.lines
        except TooWide:
            turn, states, lines = self.frontier.turn, self.frontier.states, self.frontier.lines
        drawn = self.rng.choices(list(states), list(states.values()), k=self.size)
        self.hypotheses = [Hypothesis(lines[s], (1.0,) * turn) for s in drawn]
        self.frontier = None

    def _carry_on(self, game: Game[Any]) -> None:
        """The bag's histories of the whole view made the frontier of the next turn."""
        if FRONTIER_STATES <= 0:
            return
        ends: dict[Hashable, float] = {}
        lines: dict[Hashable, History] = {}
        for hypothesis in self.hypotheses:
            ends[hypothesis.state] = ends.get(hypothesis.state, 0.0) + hypothesis.weight
            lines.setdefault(hypothesis.state, hypothesis.line)
        if sum(ends.values()) > 0 and not any(game.is_terminal(s) for s in ends):
            turn = len(self.hypotheses[0].line) - 1
            self.frontier = Frontier.of_histories(game, ends, lines, turn, FRONTIER_STATES)

    def _extend(
        self, game: Game[Any], view: RoleView, hypothesis: Hypothesis, deadline: float
    ) -> Hypothesis | None:
        """``hypothesis`` walked on to ``view``'s turn (backed up where it died)."""
        grown = extend_hypothesis(
            game, view, self.rng, hypothesis, WALK_BUDGET, deadline, self.use_percepts, self.dead
        )
        if grown is not None and grown.line[: len(hypothesis.line)] != hypothesis.line:
            self.resampled += 1
        return grown

    def _fill(self, game: Game[Any], view: RoleView, deadline: float, before: list[Hypothesis],
              patience: float | None) -> None:  # fmt: skip
        """Fresh histories until the bag is full or the deadline passes; then copies of
        the survivors (a particle filter's resampling: they part at their next steps).
        A bag left empty goes on looking until ``patience``; then it takes, as a last
        resort, histories that give the role's own moves but not all its percepts: a
        state near the truth beats no move at all."""
        tries = 0
        while len(self.hypotheses) < self.size and time.perf_counter() < deadline:
            tries += 1
            if tries > self.size:
                break
            found = sample_hypothesis(
                game, view, self.rng, None, WALK_BUDGET, deadline, self.use_percepts, self.dead
            )
            if found is not None and not game.is_terminal(found.state):
                self.hypotheses.append(found)
        if not self.hypotheses and patience is not None:
            self._persist(game, view, before, patience)
        if not self.hypotheses:
            self._late(game, view, before)
        survivors = list(self.hypotheses)
        while survivors and len(self.hypotheses) < self.size:
            self.hypotheses.append(self.rng.choice(survivors))

    def _persist(
        self, game: Game[Any], view: RoleView, before: list[Hypothesis], patience: float
    ) -> None:
        """One history of the whole view for an empty bag, looked for until ``patience``:
        the last turn's histories walked on (backing up as far as it takes), each in
        turn with a share of the time, then one walk from the start with what is left.
        A search on one true-to-the-view state beats one on states that are not."""
        starts: list[Hypothesis | None] = [*before[:LATE_TRIES], None]
        for index, start in enumerate(starts):
            now = time.perf_counter()
            if now >= patience:
                return
            until = now + (patience - now) / (len(starts) - index)
            heed, dead = self.use_percepts, self.dead
            if start is not None:
                found = extend_hypothesis(game, view, self.rng, start, WALK_BUDGET, until,
                                          heed, dead)  # fmt: skip
            else:
                found = sample_hypothesis(game, view, self.rng, None, PERSIST_BUDGET, until,
                                          heed, dead)  # fmt: skip
            if found is not None and not game.is_terminal(found.state):
                self.hypotheses.append(found)
                return

    def _late(self, game: Game[Any], view: RoleView, before: list[Hypothesis]) -> None:
        """One history for a bag still empty at its deadline, each kind of walk within
        :data:`LATE_GRACE`: short walks from the start that heed every percept; else the
        histories of the last turn (or the last that had any) walked on with the new
        steps' own moves only (their percepts not heeded: the state may differ from the
        truth in what was just perceived, but keeps all that was known before), first
        heeding the percepts of the last step (which tell most about the state the role
        is now in: whose turn it is), then not; else walks from the start that heed the
        own moves only. A state near the truth beats
        no move; no state at all leaves the bag empty, and the agent fails the move (the
        referee plays a random one) rather than be late."""
        heed, latest = self.use_percepts, max(view.turn - 1, 0)
        kinds: list[tuple[float, list[tuple[Hypothesis | None, DeadStates]]]] = [
            (1.0, [(None, self.dead)] * LATE_TRIES),
            (0.5, [(h, DeadStates(heed, latest)) for h in before[:LATE_TRIES]]),
            (0.5, [(h, DeadStates(False)) for h in before[:LATE_TRIES]]),
            (1.0, [(None, DeadStates(False))] * LATE_TRIES),
        ]
        for share, kind in kinds:
            grace = time.perf_counter() + share * LATE_GRACE
            for start, dead in kind:
                found = sample_hypothesis(
                    game, view, self.rng, start, WALK_BUDGET, grace, dead.use_percepts, dead
                )
                if found is not None and not game.is_terminal(found.state):
                    self.hypotheses.append(found)
                    self.relaxed = dead is not self.dead
                    return

    def histories(self) -> list[History]:
        """One history of each of the bag's states, in the bag's order."""
        if self.frontier is not None:
            return [self.frontier.lines[state] for state in self.frontier.states]
        lines: dict[Hashable, History] = {}
        for hypothesis in self.hypotheses:
            lines.setdefault(hypothesis.state, hypothesis.line)
        return list(lines.values())

    def belief(self) -> dict[Hashable, float]:
        """The bag's states, each once, with the share of the bag's weight ending there
        (or the frontier's, while it lives)."""
        if self.frontier is not None:
            return dict(self.frontier.states)  # its terminal states: moves are asked of live ones
        weights: dict[Hashable, float] = {}
        for hypothesis in self.hypotheses:
            weights[hypothesis.state] = weights.get(hypothesis.state, 0.0) + hypothesis.weight
        total = sum(weights.values())
        if total <= 0:
            return {state: 1.0 / len(weights) for state in weights}
        return {state: weight / total for state, weight in weights.items()}

"""Determinisation: an agent of perfect information asked on a state the view allows.

The simplest way to play from a view: keep one sampled history (a bag of one, extended
each turn as HyperPlay keeps its hypotheses: :mod:`~ggpkit.agents.hidden.bag`; while the
information set is small, a state drawn from its exact posterior) and let the wrapped
agent choose in its last state. It is what an agent that was not written for hidden
information plays; the searches of this package do better.
"""

from __future__ import annotations

import random
import time
from collections.abc import Hashable
from typing import Any

from ggpkit.agents.base import Agent, AgentError, Limit
from ggpkit.agents.hidden.bag import HistoryBag
from ggpkit.agents.hidden.common import PATIENT_SHARE
from ggpkit.games.api import Game
from ggpkit.games.views import RoleView
from ggpkit.gdl.terms import Term

SAMPLE_SECONDS = 5.0
"""Most seconds a move's sampling may take where the move has no time limit."""


class Determinized(Agent):
    """``inner`` choosing in a state sampled from the role's information set."""

    plays_from_views = True

    def __init__(self, inner: Agent, seed: int | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.ponders = False
        self.rng = random.Random(seed)
        self.bag = HistoryBag(1, self.rng)

    def start(self, game: Game[Any], role: str) -> None:
        self.bag.clear()
        self.inner.start(game, role)

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        if not isinstance(state, RoleView):
            return self.inner.select(game, state, role, limit)
        now = time.perf_counter()
        seconds = SAMPLE_SECONDS if limit.time is None else limit.time / 2
        patience = None if limit.time is None else now + PATIENT_SHARE * limit.time
        self.bag.update(game, state, now + seconds, patience)
        belief = self.bag.belief()
        if not belief:
            raise AgentError(f"no state of {game.name} fits {role}'s view at turn {state.turn}")
        states = list(belief)
        drawn = self.rng.choices(states, weights=[belief[s] for s in states])[0]
        return self.inner.select(game, drawn, role, limit)

    def stop(self) -> None:
        self.bag.clear()
        self.inner.stop()

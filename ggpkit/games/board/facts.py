"""The facts a game's board may ever hold, to infer its grid from (not only the facts true now).

On the propnet (and for native games, through their GDL twin) the possible facts are
known exactly: the grounded base propositions. The prover cannot list them, so there
the facts seen in a few random playouts stand in; a bounded number of steps, each
under a time limit, so hostile rules cannot hold a request.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from ggpkit.errors import GgpkitError
from ggpkit.games.api import Game, GameError
from ggpkit.gdl.terms import Term
from ggpkit.reasoning.base import time_limit

PLAYOUTS = 4
"""Random playouts whose facts stand in for the possible facts on the prover."""

PLAYOUT_STEPS = 60
"""Joint moves per such playout."""

PLAYOUT_SECONDS = 3.0
"""Longest all those playouts together may take before they stop (the prover can be slow)."""


@dataclass(frozen=True, slots=True)
class KnownFacts:
    """Facts of a game, and whether they are all it can ever hold."""

    facts: frozenset[Term]
    complete: bool


def possible_facts(game: Game[Any]) -> KnownFacts:
    """Every fact ``game`` can hold, or (when it cannot say) the facts seen in playouts."""
    try:
        return KnownFacts(frozenset(game.propositions().base), complete=True)
    except GameError:
        return KnownFacts(_seen_in_playouts(game), complete=False)


def _seen_in_playouts(game: Game[Any], seed: int = 0) -> frozenset[Term]:
    rng = random.Random(seed)
    start: Hashable = game.initial_state()
    seen: set[Term] = set(game.facts(start))
    try:
        with time_limit(PLAYOUT_SECONDS):
            for _ in range(PLAYOUTS):
                state = start
                for _step in range(PLAYOUT_STEPS):
                    if game.is_terminal(state):
                        break
                    joint = [rng.choice(ms) for ms in game.all_legal_moves(state)]
                    state = game.next_state(state, joint)
                    seen.update(game.facts(state))
    except (GgpkitError, IndexError):  # slow or broken rules: what was seen so far is it
        pass
    return frozenset(seen)

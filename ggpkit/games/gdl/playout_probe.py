"""Random playouts that look for a state the rules leave without a legal move.

GGP requires every role to have a legal move in every non-terminal state; rules
that break this are legal GDL the static checker cannot see through, and a match
on them stops with no move to play. A few seeded random playouts, bounded in time,
find the common cases (a turn-taking game that forgot the idle role's ``noop`` in
some states), so ``ggpkit check`` warns before a match stops. It works on any
:class:`~ggpkit.games.api.Game` through the contract alone.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

from ggpkit.games.api import Game
from ggpkit.reasoning.base import time_limit

PLAYOUTS = 20
"""Random playouts per probe."""

MAX_STEPS = 200
"""Joint moves per playout, at most."""

SECONDS = 3.0
"""Wall-clock budget of one probe, in seconds (a slow game gets fewer playouts)."""


@dataclass(frozen=True, slots=True)
class StuckState:
    """A non-terminal state where ``role`` has no legal move, ``step`` joint moves into
    random ``playout`` (0-based) of a probe seeded with ``seed``."""

    role: str
    step: int
    playout: int
    seed: int

    def __str__(self) -> str:
        return (
            f"role '{self.role}' has no legal move in a non-terminal state reached after "
            f"{self.step} joint move(s) of random play (playout {self.playout}, seed {self.seed})"
        )


def find_stuck_state(
    game: Game[Any],
    *,
    playouts: int = PLAYOUTS,
    max_steps: int = MAX_STEPS,
    seconds: float = SECONDS,
    seed: int = 0,
) -> StuckState | None:
    """The first stuck state seeded random playouts reach, or None when none is found.

    Evidence, not proof: None means no playout met one within ``playouts`` playouts of
    at most ``max_steps`` joint moves and ``seconds`` of wall-clock time. A
    :class:`~ggpkit.games.api.GameError` of the game itself propagates.
    """
    rng = random.Random(seed)
    deadline = time.monotonic() + seconds
    # Between calls the deadline ends the probe quietly; a call still running at twice
    # the budget (hostile rules whose queries never end) ends with a GameError.
    with time_limit(2 * seconds):
        for playout in range(playouts):
            found = _playout(game, rng, max_steps, deadline)
            if found is not None:
                return StuckState(found[0], found[1], playout, seed)
            if time.monotonic() > deadline:
                break
    return None


def _playout(
    game: Game[Any], rng: random.Random, max_steps: int, deadline: float
) -> tuple[str, int] | None:
    """(role, step) of the first stuck state of one random playout, or None.

    The deadline is checked before every call that may be slow on the prover, so a
    probe overruns its budget by at most one such call."""
    state = game.initial_state()
    for step in range(max_steps + 1):
        if time.monotonic() > deadline or game.is_terminal(state):
            return None
        legal = game.all_legal_moves(state)
        for role, moves in zip(game.roles, legal, strict=True):
            if not moves:
                return role, step
        if step == max_steps or time.monotonic() > deadline:
            return None
        state = game.next_state(state, [rng.choice(moves) for moves in legal])
    return None

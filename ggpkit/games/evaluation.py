"""Evaluations for alpha-beta: the generic fallback, and tools the games' own evaluations share.

Every evaluation scores a non-terminal state *for one role* in goal points: its own
goal minus its opponent's, so that a two-role search can negate it (negamax) and so
that it stays comparable with the exact terminal values (wins are +-100 in
breakthrough; pawn checkers is scored by captures, so its goal difference is already
the main term). Heuristic extras are kept well inside +-100 so that a proven win
always beats a good-looking position.

A game declares its own evaluation in ``GameInfo.capabilities.evaluation`` (the
native games' live in their folders: ``games/checkers/evaluation.py``, ...); agents
use the generic one here for every other game.

An evaluation also ranks moves for move ordering (captures and jumps first) and says
when a position is *noisy* (a capture is pending), which the search extends before
trusting the static value.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ggpkit.games.api import Game
from ggpkit.gdl.terms import Term


class GenericEvaluation:
    """The generic fallback: current goal difference plus a little mobility.

    Works on any game: goals are defined in every state (GGP), and the mover's
    number of moves is a weak but universal sign of freedom.
    """

    forced_tactics = False
    """True when tactical moves are compulsory (checkers jumps): no standing pat."""

    def value(self, game: Game[Any], state: Hashable, role: int) -> float:
        """The state's worth for the role at index ``role``, in goal points, inside +-100."""
        goals = game.goals(state)
        values = [goals[r] for r in game.roles]
        mine = values[role]
        others = max((v for i, v in enumerate(values) if i != role), default=0)
        legal = game.all_legal_moves(state)
        mobility = sum(len(ms) for i, ms in enumerate(legal) if i == role) - sum(
            len(ms) for i, ms in enumerate(legal) if i != role
        )
        return clip(mine - others + 0.5 * mobility)

    def priority(self, game: Game[Any], state: Hashable, move: Term, role: int) -> int:
        """Higher first in move ordering: moves named like captures."""
        return 1 if move.name in ("jump", "capture") else 0

    def noisy(self, game: Game[Any], state: Hashable, moves: list[Term], role: int) -> bool:
        """True when the static value cannot be trusted (a capture is available)."""
        return False


def clip(value: float, bound: float = 95.0) -> float:
    return max(-bound, min(bound, value))


class PlayoutBlend(GenericEvaluation):
    """A static evaluation blended with the goal difference of a few random playouts.

    Why: in pawn checkers the result is decided by long exchanges that a static
    count of captures, threats and mobility misses, while random playouts see
    them on average (that is what MCTS feeds on). With the game's compiled
    ``playout_stats`` a batch of 32 playouts costs about as much as a few Python move
    generations, so alpha-beta keeps most of its depth. Against MCTS the blend beat the
    static evaluation alone, 32 playouts beat 16, and an even weight beat leaning on the
    playouts (figures in docs/results.md). The playouts are seeded by the state's hash, so a
    state always gets the same value (and the two roles' values stay opposite).
    Games without a compiled kernel get the static evaluation alone.
    """

    def __init__(self, base: GenericEvaluation, playouts: int = 32, weight: float = 0.5) -> None:
        self.base = base
        self.playouts = playouts
        self.weight = weight
        self.forced_tactics = base.forced_tactics

    def value(self, game: Game[Any], state: Hashable, role: int) -> float:
        static = self.base.value(game, state, role)
        if not game.info.capabilities.compiled_playouts:
            return static
        stats = game.playout_stats(state, self.playouts, hash(state) & 0x3FFF_FFFF_FFFF_FFFF)
        sums = stats.goal_sums
        others = max(v for i, v in enumerate(sums) if i != role)
        sampled = (sums[role] - others) / stats.playouts
        return clip((1 - self.weight) * static + self.weight * sampled)

    def priority(self, game: Game[Any], state: Hashable, move: Term, role: int) -> int:
        return self.base.priority(game, state, move, role)

    def noisy(self, game: Game[Any], state: Hashable, moves: list[Term], role: int) -> bool:
        return self.base.noisy(game, state, moves, role)

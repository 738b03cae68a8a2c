"""The arenas of a generation: candidate against best (the gate), new best against MCTS.

The gate plays in lockstep (:func:`~ggpkit.learn.selfplay.play_matches`), the candidate
in every seat in turn, its first moves drawn by visits so that the matches differ. The
score against plain MCTS is an ordinary arena (:func:`ggpkit.match.arena.run_arena`)
between ``az`` and ``mcts`` at the same simulations a move, roles alternated.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ggpkit.agents.learned.network import Network, Params
from ggpkit.games.api import Game
from ggpkit.learn.selfplay import Play, play_matches
from ggpkit.learn.settings import TrainSettings

if TYPE_CHECKING:
    from ggpkit.learn.trainer import Trainer


def seatings(roles: int, matches: int) -> list[tuple[int, ...]]:
    """Match ``i`` seats the candidate (network 0) at role ``i mod roles``, the best
    (network 1) at the others."""
    return [tuple(0 if r == i % roles else 1 for r in range(roles)) for i in range(matches)]


def gate(trainer: Trainer, candidate: Params, best: Params) -> dict[str, Any]:
    """The candidate's mean goal share against the best, and whether it is promoted."""
    s = trainer.settings
    c = trainer.counters
    networks = [
        Network(trainer.encoding, trainer.config, candidate),
        Network(trainer.encoding, trainer.config, best),
    ]
    play = Play(s.simulations, s.gate_temperature_moves, max_moves=s.max_moves)
    seats = seatings(len(trainer.game.roles), s.gate_matches)
    rng = random.Random(s.seed * 1_000_003 + c.games)
    outcomes = play_matches(trainer.game, networks, seats, play, rng)
    shares = [
        float(o.shares[r]) if o.shares is not None else 0.5
        for o in outcomes
        for r, k in enumerate(o.seating)
        if k == 0
    ]
    score = float(np.mean(shares)) if shares else 0.0
    return {"games": c.games, "score": round(score, 4), "promoted": score >= s.gate_score}


def against_mcts(game: Game[Any], model: Path, settings: TrainSettings) -> float:
    """The model's mean goal share against plain MCTS, both at ``simulations`` a move."""
    from ggpkit.match.arena import run_arena

    sims = settings.simulations
    specs = [f"az:model={model},playouts={sims}", f"mcts:playouts={sims}"]
    result = run_arena(game, specs, settings.mcts_matches, seed=settings.seed, jobs=1)
    lo, hi = game.info.goal_range
    return round((result.stats[0].mean_goal - lo) / max(hi - lo, 1), 4)

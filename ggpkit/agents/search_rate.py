"""How fast MCTS simulates inside its tree, for ``ggpkit bench``'s search column.

Raw playouts/s say how fast the rules run; a tree search also walks its tree,
expands nodes and backs values up, one state at a time. The ratio of the two is
what the search loses to that bookkeeping.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from ggpkit.agents.base import Limit
from ggpkit.agents.mcts import MCTSAgent
from ggpkit.games.api import Game


def mcts_simulations_per_second(game: Game[Any], seconds: float, repeat: int) -> float:
    """Median simulations per CPU-second of MCTS choosing the first move, over ``repeat`` runs.

    Each run is a fresh agent (no tree reuse) given ``seconds`` of wall clock; the
    simulations it counted are divided by the CPU time of this thread, as the raw
    playout rates are.
    """
    state = game.initial_state()
    role = _chooser(game, state)
    warm = MCTSAgent(seed=0)
    warm.start(game, role)  # compiled kernels loaded before anything is timed
    rates = []
    for run in range(repeat):
        agent = MCTSAgent(seed=run)
        agent.start(game, role)
        began = time.thread_time()
        agent.select(game, state, role, Limit(time=seconds))
        rates.append(agent.last_playouts / max(time.thread_time() - began, 1e-9))
    return statistics.median(rates)


def _chooser(game: Game[Any], state: Any) -> str:
    """The first role with a choice in ``state`` (the first role if none has one)."""
    if not game.is_terminal(state):
        for role, moves in zip(game.roles, game.all_legal_moves(state), strict=True):
            if len(moves) > 1:
                return role
    return game.roles[0]

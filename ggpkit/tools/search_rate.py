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
from ggpkit.agents.mcts.agent import MCTSAgent
from ggpkit.games.api import Game
from ggpkit.tools.bench import SearchSpeed


def mcts_speed(game: Game[Any], seconds: float, repeat: int) -> SearchSpeed:
    """Median simulations and iterations per CPU-second of MCTS choosing the first move.

    Each run is a fresh default agent (no tree reuse: the compiled tree where the game
    has one) given ``seconds`` of wall clock; what it counted is divided by the CPU
    time of this thread, as the raw playout rates are. An iteration is one pass down
    the tree; it runs one playout, or ``leaf`` of them at a new leaf.
    """
    state = game.initial_state()
    role = _chooser(game, state)
    warm = MCTSAgent(seed=0)
    warm.start(game, role)  # compiled kernels loaded before anything is timed
    warm.select(game, state, role, Limit(playouts=64))
    simulations, iterations = [], []
    for run in range(repeat):
        agent = MCTSAgent(seed=run)
        agent.start(game, role)
        began = time.thread_time()
        agent.select(game, state, role, Limit(time=seconds))
        cpu = max(time.thread_time() - began, 1e-9)
        simulations.append(agent.last_playouts / cpu)
        iterations.append(agent.last_iterations / cpu)
    return SearchSpeed(statistics.median(simulations), statistics.median(iterations))


def _chooser(game: Game[Any], state: Any) -> str:
    """The first role with a choice in ``state`` (the first role if none has one)."""
    if not game.is_terminal(state):
        for role, moves in zip(game.roles, game.all_legal_moves(state), strict=True):
            if len(moves) > 1:
                return role
    return game.roles[0]

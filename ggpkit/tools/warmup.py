"""Warming a game up: its compiled kernels loaded before anyone waits on them.

Native games compile (or load from numba's cache) each kernel on its first call,
which takes from a fraction of a second to several seconds. A server that will
answer requests about a game calls :func:`warm_up` at start-up, so that the first
person to move does not pay for it.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ggpkit.games.api import Game
from ggpkit.search.contract import CannotSearchError, TreeSearch
from ggpkit.search.options import SearchLimit, SearchOptions


def warm_up(game: Game[Any], max_steps: int = 300, seed: int = 0) -> None:
    """Play one random line through the public API: every per-state call runs once."""
    rng = random.Random(seed)
    state = game.initial_state()
    game.facts(state)
    for _ in range(max_steps):
        if game.is_terminal(state):
            game.goals(state)
            return
        joint = [rng.choice(game.legal_moves(state, role)) for role in game.roles]
        state = game.next_state(state, joint)
        game.facts(state)


def warm_up_kernels(progress: Callable[[str], None] = lambda name: None) -> list[str]:
    """Compile (or load from numba's cache) every kernel a match may call; the games warmed.

    Why: numba compiles a kernel on its first call, seconds of CPU each, and a play
    clock must never pay for that. This runs each registered game on its own engine
    and on its GDL twin (the propnet, whose network is built in a child that compiles
    the build's graph passes too): every per-state call, both playout kernels and the
    compiled MCTS tree (with a puzzle's searches).
    ``progress`` hears the name of each game before it starts.
    """
    from ggpkit.games.registry import games, load
    from ggpkit.reasoning.propnet import graph as propnet_graph
    from ggpkit.reasoning.propnet import reasoner as fast
    from ggpkit.search.tree import array_tree

    propnet_graph.warm_up()
    fast.warm_up()
    array_tree.warm_up()  # in this process too: the parent may build networks in-process
    done = []
    for name in games():
        for engine in ("native", "gdl"):
            progress(f"{name} ({engine})")
            warm_up_game(load(name, engine=engine))
            done.append(f"{name} ({engine})")
    return done


def warm_up_game(game: Game[Any]) -> None:
    """Compile (or load) the kernels a match of ``game`` may call: every per-state call, both
    playout kernels and the compiled MCTS tree, so that no clock pays for them.

    A game with neither compiled playouts nor a compiled tree (rules on the join code) has
    nothing to compile, and a random line through its rules may take minutes: it is left.
    """
    caps = game.info.capabilities
    if not caps.compiled_playouts and caps.tree_search is None:
        return
    warm_up(game)
    if caps.compiled_playouts:
        for count in (1, 64):  # the scalar kernel and the 64-lane one
            game.playout_stats(game.initial_state(), count, 0)
    if caps.tree_search is not None:
        with contextlib.suppress(CannotSearchError):  # a game the tree declines (GDL-II's)
            _warm_trees(game, caps.tree_search)


def _warm_trees(game: Game[Any], make: Callable[[int | None], TreeSearch]) -> None:
    """Search small trees of ``game`` each way a search may evaluate its leaves, with the
    material heuristic, and in a puzzle with the solver and the nested search."""
    start = game.initial_state()
    plain = SearchOptions(c=1.4, leaf=1, wins=False, dfs=0.0, monotone=False)
    for leaf, paths in ((1, 1), (64, 1), (1, 8)):  # each way to evaluate leaves
        make(1000).search(start, SearchLimit(iterations=20), replace(plain, leaf=leaf, paths=paths))
    facts = game.facts(start)  # and the material heuristic
    pieces = tuple(facts for _ in game.roles)
    options = replace(plain, paths=8, goals=0.5, pieces=pieces)
    make(1000).search(start, SearchLimit(iterations=20), options)
    if len(game.roles) == 1:  # and a puzzle's solver and nested search
        make(1000).search(start, SearchLimit(time=0.05), replace(plain, nested=0.5, dfs=0.5))

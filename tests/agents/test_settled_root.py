"""A one-role game whose goal is settled before it ends: the agent still ends it.

The compiled tree values a state whose latched facts settle the goal as if the game
ended there. Where the goal is the same in every state, every state is settled, and an
agent that trusted the tree's line played moves that never ended the match. The oracle
is a breadth-first walk of the random graph the rules are written from, in plain Python.
"""

from __future__ import annotations

import random

import pytest
from search.test_shortest_line import graph_distance

from ggpkit.agents.base import Limit
from ggpkit.agents.mcts.agent import MCTSAgent
from ggpkit.games.gdl.game import load_kif_text

MOST_MOVES = 200
"""Moves a match may take before the test calls it endless."""


def settled_walk(rng: random.Random, nodes: int) -> tuple[str, dict[int, list[int]]]:
    """Rules of a walk on a random directed graph from node 0, ended only at the last
    node, scoring 100 in every state; the nodes visited are remembered (latches).
    Every node has an edge to the next, so the last node is always reachable."""
    edges = {
        a: sorted({*rng.sample(range(nodes), rng.randint(1, 3)), min(a + 1, nodes - 1)})
        for a in range(nodes)
    }
    rules = ["(role walker)", "(init (at n0))", "(init (visited n0))"]
    rules += [f"(edge n{a} n{b})" for a, bs in edges.items() for b in bs]
    rules += [
        "(<= (legal walker (go ?b)) (true (at ?a)) (edge ?a ?b))",
        "(<= (next (at ?b)) (does walker (go ?b)))",
        "(<= (next (visited ?b)) (does walker (go ?b)))",
        "(<= (next (visited ?b)) (true (visited ?b)))",
        f"(<= terminal (true (at n{nodes - 1})))",
        "(goal walker 100)",
    ]
    return "\n".join(rules), edges


@pytest.mark.parametrize("seed", range(6))
def test_a_settled_one_role_game_is_played_to_its_end_by_a_shortest_line(seed: int) -> None:
    rng = random.Random(seed)
    nodes = rng.randint(6, 12)
    rules, edges = settled_walk(rng, nodes)
    game = load_kif_text(rules, reasoner="propnet")
    assert game.info.capabilities.tree_search is not None
    role = game.roles[0]
    agent = MCTSAgent(Limit(time=0.2), seed=seed)
    agent.start(game, role)
    state, visited = game.initial_state(), [0]
    while not game.is_terminal(state) and len(visited) <= MOST_MOVES:
        move = agent.select(game, state, role, Limit(time=0.2))
        state = game.next_state(state, {role: move})
        visited.append(int(str(move).split()[-1].strip("n)")))
    agent.stop()
    assert game.is_terminal(state), f"no end after {len(visited) - 1} moves"
    assert len(visited) - 1 == graph_distance(edges, nodes - 1), visited

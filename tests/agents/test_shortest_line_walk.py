"""The breadth-first walk of a one-role game over the game contract (the join code's
puzzles, where the agent's tree is Python).

The oracle is a breadth-first walk of the random graph the rules are written from, in
plain Python (:mod:`search.test_shortest_line`).
"""

from __future__ import annotations

import random
import time

import pytest
from search.test_shortest_line import (
    graph_distance,
    graph_puzzle,
)

from ggpkit.agents.base import Limit
from ggpkit.agents.mcts.agent import MCTSAgent
from ggpkit.agents.mcts.shortest_line import BreadthFirstLine, step_counters
from ggpkit.games.gdl.game import load_kif_text

NO_COUNTER = """
(role p) (init (at a))
(<= (legal p (go b)) (true (at a)))
(<= (legal p (go a)) (true (at b)))
(<= (legal p stop) (true (at ?x)))
(<= (next (at ?y)) (does p (go ?y)))
(<= (next stopped) (does p stop))
(<= terminal (true stopped))
(<= (goal p 100) (true stopped))
"""
"""A walk back and forth with no step count: no counter to find."""


@pytest.mark.parametrize("seed", range(16))
def test_the_walks_line_is_as_short_as_the_graphs(seed: int) -> None:
    rng = random.Random(seed)
    rules, edges = graph_puzzle(rng, rng.randint(4, 12))
    game = load_kif_text(rules, reasoner="joincode")
    walk = BreadthFirstLine(game, random.Random(0))
    value, line = walk.search(game.initial_state(), time.perf_counter() + 30)
    distance = graph_distance(edges, max(edges))
    if distance is None:
        assert value <= 0.0
        return
    assert (len(line), value) == (distance, pytest.approx((100 - 5 * distance) / 100))
    state = game.initial_state()
    for move in line:
        state = game.next_state(state, {game.roles[0]: move})
    assert game.is_terminal(state) and game.goals(state)[game.roles[0]] == 100 - 5 * distance


def test_the_step_counter_is_found_where_the_rules_count_steps() -> None:
    rules, _ = graph_puzzle(random.Random(3), 8)
    counted = load_kif_text(rules, reasoner="joincode")
    assert step_counters(counted, random.Random(0)) == {"step"}
    plain = load_kif_text(NO_COUNTER, reasoner="joincode")
    assert step_counters(plain, random.Random(0)) == frozenset()


def comb_rules(length: int, teeth: int) -> str:
    """A walk along a chain of ``length`` edges to its end, where each node also has
    ``teeth`` edges into a trap of as many nodes, each leading to all of them (too
    many lines to prove lost in a short search): 100 at the end, 0 at the step limit
    (twice the chain). A random walk reaches the end once in (teeth + 1) ** length."""
    rules = ["(role walker)", "(init (at n0))", "(init (step 0))"]
    rules += [f"(succ {k} {k + 1})" for k in range(2 * length)]
    rules += [f"(edge n{a} n{a + 1})" for a in range(length)]
    rules += [f"(edge n{a} trap{t})" for a in range(length) for t in range(teeth)]
    rules += [f"(edge trap{t} trap{u})" for t in range(teeth) for u in range(teeth)]
    rules += [
        "(<= (legal walker (go ?b)) (true (at ?a)) (edge ?a ?b))",
        "(<= (next (at ?b)) (does walker (go ?b)))",
        "(<= (next (step ?m)) (true (step ?k)) (succ ?k ?m))",
        f"(<= terminal (true (at n{length})))",
        f"(<= terminal (true (step {2 * length})))",
        f"(<= (goal walker 100) (true (at n{length})))",
        f"(<= (goal walker 0) (not (true (at n{length}))))",
    ]
    return "\n".join(rules)


def test_the_agent_on_the_join_code_keeps_the_walks_line() -> None:
    """With its Python tree, after one move's search the agent keeps the comb's chain,
    the walk's line to 100 (a random playout meets the end once in 4 ** 10), and plays
    its first move; on a propnet it has no walk (its compiled tree searches instead)."""
    game = load_kif_text(comb_rules(10, 3), reasoner="joincode")
    agent = MCTSAgent(Limit(time=0.05), seed=1)
    agent.start(game, "walker")
    move = agent.select(game, game.initial_state(), "walker", Limit())
    assert agent.best.value == 1.0
    assert len(agent.best.line) == 10 and str(move) == "(go n1)"
    compiled = load_kif_text(comb_rules(10, 3), reasoner="propnet")
    agent.start(compiled, "walker")
    assert agent._walk is None

"""The breadth-first search for a one-role game's shortest line to its top goal.

The oracle is independent of the search and of the propnet: a breadth-first walk of a
random graph in plain Python (the rules are written from the graph), or of a corpus
puzzle's states on the join-code reasoner. Every line the search returns is replayed
on the join-code reasoner and must end where its value says.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Hashable

import pytest
from reasoning.test_propnet import _games_dir

from ggpkit.agents.base import Limit
from ggpkit.games.gdl.game import GdlGame, load_kif_text
from ggpkit.match.arena import play_match
from ggpkit.search.propnet.tree import PropnetTreeSearch

STEPS = 12
"""The random puzzles' step limit."""


def graph_puzzle(rng: random.Random, nodes: int) -> tuple[str, dict[int, list[int]]]:
    """Rules of a walk on a random directed graph from node 0 to the last node: reaching
    it at step k scores 100 - 5k, the step limit without reaching it 0 (so the sooner the
    better, and the top goal the rules name, 95, is out of reach unless an edge leads
    there at once). Returns the rules and the graph."""
    edges = {a: sorted(rng.sample(range(nodes), rng.randint(1, 3))) for a in range(nodes)}
    target = nodes - 1
    rules = ["(role walker)", "(init (at n0))", "(init (step 0))"]
    rules += [f"(succ {k} {k + 1})" for k in range(STEPS)]
    rules += [f"(edge n{a} n{b})" for a, bs in edges.items() for b in bs]
    rules += [
        "(<= (legal walker (go ?b)) (true (at ?a)) (edge ?a ?b))",
        "(<= (next (at ?b)) (does walker (go ?b)))",
        "(<= (next (step ?m)) (true (step ?k)) (succ ?k ?m))",
        f"(<= terminal (true (at n{target})))",
        f"(<= terminal (true (step {STEPS})))",
        f"(<= (goal walker 0) (not (true (at n{target}))))",
    ]
    rules += [
        f"(<= (goal walker {100 - 5 * k}) (true (at n{target})) (true (step {k})))"
        for k in range(1, STEPS + 1)
    ]
    return "\n".join(rules), edges


def graph_distance(edges: dict[int, list[int]], target: int, start: int = 0) -> int | None:
    """Edges from ``start`` to ``target`` on a shortest walk (None: none within the limit)."""
    depth = {start: 0}
    todo = deque([start])
    while todo:
        a = todo.popleft()
        for b in edges[a]:
            if b not in depth:
                depth[b] = depth[a] + 1
                todo.append(b)
    found = depth.get(target)
    return found if found is not None and found <= STEPS else None


def search_of(game: GdlGame) -> PropnetTreeSearch:
    make = game.info.capabilities.tree_search
    assert make is not None
    tree: PropnetTreeSearch = make(None).tree  # type: ignore[attr-defined]
    return tree


def replay(game: GdlGame, twin: GdlGame, line: tuple[int, ...]) -> tuple[Hashable, float]:
    """The twin's state where ``line`` (the network's move indices) ends, and role 0's
    goal there (0..1; -1 where it is not terminal)."""
    net = game.reasoner.net  # type: ignore[attr-defined]
    start = int(net.move_start[0])
    state = twin.initial_state()
    for k in line:
        state = twin._next(state, [net.moves[0][k - start]])
    if not twin.is_terminal(state):
        return state, -1.0
    return state, twin.goals(state)[twin.roles[0]] / 100


@pytest.mark.parametrize("seed", range(24))
def test_the_line_is_as_short_as_a_walk_of_the_graph_says(seed: int) -> None:
    rng = random.Random(seed)
    rules, edges = graph_puzzle(rng, rng.randint(4, 12))
    game = load_kif_text(rules, reasoner="propnet")
    twin = load_kif_text(rules, reasoner="joincode")
    tree = search_of(game)
    found = tree.shortest(game.reasoner.bits(game.initial_state()), 5.0)  # type: ignore[attr-defined]
    distance = graph_distance(edges, max(edges))
    expected = 0.0 if distance is None else (100 - 5 * distance) / 100
    assert found.exact
    assert found.value == pytest.approx(expected)
    _, reached = replay(game, twin, found.line)
    assert reached == pytest.approx(expected)
    if distance is not None:
        assert len(found.line) == distance


def test_a_search_in_small_steps_ends_where_one_search_does() -> None:
    rng = random.Random(7)
    rules, _ = graph_puzzle(rng, 12)
    game = load_kif_text(rules, reasoner="propnet")
    bits = game.reasoner.bits(game.initial_state())  # type: ignore[attr-defined]
    whole = search_of(game).shortest(bits, 5.0)
    stepwise = search_of(game)
    calls = 0
    while not (found := stepwise.shortest(bits, 0.0, budget=2)).exact:
        calls += 1
        assert calls < 1000
    assert calls > 3
    assert (found.value, found.line) == (whole.value, whole.line)


def first_puzzle_with_a_long_line(least: int) -> tuple[str, dict[int, list[int]]]:
    """The first random graph puzzle whose shortest line has ``least`` moves or more."""
    for seed in range(1000):
        rng = random.Random(seed)
        rules, edges = graph_puzzle(rng, 10)
        distance = graph_distance(edges, max(edges))
        if distance is not None and distance >= least:
            return rules, edges
    raise AssertionError("no such puzzle in 1,000 seeds")


def test_the_search_follows_its_line_and_starts_again_off_it() -> None:
    rules, edges = first_puzzle_with_a_long_line(4)
    game = load_kif_text(rules, reasoner="propnet")
    tree = search_of(game)
    bits = game.reasoner.bits  # type: ignore[attr-defined]
    found = tree.shortest(bits(game.initial_state()), 5.0)
    net = game.reasoner.net  # type: ignore[attr-defined]
    start = int(net.move_start[0])
    on_line = game.next_state(game.initial_state(), {"walker": net.moves[0][found.line[0] - start]})
    followed = tree.shortest(bits(on_line), 0.0)
    assert (followed.line, followed.states) == (found.line[1:], found.states)
    target = max(edges)
    off = [
        move
        for move in game.legal_moves(game.initial_state(), "walker")
        if move != net.moves[0][found.line[0] - start]
    ]
    for move in off:
        there = game.next_state(game.initial_state(), {"walker": move})
        node = int(str(next(f for f in game.facts(there) if "at" in str(f)).args[0])[1:])
        distance = graph_distance(edges, target, node)
        again = tree.shortest(bits(there), 5.0)
        assert again.exact
        if distance is None or distance + 1 > STEPS:
            assert again.value == 0.0
        else:
            assert len(again.line) == distance
            assert again.value == pytest.approx((100 - 5 * (distance + 1)) / 100)


def test_pancakes_shortest_line_is_the_join_code_walks() -> None:
    """pancakes scores 100 only within seven flips; the oracle walks the join-code
    reasoner's states breadth-first to the first sorted stack."""
    path = _games_dir() / "pancakes.kif"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    text = path.read_text()
    game = load_kif_text(text, str(path), reasoner="propnet")
    twin = load_kif_text(text, str(path), reasoner="joincode")
    found = search_of(game).shortest(game.reasoner.bits(game.initial_state()), 30.0)  # type: ignore[attr-defined]
    role = twin.roles[0]
    depth = {twin.initial_state(): 0}
    todo = deque([twin.initial_state()])
    shortest = None
    while todo and shortest is None:
        state = todo.popleft()
        for move in twin.legal_moves(state, role):
            after = twin._next(state, [move])
            if after in depth:
                continue
            depth[after] = depth[state] + 1
            if twin.is_terminal(after) and twin.goals(after)[role] == 100:
                shortest = depth[after]
                break
            todo.append(after)
    assert found.exact and found.value == 1.0
    assert len(found.line) == shortest
    assert replay(game, twin, found.line)[1] == 1.0


def test_the_agent_with_the_search_reaches_the_graphs_best_goal() -> None:
    """With the depth-first solver off, the agent plays the breadth-first search's line
    once found (a misread line, played as the top goal's, would end elsewhere)."""
    rules, edges = first_puzzle_with_a_long_line(6)
    game = load_kif_text(rules, reasoner="propnet")
    distance = graph_distance(edges, max(edges))
    assert distance is not None
    record = play_match(game, ["mcts:time=0.2,dfs=0"], 0, 1, Limit())
    assert record.goals == {"walker": 100 - 5 * distance}

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

from ggpkit.agents.base import Limit
from ggpkit.games.gdl.game import GdlGame, load_kif_text
from ggpkit.gdl.terms import functor
from ggpkit.match.arena import play_match
from ggpkit.search.propnet.tree import PropnetTreeSearch
from ggpkit.search.puzzles.step_counter import step_counter
from search.test_puzzle_search import public_pair

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
    game, twin = public_pair("pancakes")
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


def counter_names(game: GdlGame) -> set[str] | None:
    flags = step_counter(game.reasoner, random.Random(0))  # type: ignore[arg-type]
    if flags is None:
        return None
    base = game.reasoner.net.base  # type: ignore[attr-defined]
    return {functor(fact) for fact, flag in zip(base, flags, strict=True) if flag}


def test_a_step_counter_is_found_where_the_rules_count_steps_only() -> None:
    rules, _ = first_puzzle_with_a_long_line(4)
    assert counter_names(load_kif_text(rules, reasoner="propnet")) == {"step"}
    assert counter_names(load_kif_text(RING, reasoner="propnet")) is None
    picks = """
    (role p) (init (count 0)) (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
    (<= (legal p up) (true (count ?n))) (<= (legal p stay) (true (count ?n)))
    (<= (next (count ?m)) (does p up) (true (count ?n)) (succ ?n ?m))
    (<= (next (count ?n)) (does p stay) (true (count ?n)))
    (<= (next (time ?m)) (true (time ?n)) (succ ?n ?m)) (init (time 0))
    (<= terminal (true (time 5)))
    (<= (goal p 100) (true (count 3))) (<= (goal p 0) (not (true (count 3))))
    """
    assert counter_names(load_kif_text(picks, reasoner="propnet")) == {"time"}


RING = """
(role walker)
(init (at c0)) (init (step 0))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(next0 c0 c1) (next0 c1 c2) (next0 c2 c0)
(<= (legal walker go) (true (at ?c)))
(<= (legal walker back) (true (at ?c)))
(<= (next (at ?d)) (does walker go) (true (at ?c)) (next0 ?c ?d))
(<= (next (at ?c)) (does walker back) (true (at ?d)) (next0 ?c ?d))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= (next (step 0)) (true (step 6)))
(<= terminal (true (at c2)) (true (step 3)))
(<= (goal walker 100) (true (at c2)))
(<= (goal walker 0) (not (true (at c2))))
"""
"""A walk round a ring of three cells whose step count wraps round: no counter (its
facts come back), and cells recur."""


def test_leaving_the_counter_out_keeps_the_shortest_lines_in_fewer_states() -> None:
    """On random graphs whose walks revisit nodes, the search keyed on the node alone
    finds a line as short as the one keyed on the whole state, in no more states (fewer
    on some graph); it proves nothing by seeing every state (where the target is out of
    reach, the step limit's terminals may all be positions met before, and dropped)."""
    fewer = 0
    for seed in range(16):
        rng = random.Random(100 + seed)
        rules, edges = graph_puzzle(rng, rng.randint(5, 12))
        game = load_kif_text(rules, reasoner="propnet")
        twin = load_kif_text(rules, reasoner="joincode")
        bits = game.reasoner.bits(game.initial_state())  # type: ignore[attr-defined]
        counter = step_counter(game.reasoner, random.Random(0))  # type: ignore[arg-type]
        keyed = search_of(game).shortest(bits, 5.0, counter=counter)
        whole = search_of(game).shortest(bits, 5.0)
        distance = graph_distance(edges, max(edges))
        if distance is None:  # its terminals come at the step limit only: positions
            assert keyed.value <= 0.0 and not keyed.exact  # seen before, dropped maybe
            continue
        assert keyed.value == whole.value == (100 - 5 * distance) / 100
        assert len(keyed.line) == len(whole.line) == distance
        assert replay(game, twin, keyed.line)[1] == keyed.value
        assert keyed.states <= whole.states
        fewer += keyed.states < whole.states
    assert fewer > 0


def test_hanoi_keyed_on_its_towers_alone() -> None:
    """hanoi (five discs, 100 for the tower moved in 31 moves): keyed on the towers, the
    search keeps each of the 243 towers once at most, and its line is the 31 moves."""
    game, twin = public_pair("hanoi")
    counter = step_counter(game.reasoner, random.Random(0))  # type: ignore[arg-type]
    assert counter is not None
    bits = game.reasoner.bits(game.initial_state())  # type: ignore[attr-defined]
    keyed = search_of(game).shortest(bits, 60.0, counter=counter)
    assert keyed.value == 1.0 and len(keyed.line) == 31
    assert keyed.states <= 243
    assert replay(game, twin, keyed.line)[1] == 1.0

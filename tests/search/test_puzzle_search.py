"""The one-role searches over a propnet: the depth-first solver and nested Monte Carlo.

The oracle is independent of both: a breadth-first walk of every state reachable from
a position, on the join-code reasoner (not the propnet), whose best terminal goal is
the position's value in a deterministic one-role game. Every line either search
returns is replayed through the game API, and must end where its value says.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import deque
from collections.abc import Hashable
from typing import Any

import numpy as np
import pytest
from reasoning.test_propnet import _games_dir

import ggpkit
from ggpkit.agents.base import Limit
from ggpkit.games.api import GameError
from ggpkit.games.gdl.game import GdlGame, load_kif_text
from ggpkit.match.arena import play_match
from ggpkit.reasoning.propnet.latches import goal_latches
from ggpkit.search.options import SearchOptions
from ggpkit.search.propnet.tree import PropnetTreeSearch
from ggpkit.search.puzzles.commuting import moves_commute
from ggpkit.search.puzzles.depth_first import DepthFirstSolver, best_line
from ggpkit.search.puzzles.goal_monotony import never_rises, rises_every_move

RING = """
(role walker)
(init (at c0)) (init (lamp off))
(succ c0 c1) (succ c1 c2) (succ c2 c3) (succ c3 c4) (succ c4 c0)
(<= (legal walker cw) (true (at ?c)))
(<= (legal walker ccw) (true (at ?c)))
(<= (legal walker toggle) (true (at c2)))
(<= (legal walker stop) (true (at c3)))
(<= (next (at ?d)) (does walker cw) (true (at ?c)) (succ ?c ?d))
(<= (next (at ?c)) (does walker ccw) (true (at ?d)) (succ ?c ?d))
(<= (next (at ?c)) (does walker toggle) (true (at ?c)))
(<= (next (at ?c)) (does walker stop) (true (at ?c)))
(<= (next (lamp on)) (does walker toggle) (true (lamp off)))
(<= (next (lamp off)) (does walker toggle) (true (lamp on)))
(<= (next (lamp ?x)) (true (lamp ?x)) (not (does walker toggle)))
(<= (next stopped) (does walker stop))
(<= terminal (true stopped))
(<= (goal walker 100) (true (lamp on)))
(<= (goal walker 30) (true (lamp off)))
"""
"""A walk round a ring of five cells with no step count: every state recurs. The best
line toggles the lamp at c2 and stops at c3 (100); stopping with the lamp off is 30."""

BITS = """
(role chooser)
(init (step 0))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(<= (legal chooser (pick a)) (true (step ?n)))
(<= (legal chooser (pick b)) (true (step ?n)))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= (next (had ?n ?x)) (does chooser (pick ?x)) (true (step ?n)))
(<= (next (had ?n ?x)) (true (had ?n ?x)))
(<= terminal (true (step 6)))
(<= (goal chooser 100) (true (had 0 a)) (true (had 1 b)) (true (had 2 b))
    (true (had 3 a)) (true (had 4 a)) (true (had 5 b)))
(<= (goal chooser 0) (not (line_right)))
(<= (line_right) (true (had 0 a)) (true (had 1 b)) (true (had 2 b))
    (true (had 3 a)) (true (had 4 a)) (true (had 5 b)))
"""
"""Six choices of a or b: one line of 64 (a, b, b, a, a, b) scores 100, the rest 0."""

SMALL_PUZZLES = ["hanoi", "buttons", "coins", "blocks", "lightsOn"]
"""Corpus puzzles whose late positions the oracle can walk whole."""

ORACLE_STATES = 2000


def search_of(game: GdlGame) -> PropnetTreeSearch:
    make = game.info.capabilities.tree_search
    assert make is not None
    tree: PropnetTreeSearch = make(None).tree  # type: ignore[attr-defined]
    return tree


def oracle_value(game: GdlGame, facts: frozenset[Any]) -> float | None:
    """The best terminal goal (0..1) reachable from the state of ``facts``, walking the
    join-code twin; None if more than :data:`ORACLE_STATES` states are reachable."""
    state = game.state_from_facts(facts)
    role = game.roles[0]
    seen: set[Hashable] = {state}
    todo = deque([state])
    best = -1.0
    while todo:
        s = todo.popleft()
        if game.is_terminal(s):
            best = max(best, game.goals(s)[role] / 100)
            continue
        for move in game.legal_moves(s, role):
            t = game._next(s, [move])
            if t not in seen:
                if len(seen) >= ORACLE_STATES:
                    return None
                seen.add(t)
                todo.append(t)
    return best


def replay(game: GdlGame, state: Hashable, line: tuple[int, ...], seed: int = 0) -> float:
    """Role 0's goal (0..1) where ``line`` (network move indices) ends, after random
    moves to the end where it stops short (a state its latches decide); -1 if that
    does not end within 10,000 moves."""
    net = game.reasoner.net  # type: ignore[attr-defined]
    start = int(net.move_start[0])
    for k in line:
        state = game._next(state, [net.moves[0][k - start]])
    rng = random.Random(seed)
    for _ in range(10_000):
        if game.is_terminal(state):
            return game.goals(state)[game.roles[0]] / 100
        state = game._next(state, [rng.choice(game.legal_moves(state, game.roles[0]))])
    return -1.0


def public_pair(name: str) -> tuple[GdlGame, GdlGame]:
    path = _games_dir() / f"{name}.kif"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    text = path.read_text()
    return (
        load_kif_text(text, str(path), reasoner="propnet"),
        load_kif_text(text, str(path), reasoner="joincode"),
    )


def late_states(game: GdlGame, twin: GdlGame, rng: random.Random, n: int) -> list[Hashable]:
    """Up to ``n`` states of random lines whose reachable states the oracle can walk:
    of each line the earliest of its last 9, 5, 3 or 2 states that it can."""
    found: list[Hashable] = []
    for _ in range(4 * n):
        line = [game.initial_state()]
        while not game.is_terminal(line[-1]):
            moves = game.legal_moves(line[-1], game.roles[0])
            line.append(game._next(line[-1], [rng.choice(moves)]))
        for back in (9, 5, 3, 2):
            state = line[max(0, len(line) - back)]
            if not game.is_terminal(state) and oracle_value(twin, game.facts(state)) is not None:
                found.append(state)
                break
        if len(found) >= n:
            break
    return found


@pytest.mark.parametrize("ordered", [False, True])
@pytest.mark.parametrize("name", SMALL_PUZZLES)
def test_solver_values_match_a_walk_of_every_reachable_state(name: str, ordered: bool) -> None:
    game, twin = public_pair(name)
    search = search_of(game)
    checked = 0
    for state in late_states(game, twin, random.Random(name), 2):
        bits = game.reasoner.bits(state)  # type: ignore[attr-defined]
        solved = search.solve(bits, 30.0, ordered=ordered)
        expected = oracle_value(twin, game.facts(state))
        assert solved.exact
        assert solved.value == pytest.approx(expected)
        assert replay(game, state, solved.line) == pytest.approx(solved.value)
        checked += 1
    assert checked > 0


def test_solver_on_a_game_whose_states_recur() -> None:
    """Cycles: the line is real and the best one here (toggle at c2, stop at c3), and
    the search does not claim to be exact once it has met a state on its own path."""
    game = load_kif_text(RING, reasoner="propnet")
    search = search_of(game)
    start = game.initial_state()
    solved = search.solve(game.reasoner.bits(start), 10.0)
    assert solved.value == 1.0
    assert replay(game, start, solved.line) == 1.0
    assert not solved.exact


def test_nonogram_is_solved_with_latches() -> None:
    """nonogram_5x5_1 (one 100 among the grids the marks can make) is solved, its lines
    cut short where latched marks already settle the goal; the line ends at 100
    whatever is played after it."""
    game, _ = public_pair("nonogram_5x5_1")
    search = search_of(game)
    start = game.initial_state()
    solved = search.solve(game.reasoner.bits(start), 120.0)
    assert solved.exact and solved.value == 1.0
    assert all(replay(game, start, solved.line, seed) == 1.0 for seed in range(5))


def test_hanoi_is_solved_outright() -> None:
    game, _ = public_pair("hanoi")
    search = search_of(game)
    start = game.initial_state()
    solved = search.solve(game.reasoner.bits(start), 60.0)
    assert solved.exact and solved.value == 1.0
    assert len(solved.line) == 31
    assert replay(game, start, solved.line) == 1.0


def test_a_search_in_small_steps_ends_where_one_search_does() -> None:
    """The table keeps what each call finished: calls of a few states each, resumed
    until solved, value every state as one unbounded call does."""
    game, _ = public_pair("hanoi")
    whole, steps = search_of(game), search_of(game)
    bits = game.reasoner.bits(game.initial_state())
    one = whole.solve(bits, 60.0)
    steps._prepare(bits)
    solver = DepthFirstSolver(steps._arrays, len(game.reasoner.net.base), 99, 1.0, 1 << 24)
    calls = 0
    while True:
        calls += 1
        result = solver.search(bits, 0.0, steps._work, steps._val, budget=7)
        if result.exact:
            break
    assert calls > 10
    assert result.value == one.value and result.line == one.line


def test_a_full_table_gives_up_with_a_real_line_or_none() -> None:
    game, _ = public_pair("hanoi")
    search = search_of(game)
    search._prepare(game.reasoner.bits(game.initial_state()))
    solver = DepthFirstSolver(search._arrays, len(game.reasoner.net.base), 99, 1.0, 1)
    start = game.initial_state()
    result = solver.search(game.reasoner.bits(start), 10.0, search._work, search._val)
    assert not result.exact
    assert result.line == () or replay(game, start, result.line) == result.value


@pytest.mark.parametrize(
    ("name", "ordered"),
    [
        *(
            (name, ordered)
            for name in ("hanoi_6_disks", "pancakes6", "queens")
            for ordered in (0, 1)
        ),
        ("knightsTour", False),  # (ordered, its first line down is a whole tour)
    ],
)
def test_an_unfinished_search_offers_the_best_line_it_has_seen(name: str, ordered: bool) -> None:
    """Stopped early, the solver has no value for the root, but it has met terminal
    (or valued) states below it: its line goes down to the best of them and ends where
    its value says. Searching on never makes that value worse."""
    game, _ = public_pair(name)
    search = search_of(game)
    start = game.initial_state()
    bits = game.reasoner.bits(start)  # type: ignore[attr-defined]
    search._prepare(bits)
    solver = DepthFirstSolver(search._arrays, len(game.reasoner.net.base), 999, 1.0, 1 << 26)
    values = []
    for _ in range(6):
        found = solver.search(bits, 0.0, search._work, search._val, budget=100, ordered=ordered)
        if found.exact:
            break
        assert found.line == () or replay(game, start, found.line) == pytest.approx(found.value)
        values.append(found.value)
    assert values == sorted(values)
    assert values and values[0] >= 0  # the first 100 states reach an end


@pytest.mark.parametrize("rules", [BITS, RING])
def test_nested_search_finds_the_best_line_of_a_small_puzzle(rules: str) -> None:
    game = load_kif_text(rules, reasoner="propnet")
    search = search_of(game)
    start = game.initial_state()
    search.nested(game.reasoner.bits(start), 0.0, 1)  # kernels compiled (a cold cache)
    found = search.nested(game.reasoner.bits(start), 2.0, 3)
    assert found.value == 1.0
    assert replay(game, start, found.line) == 1.0


@pytest.mark.parametrize("name", ["hanoi", "knightsTour", "pancakes6"])
def test_nested_lines_are_real(name: str) -> None:
    game, _ = public_pair(name)
    search = search_of(game)
    rng = np.random.default_rng(0)
    state = game.initial_state()
    for _ in range(3):
        found = search.nested(game.reasoner.bits(state), 0.3, int(rng.integers(2**62)))
        assert found.playouts > 0 and found.level >= 1
        assert replay(game, state, found.line) == pytest.approx(found.value)


def test_the_agent_plays_the_solvers_line() -> None:
    """hanoi scores 100 only by its one shortest line, which the solver finds at once."""
    path = _games_dir() / "hanoi.kif"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    game = ggpkit.load(str(path))
    record = play_match(game, ["mcts:time=2,dfs=0.5"], 0, 1, Limit())
    assert record.goals == {"player": 100}


def test_the_agent_plays_the_nested_searchs_line() -> None:
    """Without the tree's own search (``nested=1``), the line played is the nested
    search's: the one line of 64 worth 100."""
    game = load_kif_text(BITS, reasoner="propnet")
    record = play_match(game, ["mcts:time=0.3,nested=1"], 0, 1, Limit())
    assert record.goals == {"chooser": 100}


def test_latches_together_value_states_soundly() -> None:
    """nonogram_10x10_1's latches settle its goal only together (the tree's gate leaves
    them out; the solver takes them all): from every state the solver valued, the line
    it gives ends at that value (played on at random where latches settled it), and
    random lines end no higher."""
    game, _ = public_pair("nonogram_10x10_1")
    net = game.reasoner.net  # type: ignore[attr-defined]
    assert goal_latches(net) is None and goal_latches(net, alone=False) is not None
    search = search_of(game)
    start = game.initial_state()
    for _ in range(10):  # a second at a time: on a cold cache the first compiles the solver
        search.solve(game.reasoner.bits(start), 1.0)
        solver = search._solver
        assert solver is not None
        valued = np.flatnonzero(solver._used & (solver._values >= 0))
        if solver._sizes[4] > 0 and len(valued) >= 1000:
            break
    assert solver._sizes[4] > 0  # some states settled by latches
    rng = random.Random(5)
    checked = 0
    for slot in rng.sample(list(valued), min(1000, len(valued))):  # fewer on a busy machine
        state = bytes(np.packbits(solver._rows[slot], bitorder="little"))
        if game.is_terminal(state):
            continue
        if checked >= 40:
            break
        value = solver._values[slot]
        line = np.zeros(200, dtype=np.int64)
        length = best_line(
            search._arrays, search._solver_work, search._val, solver._rows[slot], solver._keys,
            solver._rows, solver._used, solver._values, solver._done, solver._moves,
            solver._tmp, line,
        )  # fmt: skip
        found = tuple(int(k) for k in line[:length])
        for seed in range(3):
            assert replay(game, state, found, seed) == value
            assert replay(game, state, (), seed) <= value
        checked += 1
    assert checked > 10


def goal_or_none(game: GdlGame, state: Hashable) -> int:
    """Role 0's goal in ``state``, or -1 where the rules give it no single goal there."""
    try:
        return game.goals(state)[game.roles[0]]
    except GameError:
        return -1


def onward_moves(game: GdlGame, state: Hashable) -> float:
    """Role 0's legal moves in ``state`` (a terminal state: more than any other has)."""
    return math.inf if game.is_terminal(state) else len(game.legal_moves(state, game.roles[0]))


def greedy_line(game: GdlGame, state: Hashable) -> tuple[list[int], float]:
    """The line that always takes the move whose next state gives role 0 the highest
    goal (no single goal counts as -1), of those the one whose next state has the
    fewest legal moves (Warnsdorff; a terminal one last), then the first in the
    network's move order, on the game API; its network move indices and final goal
    (0..1)."""
    net = game.reasoner.net  # type: ignore[attr-defined]
    start = int(net.move_start[0])
    index = {move: start + i for i, move in enumerate(net.moves[0])}
    role = game.roles[0]
    line: list[int] = []
    while not game.is_terminal(state):
        moves = sorted(game.legal_moves(state, role), key=index.__getitem__)
        after = [game._next(state, [m]) for m in moves]
        scored = [(goal_or_none(game, a), -onward_moves(game, a)) for a in after]
        best = max(scored)
        move = moves[scored.index(best)]
        line.append(index[move])
        state = game._next(state, [move])
    return line, game.goals(state)[role] / 100


@pytest.mark.parametrize("name", ["knightsTour", "queens", "pancakes6"])
def test_ordered_moves_make_the_first_line_down_the_greedy_one(name: str) -> None:
    """With moves ordered by the goal they lead to, then fewest onward moves first, the
    solver's first line down, all it sees in as many new states as that line is long,
    is the greedy line walked on the game API."""
    game, _ = public_pair(name)
    search = search_of(game)
    start = game.initial_state()
    bits = game.reasoner.bits(start)  # type: ignore[attr-defined]
    search._prepare(bits)
    expected, value = greedy_line(game, start)
    solver = DepthFirstSolver(search._arrays, len(game.reasoner.net.base), 999, 1.0, 1 << 24)
    found = solver.search(bits, 0.0, search._work, search._val, budget=len(expected), ordered=True)
    assert found.exact is (value == 1.0)  # (the search stops at a line to the top)
    assert list(found.line) == expected and found.value == pytest.approx(value)


def test_a_goal_that_never_rises_is_found_only_where_random_matches_show_it() -> None:
    """queens06ug falls to 0 at the first attack and stays; BITS rises from 0 to 100 on
    its one line (never seen rising at random: it never moves, which says nothing);
    futoshiki4 rises from 0 to 100 when its grid is filled."""
    rng = random.Random(1)
    queens, _ = public_pair("queens06ug")
    assert never_rises(queens.reasoner, rng)  # type: ignore[arg-type]
    bits = load_kif_text(BITS, reasoner="propnet")
    assert not never_rises(bits.reasoner, rng)  # type: ignore[arg-type]
    futoshiki, _ = public_pair("futoshiki4")
    assert not never_rises(futoshiki.reasoner, rng)  # type: ignore[arg-type]


def test_a_goal_that_never_rises_values_states_at_the_floor_as_the_oracle_does() -> None:
    """With the floor, a state whose queens already attack is valued 0 at once: from
    late states of queens06ug the values still match a walk of every reachable state,
    and from the start the search, hopeless without it (600,000 states unsolved), ends
    at a line to 100."""
    game, twin = public_pair("queens06ug")
    search = search_of(game)
    checked = 0
    for state in late_states(game, twin, random.Random(6), 4):
        solved = search.solve(game.reasoner.bits(state), 30.0, floor=0)  # type: ignore[attr-defined]
        assert solved.exact
        assert solved.value == pytest.approx(oracle_value(twin, game.facts(state)))
        assert replay(game, state, solved.line) == pytest.approx(solved.value)
        checked += 1
    assert checked > 0
    start = game.initial_state()
    solved = search_of(game).solve(game.reasoner.bits(start), 60.0, floor=0)  # type: ignore[attr-defined]
    assert solved.exact and solved.value == 1.0
    assert replay(game, start, solved.line) == 1.0


def picking_rules(bad: dict[str, list[tuple[int, int]]], items: int, picks: int) -> str:
    """Pick ``picks`` of ``items`` items: 100 where no two picked clash, 60 where only
    ``B`` clashes are among them, 0 where an ``A`` clash is. Picking more never helps:
    the goal never rises."""
    rules = ["(role p)", "(init (step 0))"]
    rules += [f"(succ {k} {k + 1})" for k in range(picks)]
    rules += [f"(item {i})" for i in range(items)]
    rules += [f"(bad{kind} {i} {j})" for kind, pairs in bad.items() for i, j in pairs]
    rules += [
        "(<= (legal p (pick ?i)) (item ?i) (not (true (has ?i))))",
        "(<= (next (has ?i)) (does p (pick ?i)))",
        "(<= (next (has ?i)) (true (has ?i)))",
        "(<= (next (step ?m)) (true (step ?k)) (succ ?k ?m))",
        f"(<= terminal (true (step {picks})))",
        "(<= clashA (true (has ?i)) (true (has ?j)) (badA ?i ?j))",
        "(<= clashB (true (has ?i)) (true (has ?j)) (badB ?i ?j))",
        "(<= (goal p 100) (not clashA) (not clashB))",
        "(<= (goal p 60) (not clashA) clashB)",
        "(<= (goal p 0) clashA)",
    ]
    return "\n".join(rules)


def random_picking(rng: random.Random, items: int, a: int, b: int) -> tuple[GdlGame, float]:
    """A picking puzzle (four of ``items``) with ``a`` random A clashes and ``b`` B
    clashes, and its best pick's value (0..1), every pick walked in plain Python."""
    pairs = [(i, j) for i in range(items) for j in range(i + 1, items)]
    rng.shuffle(pairs)
    bad = {"A": pairs[:a], "B": pairs[a : a + b]}
    clash = {kind: {frozenset(p) for p in ps} for kind, ps in bad.items()}

    def points(chosen: tuple[int, ...]) -> int:
        met = {k for k, ps in clash.items() for p in ps if p <= set(chosen)}
        return 0 if "A" in met else 60 if "B" in met else 100

    best = max(points(c) for c in itertools.combinations(range(items), 4)) / 100
    return load_kif_text(picking_rules(bad, items, 4), reasoner="propnet"), best


def test_a_goal_that_never_rises_cuts_states_that_cannot_beat_a_line_found() -> None:
    """Branch and bound on a goal that never rises: the value is the best pick's (every
    pick of the items walked in plain Python), in no more states than without the cut,
    and in fewer on some instance."""
    rng = random.Random(3)
    fewer = 0
    for _ in range(12):
        game, best = random_picking(rng, 8, 5, 11)
        tree = game.info.capabilities.tree_search(None)  # type: ignore[misc]
        floor = tree._floor()
        assert floor == 0
        bits = game.reasoner.bits(game.initial_state())  # type: ignore[attr-defined]
        cut = tree.tree.solve(bits, 30.0, floor=floor)
        plain = search_of(game).solve(bits, 30.0)
        assert cut.value == best == plain.value
        assert replay(game, game.initial_state(), cut.line) == best
        assert cut.states <= plain.states
        fewer += cut.states < plain.states
    assert fewer > 0


def test_moves_commute_where_picks_do_and_not_where_a_walk_goes_on() -> None:
    picks = load_kif_text(picking_rules({"A": [(0, 1)], "B": [(2, 3)]}, 8, 4), reasoner="propnet")
    assert moves_commute(picks.reasoner, random.Random(0))  # type: ignore[arg-type]
    ring = load_kif_text(RING, reasoner="propnet")
    assert not moves_commute(ring.reasoner, random.Random(0))  # type: ignore[arg-type]
    bits = load_kif_text(BITS, reasoner="propnet")  # (pick a) then (pick b) is not (b, a)
    assert not moves_commute(bits.reasoner, random.Random(0))  # type: ignore[arg-type]


def test_moves_tried_in_one_order_value_picks_as_every_pick_does() -> None:
    """Where moves commute, each set of picks tried in one order: the best pick's value
    (every pick walked in plain Python), a line that replays to it, and fewer states
    than the search over every order."""
    rng = random.Random(5)
    for _ in range(8):
        game, best = random_picking(rng, 9, 6, 12)
        bits = game.reasoner.bits(game.initial_state())  # type: ignore[attr-defined]
        in_order = search_of(game).solve(bits, 30.0, in_order=True)
        every = search_of(game).solve(bits, 30.0)
        assert in_order.value == best == every.value
        assert replay(game, game.initial_state(), in_order.line) == best
        assert in_order.states < every.states


@pytest.mark.parametrize(
    ("name", "ordered"),
    [("knightsTour", True), ("knightsTourLarge", True), ("queens", False), ("hanoi", False)],
)
def test_moves_are_ordered_by_default_where_the_goal_counts_the_moves(
    name: str, ordered: bool
) -> None:
    """The tour's goal counts the squares toured (ordered: the longest line wins); the
    queens' commute, hanoi's goal does not rise at each move (the rules' order). Given
    as an option, the order is what was asked for."""
    game, _ = public_pair(name)
    make = game.info.capabilities.tree_search
    assert make is not None
    tree = make(None)
    assert tree._shape(SearchOptions()).ordered is ordered  # type: ignore[attr-defined]
    assert tree._shape(SearchOptions(ordered=False)).ordered is False  # type: ignore[attr-defined]
    assert tree._shape(SearchOptions(ordered=True)).ordered is True  # type: ignore[attr-defined]


def counting_rules(stall_every: int) -> str:
    """Ten steps of a choice of two moves; the goal rises by one at each step but every
    ``stall_every``-th (0: never stalls)."""
    goal, rules = 0, ["(role walker)", "(init (step 0))"]
    rules += [f"(succ {k} {k + 1})" for k in range(10)]
    rules += [f"(<= (legal walker {m}) (true (step ?k)))" for m in ("a", "b")]
    rules += [
        "(<= (next (step ?m)) (true (step ?k)) (succ ?k ?m))",
        "(<= terminal (true (step 10)))",
    ]
    for k in range(11):
        if k > 0 and not (stall_every and k % stall_every == 0):
            goal += 1
        rules.append(f"(<= (goal walker {goal}) (true (step {k})))")
    return "\n".join(rules)


@pytest.mark.parametrize(("stall_every", "counts"), [(0, True), (20, True), (3, False), (2, False)])
def test_a_goal_counts_the_moves_where_it_rises_at_nearly_every_one(
    stall_every: int, counts: bool
) -> None:
    """At most a tenth of the moves may leave the goal where it was (one in ten here)."""
    game = load_kif_text(counting_rules(stall_every), reasoner="propnet")
    assert rises_every_move(game.reasoner, random.Random(0)) is counts  # type: ignore[arg-type]

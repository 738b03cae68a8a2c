"""The propnet reasoner against games with known answers, and against the reference prover."""

from __future__ import annotations

import itertools
import os
import random
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ggpkit.gdl.kif import parse_rules, parse_term
from ggpkit.gdl.terms import Term
from ggpkit.reasoning.base import ReasonerError
from ggpkit.reasoning.propnet.reasoner import PropnetReasoner


def _games_dir() -> Path:
    env = os.environ.get("GGPKIT_GAMES_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[2] / ".." / "shared" / "ggp-games"


def _corpus(name: str) -> PropnetReasoner:
    path = _games_dir() / f"{name}.kif"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    return PropnetReasoner.from_rules(parse_rules(path.read_text(), str(path)))


def _t(text: str) -> Term:
    return parse_term(text)


def _texts(terms: list[Term]) -> list[str]:
    return [str(t) for t in terms]


# A one-player graph game: recursion (path), negation, or, distinct, function terms,
# and symbols with odd characters. Edges can be added and cut, so the recursive
# 'path' relation must be recomputed from scratch in every state.
GRAPH = """
(role Builder)
(node a) (node B) (node c-1) (node d)
(succ (t 0) (t 1)) (succ (t 1) (t 2)) (succ (t 2) (t 3))
(init (edge a B))
(init (edge B c-1))
(init (clock (t 0)))
(<= (path ?x ?y) (true (edge ?x ?y)))
(<= (path ?x ?z) (true (edge ?x ?y)) (path ?y ?z))
(<= (legal Builder (link ?x ?y))
    (node ?x) (node ?y) (distinct ?x ?y) (not (true (edge ?x ?y))) (not (path ?y ?x)))
(<= (legal Builder (cut ?x ?y)) (true (edge ?x ?y)))
(<= (legal Builder wait) (or (true (clock (t 0))) (true (clock (t 1)))))
(<= (next (edge ?x ?y)) (does Builder (link ?x ?y)))
(<= (next (edge ?x ?y)) (true (edge ?x ?y)) (not (does Builder (cut ?x ?y))))
(<= (next (clock ?n)) (true (clock ?m)) (succ ?m ?n))
(<= terminal (path a d))
(<= terminal (true (clock (t 3))))
(<= (goal Builder 100) (path a d))
(<= (goal Builder 0) (not (path a d)))
"""


@pytest.fixture(scope="module")
def graph() -> PropnetReasoner:
    return PropnetReasoner.from_rules(parse_rules(GRAPH))


def test_initial_state_and_legal_moves(graph: PropnetReasoner) -> None:
    s = graph.initial()
    assert graph.roles == ("Builder",)
    assert sorted(map(str, graph.facts(s))) == ["(clock (t 0))", "(edge B c-1)", "(edge a B)"]
    # Links: 12 ordered pairs, minus the 2 edges, minus the 3 pairs closing a cycle.
    assert _texts(graph.legal(s, 0)) == sorted(
        [
            "(cut B c-1)", "(cut a B)", "(link B d)", "(link a c-1)", "(link a d)",
            "(link c-1 d)", "(link d B)", "(link d a)", "(link d c-1)", "wait",
        ]
    )  # fmt: skip
    assert not graph.terminal(s)
    assert graph.goal(s, 0) == 0


def test_recursion_is_recomputed_after_a_cut(graph: PropnetReasoner) -> None:
    assert len(graph.net.scc_start) > 1  # 'path' is a cyclic component of the network
    s = graph.next(graph.initial(), [_t("(cut B c-1)")])
    assert sorted(map(str, graph.facts(s))) == ["(clock (t 1))", "(edge a B)"]
    legal = set(_texts(graph.legal(s, 0)))
    assert "(link c-1 a)" in legal  # no path a -> c-1 any more
    assert "(link B a)" not in legal
    s = graph.next(s, [_t("(link B d)")])
    assert graph.terminal(s)
    assert graph.goal(s, 0) == 100


def test_clock_ends_the_game_and_or_guards_wait(graph: PropnetReasoner) -> None:
    s = graph.initial()
    s = graph.next(s, [_t("wait")])
    s = graph.next(s, [_t("wait")])
    assert "wait" not in _texts(graph.legal(s, 0))
    s = graph.next(s, [_t("(link d a)")])
    assert graph.terminal(s)
    assert graph.goal(s, 0) == 0


def test_states_are_values(graph: PropnetReasoner) -> None:
    s1 = graph.next(graph.initial(), [_t("wait")])
    s2 = graph.next(graph.initial(), [_t("wait")])
    assert s1 == s2 and hash(s1) == hash(s2)
    assert graph.state_from_facts(graph.facts(s1)) == s1


def test_unknown_move_and_missing_goal_are_reasoner_errors() -> None:
    r = PropnetReasoner.from_rules(
        parse_rules(
            "(role p) (init (c 0)) (<= (legal p go) (true (c 0))) (<= (next (c 1)) (does p go))"
            "(<= terminal (true (c 1))) (<= (goal p 50) (true (c 0)))"
        )
    )
    with pytest.raises(ReasonerError, match="never a legal move"):
        r.next(r.initial(), [_t("stop")])
    end = r.next(r.initial(), [_t("go")])
    assert r.terminal(end)
    with pytest.raises(ReasonerError, match="0 goal values"):
        r.goal(end, 0)
    with pytest.raises(ReasonerError, match="exactly one goal"):
        r.playout_stats(r.initial(), 3, seed=1)


def test_playouts_of_a_fixed_length_game(graph: PropnetReasoner) -> None:
    # Each playout ends at clock 3 or earlier when a path to d appears; goals are 0 or 100.
    totals = graph.playout_stats(graph.initial(), 200, seed=7)
    assert totals.playouts == 200
    assert 200 <= totals.moves <= 600
    assert totals.goal_sums[0] % 100 == 0
    assert graph.playout_stats(graph.initial(), 200, seed=7) == totals


def _perft(r: PropnetReasoner, s: bytes, depth: int) -> int:
    if depth == 0:
        return 1
    if r.terminal(s):
        return 0
    legal = [r.legal(s, i) for i in range(len(r.roles))]
    return sum(_perft(r, r.next(s, list(j)), depth - 1) for j in itertools.product(*legal))


def test_tictactoe_perft() -> None:
    r = _corpus("ticTacToe")
    assert [_perft(r, r.initial(), d) for d in range(1, 6)] == [9, 72, 504, 3024, 15120]


def test_connect_four_perft() -> None:
    r = _corpus("connectFour")
    # This version has 8 columns of 6; in four plies no line of four or full column: 8 ** depth.
    assert [_perft(r, r.initial(), d) for d in range(1, 5)] == [8, 64, 512, 4096]


def test_tictactoe_playouts_end_with_a_proper_result() -> None:
    r = _corpus("ticTacToe")
    totals = r.playout_stats(r.initial(), 500, seed=3)
    assert totals.playouts == 500
    assert 5 * 500 <= totals.moves <= 9 * 500
    assert sum(totals.goal_sums) == 100 * 500  # every ending splits 100 points


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_tictactoe_random_games_match_a_direct_model(seed: int) -> None:
    """Legal moves, terminal and goals against a tiny independent tic-tac-toe model."""
    r = _corpus("ticTacToe")
    rng = random.Random(seed)
    board: dict[tuple[int, int], str] = {(x, y): "b" for x in (1, 2, 3) for y in (1, 2, 3)}
    s = r.initial()
    turn = 0
    while True:
        lines = [[(x, y) for y in (1, 2, 3)] for x in (1, 2, 3)]
        lines += [[(x, y) for x in (1, 2, 3)] for y in (1, 2, 3)]
        lines += [[(1, 1), (2, 2), (3, 3)], [(1, 3), (2, 2), (3, 1)]]
        won = {m for m in "xo" for ln in lines if all(board[c] == m for c in ln)}
        full = "b" not in board.values()
        assert r.terminal(s) == bool(won or full)
        if won or full:
            expect = 100 if "x" in won else 0 if "o" in won else 50
            assert (r.goal(s, 0), r.goal(s, 1)) == (expect, 100 - expect)
            return
        empty = sorted(f"(mark {x} {y})" for (x, y), v in board.items() if v == "b")
        mover_moves = _texts(r.legal(s, turn))
        assert mover_moves == empty
        assert _texts(r.legal(s, 1 - turn)) == ["noop"]
        move = rng.choice(mover_moves)
        x, y = int(move[6]), int(move[8])
        board[(x, y)] = "xo"[turn]
        joint = [_t(move), _t("noop")] if turn == 0 else [_t("noop"), _t(move)]
        s = r.next(s, joint)
        turn = 1 - turn


# ---- the playout kernels against a plain replay through the reasoner API ------------------

_M64 = (1 << 64) - 1


def _stream(seed: int, j: int) -> int:
    """Python twin of ``propnet_kernels.seed_stream``."""
    z = (seed + (j + 1) * 0x9E3779B97F4A7C15) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    z ^= z >> 31
    return z or 88172645463325252


def _rand_below(rng: int, n: int) -> tuple[int, int]:
    """Python twin of ``propnet_kernels.rand_below``."""
    rng ^= rng >> 12
    rng ^= (rng << 25) & _M64
    rng ^= rng >> 27
    return rng, (((rng * 2685821657736338717) & _M64) >> 33) % n


def _replay(
    r: PropnetReasoner, start: bytes, count: int, seed: int, first: int = 0
) -> tuple[int, list[int]]:
    """Playouts ``first`` .. ``first + count - 1`` of a batch, replayed through the API."""
    moves, sums = 0, [0] * len(r.roles)
    for j in range(first, first + count):
        rng, s = _stream(seed, j), start
        while not r.terminal(s):
            joint = []
            for i in range(len(r.roles)):
                legal = r.legal(s, i)
                rng, k = _rand_below(rng, len(legal))
                joint.append(legal[k])
            s = r.next(s, joint)
            moves += 1
        for i in range(len(r.roles)):
            sums[i] += r.goal(s, i)
    return moves, sums


def _both_kernels(
    r: PropnetReasoner, start: bytes, count: int, seed: int, monkeypatch: pytest.MonkeyPatch
) -> list[tuple[int, list[int]]]:
    from ggpkit.reasoning.propnet import reasoner as fast

    out = []
    for threshold in (10**9, 1):  # scalar differential kernel, then the 64-lane kernel
        monkeypatch.setattr(fast, "LANE_THRESHOLD", threshold)
        t = r.playout_stats(start, count, seed)
        assert t.playouts == count
        out.append((t.moves, list(t.goal_sums)))
    return out


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**64 - 1), count=st.integers(1, 70))
@example(seed=2**63, count=1)
@example(seed=2**64 - 1, count=65)
def test_kernels_replay_exactly_on_the_recursive_graph_game(seed: int, count: int) -> None:
    r = PropnetReasoner.from_rules(parse_rules(GRAPH))
    expected = _replay(r, r.initial(), count, seed)
    with pytest.MonkeyPatch.context() as mp:
        assert _both_kernels(r, r.initial(), count, seed, mp) == [expected, expected]


# Reachability through unblocked nodes: the recursive gates read a negated base fact
# themselves, so a cyclic component has a negated input from outside it, and legality
# depends on it (goals alone would not be propagated differentially).
BLOCKED_PATHS = """
(role r)
(node a) (node b) (node c) (node d)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(init (edge a b)) (init (edge b c)) (init (edge c a)) (init (edge c d)) (init (edge d b))
(init (clock 0))
(<= (path ?x ?y) (true (edge ?x ?y)))
(<= (path ?x ?z) (path ?x ?y) (true (edge ?y ?z)) (not (true (blocked ?y))))
(<= (legal r (block ?x)) (node ?x) (not (true (blocked ?x))) (path a ?x))
(<= (legal r (free ?x)) (true (blocked ?x)))
(legal r wait)
(<= (next (blocked ?x)) (does r (block ?x)))
(<= (next (blocked ?x)) (true (blocked ?x)) (not (does r (free ?x))))
(<= (next (edge ?x ?y)) (true (edge ?x ?y)))
(<= (next (clock ?n)) (true (clock ?m)) (succ ?m ?n))
(<= terminal (true (clock 6)))
(<= (goal r 100) (path a a))
(<= (goal r 0) (not (path a a)))
"""


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kernels_replay_exactly_where_a_cycle_reads_a_negation(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = PropnetReasoner.from_rules(parse_rules(BLOCKED_PATHS))
    net = r.net
    cyclic = {int(n) for n in net.scc_nodes}
    assert any(
        int(net.inputs[k]) & 1 and int(net.inputs[k]) >> 1 not in cyclic
        for g in cyclic
        for k in range(int(net.in_start[g]), int(net.in_start[g + 1]))
    ), "the network must keep a cyclic gate with a negated outside input"
    expected = _replay(r, r.initial(), 60, seed)
    assert _both_kernels(r, r.initial(), 60, seed, monkeypatch) == [expected, expected]


@pytest.mark.parametrize("name", ["ticTacToe", "connectFour", "breakthroughSmallHoles", "peg"])
def test_kernels_replay_exactly_on_corpus_games(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    r = _corpus(name)
    # Start one move in, so playouts from a non-initial state are covered too.
    s = r.initial()
    s = r.next(s, [r.legal(s, i)[0] for i in range(len(r.roles))])
    expected = _replay(r, s, 70, seed=11)
    assert _both_kernels(r, s, 70, 11, monkeypatch) == [expected, expected]


@pytest.mark.parametrize("rules", [GRAPH, BLOCKED_PATHS])
def test_scalar_calls_from_state_after_state_replay_exactly(
    rules: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scalar kernel keeps its propagation between calls: each call starts where
    the last one ended (another state, a role's move still set), on one thread."""
    from ggpkit.reasoning.propnet import reasoner as fast

    monkeypatch.setattr(fast, "LANE_THRESHOLD", 10**9)
    r = PropnetReasoner.from_rules(parse_rules(rules))
    rng = random.Random(5)
    s = r.initial()
    for call in range(8):
        t = r.playout_stats(s, 3, call)
        assert (t.moves, list(t.goal_sums)) == _replay(r, s, 3, call)
        if r.terminal(s) or rng.random() < 0.3:
            s = r.initial()
        else:
            s = r.next(s, [rng.choice(r.legal(s, i)) for i in range(len(r.roles))])


@pytest.mark.parametrize(("name", "per_start"), [("ticTacToe", 5), ("connectFour", 23)])
def test_the_lane_kernel_plays_each_start_on_its_own_streams(name: str, per_start: int) -> None:
    """Several start states in one 64-lane batch (a compiled tree's leaves): each row's
    sums are its own playouts' (streams ``row * per_start`` on), replayed through the
    API; a terminal start scores itself. 23 a row overflows the 64 lanes, so lanes
    restart from a different start than they had."""
    import numpy as np

    from ggpkit.reasoning.propnet import kernels as k

    r = _corpus(name)
    rng = random.Random(per_start)
    starts = []
    for plies in (0, 3, 6, 60):
        s = r.initial()
        for _ in range(plies):
            if r.terminal(s):
                break
            s = r.next(s, [rng.choice(r.legal(s, i)) for i in range(len(r.roles))])
        starts.append(s)
    assert r.terminal(starts[-1])
    net = r.net
    sums = np.zeros((len(starts), len(r.roles)), dtype=np.int64)
    done, moves, err = k.playouts64_from(
        net.kind, net.in_start, net.inputs, net.order, net.blocks, net.phases,
        net.base_nodes, net.next_lits, net.legal_lits, net.does_nodes, net.move_start,
        net.terminal_lit, net.goal_lits, net.goal_values, net.goal_start,
        np.array([r._unpack(s) for s in starts]), per_start, 99, 10_000,
        np.zeros(net.size, dtype=np.uint64), sums, np.zeros(0, dtype=np.uint8), False,
    )  # fmt: skip
    assert (err, done) == (k.ERR_NONE, len(starts) * per_start)
    replays = [_replay(r, s, per_start, 99, i * per_start) for i, s in enumerate(starts)]
    assert [list(row) for row in sums] == [row_sums for _, row_sums in replays]
    assert moves == sum(m for m, _ in replays)


def test_playouts_from_a_terminal_state_score_it() -> None:
    r = PropnetReasoner.from_rules(parse_rules(GRAPH))
    s = r.next(r.initial(), [_t("(link c-1 d)")])
    assert r.terminal(s)
    totals = r.playout_stats(s, 5, seed=1)
    assert (totals.playouts, totals.moves, totals.goal_sums) == (5, 0, (500,))


# ---- differential play against the reference prover -------------------------------------

_DIFF_GAMES = [
    "ticTacToe", "connectFour", "breakthroughSmallHoles", "checkersBarrelNoKings", "peg",
    "blocks", "3pConnectFour", "chineseCheckers1", "hex", "checkers", "nim3",
]  # fmt: skip
"""Seeds, and games whose networks the grounder's rule splitting shapes (hex's groups,
checkers' frame rules kept whole for the move sets, nim's counts)."""


def _goals(r: object, s: object, n: int) -> list[int | None]:
    out: list[int | None] = []
    for i in range(n):
        try:
            out.append(r.goal(s, i))  # type: ignore[attr-defined]
        except ReasonerError:
            out.append(None)
    return out


@pytest.mark.parametrize("name", _DIFF_GAMES)
def test_random_play_agrees_with_the_prover(name: str) -> None:
    prover_mod = pytest.importorskip("ggpkit.reasoning.prover.reasoner")
    fast_r = _corpus(name)
    path = _games_dir() / f"{name}.kif"
    slow = prover_mod.Prover(parse_rules(path.read_text(), str(path)))
    assert fast_r.roles == slow.roles
    rng = random.Random(name)
    steps = 0
    n = len(fast_r.roles)
    while steps < 150:
        a, b = fast_r.initial(), slow.initial()
        while True:
            assert fast_r.facts(a) == slow.facts(b)
            assert fast_r.terminal(a) == slow.terminal(b)
            if fast_r.terminal(a):
                assert _goals(fast_r, a, n) == _goals(slow, b, n)
                break
            legal = [fast_r.legal(a, i) for i in range(n)]
            assert legal == [slow.legal(b, i) for i in range(n)]
            joint = [rng.choice(ms) for ms in legal]
            a, b = fast_r.next(a, joint), slow.next(b, joint)
            steps += 1
            if steps >= 150:
                break


@pytest.mark.parametrize("count", [1, 64])
def test_endless_playouts_are_reported(count: int) -> None:
    r = PropnetReasoner.from_rules(
        parse_rules(
            "(role p) (init (on a)) (<= (legal p flip) (true (on ?x)))"
            "(<= (next (on b)) (true (on a))) (<= (next (on a)) (true (on b)))"
            "(<= terminal (true (on c))) (<= (goal p 0) (true (on ?x)))"
        )
    )
    with pytest.raises(ReasonerError, match="did not end within 50 moves"):
        r.playout_stats(r.initial(), count, seed=1, max_steps=50)


@pytest.mark.parametrize("count", [1, 64])
def test_a_role_without_moves_is_reported(count: int) -> None:
    r = PropnetReasoner.from_rules(
        parse_rules(
            "(role p) (init (on a)) (<= (legal p go) (true (on a)))"
            "(<= (next (on b)) (true (on a))) (<= terminal (true (on c)))"
            "(<= (goal p 0) (true (on ?x)))"
        )
    )
    with pytest.raises(ReasonerError, match="no legal move"):
        r.playout_stats(r.initial(), count, seed=1)


@pytest.mark.parametrize("all_goals", [False, True])
@pytest.mark.parametrize("name", ["ticTacToe", "connectFour", "breakthroughSmallHoles"])
def test_step64_makes_the_same_children_as_the_reasoner(name: str, all_goals: bool) -> None:
    """The compiled tree's batched expansion: 70 random (state, joint move) rows, so
    two chunks of lanes; each child state, its legal moves, whether it is terminal and
    its goals are the reasoner's (with ``all_goals``, in states that are not terminal
    too: -1 where a role has no goal or several)."""
    import numpy as np

    from ggpkit.reasoning.propnet import kernels as k

    r = _corpus(name)
    net = r.net
    rng = random.Random(len(name))
    parents, joints = [], []
    while len(parents) < 70:
        s = r.initial()
        for _ in range(rng.randrange(40)):
            if r.terminal(s):
                break
            s = r.next(s, [rng.choice(r.legal(s, i)) for i in range(len(r.roles))])
        if not r.terminal(s):
            parents.append(s)
            joints.append([rng.choice(r.legal(s, i)) for i in range(len(r.roles))])
    index = [
        {str(m): int(net.move_start[i]) + j for j, m in enumerate(net.moves[i])}
        for i in range(len(r.roles))
    ]
    states = np.array([r._unpack(s) for s in parents])
    joint = np.array([[index[i][str(m)] for i, m in enumerate(js)] for js in joints])
    legal = np.zeros((70, len(net.legal_lits)), dtype=np.uint8)
    term = np.zeros(70, dtype=np.uint8)
    goal = np.zeros((70, len(r.roles)), dtype=np.int64)
    k.step64(
        net.kind, net.in_start, net.inputs, net.order, net.blocks, net.phases, net.base_nodes,
        net.next_lits, net.legal_lits, net.does_nodes, net.terminal_lit, net.goal_lits,
        net.goal_values, net.goal_start, states, np.arange(70), joint,
        np.zeros(net.size, dtype=np.uint64), legal, term, goal, all_goals,
    )  # fmt: skip
    ended = 0
    for j, (s, js) in enumerate(zip(parents, joints, strict=True)):
        child = r.next(s, js)
        assert list(states[j]) == list(r._unpack(child))
        for i in range(len(r.roles) if not r.terminal(child) else 0):
            lo = int(net.move_start[i])
            flags = {str(m) for t, m in enumerate(net.moves[i]) if legal[j, lo + t]}
            assert flags == {str(m) for m in r.legal(child, i)}
        assert bool(term[j]) == r.terminal(child)
        if term[j]:
            ended += 1
            assert list(goal[j]) == [r.goal(child, i) for i in range(len(r.roles))]
        elif all_goals:
            assert list(goal[j]) == [_goal_or_none(r, child, i) for i in range(len(r.roles))]
    assert ended > 0, "some children end the game"


def _goal_or_none(r: PropnetReasoner, state: bytes, role: int) -> int:
    """The reasoner's goal of ``role`` in ``state``, -1 where it has none or several."""
    try:
        return r.goal(state, role)
    except ReasonerError:
        return -1

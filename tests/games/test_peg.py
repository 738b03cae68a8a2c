"""Peg solitaire: perft, scoring edge cases, illegal moves, compiled vs plain generators."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ggpkit.games.api import Game, GameOverError, IllegalMoveError, InvalidMoveError
from ggpkit.games.peg import kernels as k
from ggpkit.games.peg.game import MOVES, PegGame, PegState, goal_of, legal_jump_indices
from ggpkit.games.registry import load, rules_path
from ggpkit.gdl.kif import parse_rules, parse_term
from ggpkit.gdl.terms import Func, func

GAME = PegGame()
NOTATION = GAME.info.capabilities.notation
assert NOTATION is not None
START = GAME.initial_state()


def compiled_indices(board: int) -> list[int]:
    """Legal jump indices from the compiled bit-parallel generator, sorted."""
    out = np.empty(len(k.JUMPS), dtype=np.int64)
    n = k.legal_jumps(board, out)
    return sorted(int(x) for x in out[:n])


def perft(board: int, depth: int) -> int:
    """Number of jump sequences of length ``depth``, plain Python generator."""
    if depth == 0:
        return 1
    total = 0
    for i in legal_jump_indices(board):
        s, m, d = k.JUMPS[i]
        total += perft(board ^ (1 << s | 1 << m | 1 << d), depth - 1)
    return total


def random_board(seed: int, steps: int) -> int:
    """The board after up to ``steps`` random jumps from the start."""
    rng = random.Random(seed)
    board = k.START
    for _ in range(steps):
        legal = legal_jump_indices(board)
        if not legal:
            break
        board = int(k.apply_jump(board, rng.choice(legal)))
    return board


# ---- geometry and start -------------------------------------------------------------


def test_board_and_start() -> None:
    assert len(k.HOLES_LIST) == 33
    assert len(k.JUMPS) == 76
    assert START.pegs == 32
    assert START.board == k.HOLES & ~(1 << k.CENTER)
    assert GAME.roles == ("jumper",)
    assert GAME.to_move(START) == "jumper"
    assert [str(m) for m in GAME.legal_moves(START, "jumper")] == [
        "(jump b c4 d c4)",
        "(jump d c2 d c4)",
        "(jump d c6 d c4)",
        "(jump f c4 d c4)",
    ]


def test_registry_loads_native_peg() -> None:
    game = load("peg")
    assert isinstance(game, PegGame)
    assert game.info.turn_taking and not game.info.zero_sum


# ---- perft ---------------------------------------------------------------------------


@pytest.mark.parametrize(("depth", "count"), [(1, 4), (2, 12), (3, 60), (4, 400), (5, 2960)])
def test_perft_matches_rules(depth: int, count: int) -> None:
    assert perft(START.board, depth) == count


def test_perft_through_game_api() -> None:
    def api_perft(state: PegState, depth: int) -> int:
        if depth == 0:
            return 1
        return sum(
            api_perft(GAME.play(state, m), depth - 1) for m in GAME.legal_moves(state, "jumper")
        )

    assert api_perft(START, 3) == 60


def test_perft_compiled_equals_plain_to_depth_7() -> None:
    out = np.empty(len(k.JUMPS), dtype=np.int64)
    assert [int(k.perft(START.board, d)) for d in range(1, 8)] == [
        perft(START.board, d) for d in range(1, 8)
    ]
    # And the move lists agree node by node to depth 4.
    frontier = [START.board]
    for _ in range(4):
        nxt = []
        for board in frontier:
            n = k.legal_jumps(board, out)
            assert sorted(int(x) for x in out[:n]) == legal_jump_indices(board)
            nxt.extend(int(k.apply_jump(board, j)) for j in legal_jump_indices(board))
        frontier = nxt
    assert len(frontier) == 400


# ---- goals -----------------------------------------------------------------------------


def test_one_peg_in_centre_scores_100() -> None:
    state = PegGame.from_holes(["d c4"])
    assert GAME.is_terminal(state)
    assert GAME.goals(state) == {"jumper": 100}


@pytest.mark.parametrize("hole", ["a c3", "d c3", "g c5", "c c4", "d c7"])
def test_one_peg_elsewhere_scores_99(hole: str) -> None:
    state = PegGame.from_holes([hole])
    assert GAME.is_terminal(state)
    assert GAME.goals(state) == {"jumper": 99}


def _far_apart(n: int) -> list[str]:
    """n holes no two of which are neighbours (so the position is terminal)."""
    holes = [
        "a c3", "a c5", "c c1", "c c3", "c c5", "c c7", "e c1", "e c3", "e c5",
        "e c7", "g c3", "g c5",
    ]  # fmt: skip
    return holes[:n]


@pytest.mark.parametrize(
    ("n", "goal"), [(2, 90), (3, 80), (5, 60), (9, 20), (10, 10), (11, 0), (12, 0)]
)
def test_goal_by_count_in_terminal_positions(n: int, goal: int) -> None:
    state = PegGame.from_holes(_far_apart(n))
    assert state.pegs == n
    assert GAME.is_terminal(state)
    assert GAME.goals(state) == {"jumper": goal}


def test_goal_is_defined_in_non_terminal_states() -> None:
    two = PegGame.from_holes(["d c2", "d c3"])  # d c2 can jump to d c4
    assert not GAME.is_terminal(two)
    assert GAME.goals(two) == {"jumper": 90}
    assert GAME.goals(START) == {"jumper": 0}
    after = GAME.play(two, "(jump d c2 d c4)")
    assert GAME.goals(after) == {"jumper": 100}
    assert GAME.is_terminal(after)


def test_goal_formula_for_every_count() -> None:
    off_centre = [i for i in k.HOLES_LIST if i != k.CENTER]
    expected = {0: 0, 1: 99, **{n: 100 - 10 * (n - 1) for n in range(2, 11)}}
    for n in range(0, 33):
        board = sum(1 << i for i in off_centre[:n])
        want = expected.get(n, 0)
        assert goal_of(board) == want
        assert int(k.goal_of(board)) == want
    assert goal_of(k.HOLES) == int(k.goal_of(k.HOLES)) == 0
    assert goal_of(1 << k.CENTER) == int(k.goal_of(1 << k.CENTER)) == 100


# ---- illegal moves ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("move", "reason"),
    [
        ("(jump d c4 b c4)", "no peg on d c4"),
        ("(jump b c4 d c5)", "b c4 and d c5 are not two holes apart in a row or column"),
        ("(jump a c1 a c3)", "a c1 is not a hole of the board"),
        ("(jump d c2 z c9)", "z c9 is not a hole of the board"),
        ("(move b c4 d c4)", "a move of peg solitaire is (jump R1 C1 R2 C2)"),
        ("noop", "a move of peg solitaire is (jump R1 C1 R2 C2)"),
    ],
)
def test_illegal_moves_at_start(move: str, reason: str) -> None:
    with pytest.raises(IllegalMoveError) as info:
        GAME.play(START, move)
    assert info.value.role == "jumper"
    assert info.value.move == move
    assert info.value.reason.startswith(reason)
    assert move in str(info.value) and reason in str(info.value)
    assert PegState(k.START) == START


def test_illegal_destination_and_middle() -> None:
    state = GAME.play(START, "(jump b c4 d c4)")
    with pytest.raises(IllegalMoveError, match="d c4 is not empty"):
        GAME.play(state, "(jump f c4 d c4)")
    with pytest.raises(IllegalMoveError, match="no peg between a c4 and c c4 to jump over"):
        GAME.play(state, "(jump a c4 c c4)")
    with pytest.raises(InvalidMoveError, match="not a GDL term"):
        GAME.play(state, "(jump b")


def test_moves_as_strings_and_terms() -> None:
    by_text = GAME.play(START, "( jump  b c4 d c4 )")
    by_term = GAME.next_state(START, {"jumper": func("jump", "b", "c4", "d", "c4")})
    assert by_text == by_term
    assert by_text.pegs == 31
    assert {str(f) for f in GAME.facts(by_text)} >= {
        "(hole b c4 empty)", "(hole c c4 empty)", "(hole d c4 peg)", "(pegs s31)",
    }  # fmt: skip


def test_terminal_state_rejects_moves() -> None:
    state = PegGame.from_holes(["d c4"])
    assert GAME.to_move(state) is None
    assert GAME.legal_moves(state, "jumper") == []
    with pytest.raises(GameOverError):
        GAME.play(state, "(jump d c4 b c4)")
    with pytest.raises(IllegalMoveError, match="the game is over"):
        GAME.next_state(state, ["(jump d c4 b c4)"])


# ---- facts, render, short notation -------------------------------------------------------


def test_facts_vocabulary() -> None:
    facts = {str(f) for f in GAME.facts(START)}
    assert len(facts) == 34
    assert "(hole d c4 empty)" in facts and "(hole a c3 peg)" in facts and "(pegs s32)" in facts


def test_twin_rules_file_has_the_same_start_facts() -> None:
    rules = parse_rules(rules_path("peg").read_text(), "peg.kif")
    init = {
        r.head.args[0]
        for r in rules
        if isinstance(r.head, Func) and r.head.name == "init" and not r.body
    }
    assert init == GAME.facts(START)


def test_render_labels_and_pegs() -> None:
    text = GAME.render(START)
    lines = text.splitlines()
    assert lines[0].split() == [f"c{i}" for i in range(1, 8)]
    assert lines[4].split() == ["d", "o", "o", "o", ".", "o", "o", "o"]
    assert lines[1].split() == ["a", "o", "o", "o"]
    assert "".join(lines[1:8]).count("o") == 32 and "pegs: 32" in lines[8]


def test_short_notation_round_trip() -> None:
    for move in MOVES:
        short = NOTATION.short(move)
        assert NOTATION.parse(short) == move
    assert NOTATION.short(parse_term("(jump b c4 d c4)")) == "b4-d4"
    assert NOTATION.parse("B4 d4") == parse_term("(jump b c4 d c4)")
    assert NOTATION.parse("hello") is None


# ---- compiled kernels -------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), steps=st.integers(0, 31))
def test_compiled_and_plain_generators_agree_on_played_positions(seed: int, steps: int) -> None:
    board = random_board(seed, steps)
    assert compiled_indices(board) == legal_jump_indices(board)


@settings(max_examples=200, deadline=None)
@given(bits=st.integers(0, 2**49 - 1))
def test_compiled_and_plain_generators_agree_on_any_board(bits: int) -> None:
    board = bits & k.HOLES
    assert compiled_indices(board) == legal_jump_indices(board)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), steps=st.integers(0, 10))
def test_kernel_playout_ends_in_a_terminal_reachable_count(seed: int, steps: int) -> None:
    board = random_board(seed % 1000, steps)
    final, jumps = k.random_playout(board, np.uint64(seed))
    final = int(final)
    assert final & ~k.HOLES == 0
    assert legal_jump_indices(final) == []
    assert final.bit_count() == board.bit_count() - int(jumps)


def test_playout_stats_are_seeded_and_sum_goals() -> None:
    a = GAME.playout_stats(START, 500, seed=3)
    b = GAME.playout_stats(START, 500, seed=3)
    assert a == b
    assert a.playouts == 500
    assert 500 * 1 <= a.moves <= 500 * 31
    assert 0 <= a.goal_sums[0] <= 500 * 100
    forced = PegGame.from_holes(["d c1", "d c2"])  # one jump: d c1 over d c2 to d c3
    c = GAME.playout_stats(forced, 10, seed=0)
    assert (c.moves, c.goal_sums) == (10, (990,))
    two_ways = PegGame.from_holes(["b c4", "c c4"])  # to d c4 (100) or to a c4 (99)
    d = GAME.playout_stats(two_ways, 1000, seed=1)
    assert d.moves == 1000
    assert 99_000 < d.goal_sums[0] < 100_000


def test_kernel_playouts_are_uniform_like_the_plain_ones() -> None:
    """The mean playout length of the kernel matches the API's plain random playouts."""
    rng = random.Random(11)
    plain = [Game.random_playout(GAME, START, rng)[1] for _ in range(1500)]
    stats = GAME.playout_stats(START, 200_000, seed=5)
    plain_mean = sum(plain) / len(plain)
    assert abs(stats.moves / stats.playouts - plain_mean) < 0.4
    goals, steps = GAME.random_playout(START, random.Random(1))
    assert 1 <= steps <= 31 and set(goals) == {"jumper"}


# ---- API-level properties ----------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(choices=st.lists(st.integers(0, 1000), max_size=31))
def test_random_games_keep_the_invariants(choices: list[int]) -> None:
    state = START
    for c in choices:
        if GAME.is_terminal(state):
            break
        legal = GAME.legal_moves(state, "jumper")
        assert legal and len(set(legal)) == len(legal)
        before = state
        state = GAME.play(state, legal[c % len(legal)])
        assert state.pegs == before.pegs - 1
        facts = GAME.facts(state)
        assert func("pegs", f"s{state.pegs}") in facts
        assert sum(1 for f in facts if str(f).endswith(" peg)")) == state.pegs
        assert hash(state) == hash(PegState(state.board))
    assert GAME.is_terminal(state) == (GAME.legal_moves(state, "jumper") == [])
    assert GAME.goals(state)["jumper"] == goal_of(state.board)


def test_gdl_twin_rules_file_is_shipped() -> None:
    path = rules_path("peg")
    assert path.name == "peg.kif" and Path(path).is_file()


# ---- differential: the native engine against GDL rules -----------------------------------

_SHARED_GAMES = Path(__file__).resolve().parents[2] / ".." / "shared" / "ggp-games"


def _gdl_peg(source: str, reasoner: str) -> Game[object]:
    """The GDL twin (``"twin"``) or the public ggp.org file (``"public"``) on a GDL reasoner.

    ``reasoner`` is ``"auto"`` (the fast propnet when it can run the game) or
    ``"prover"`` (the slow reference prover, the oracle).
    """
    gdl_game = pytest.importorskip("ggpkit.games.gdl.game")
    if source == "twin":
        path = rules_path("peg")
    else:
        path = _SHARED_GAMES / "peg.kif"
        if not path.is_file():
            pytest.skip("../shared/ggp-games is absent")
    game: Game[object] = gdl_game.load_kif_file(path, reasoner=reasoner)
    return game


def _same_position(gdl: Game[object], gs: object, ns: PegState) -> None:
    assert gdl.facts(gs) == GAME.facts(ns)
    assert gdl.is_terminal(gs) == GAME.is_terminal(ns)
    assert set(gdl.legal_moves(gs, "jumper")) == set(GAME.legal_moves(ns, "jumper"))
    assert gdl.goals(gs) == GAME.goals(ns)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("source", "reasoner", "depth"),
    [("twin", "auto", 5), ("twin", "prover", 4), ("public", "auto", 5)],
)
def test_perft_equals_gdl(source: str, reasoner: str, depth: int) -> None:
    """Move sets, facts, terminal and goals equal at every node; counts 4, 12, 60, 400, 2960."""
    gdl = _gdl_peg(source, reasoner)
    frontier = [(gdl.initial_state(), START)]
    for d in range(1, depth + 1):
        nxt = []
        for gs, ns in frontier:
            _same_position(gdl, gs, ns)
            for m in GAME.legal_moves(ns, "jumper"):
                nxt.append((gdl.next_state(gs, [m]), GAME.play(ns, m)))
        frontier = nxt
        assert len(frontier) == [4, 12, 60, 400, 2960][d - 1]
    for gs, ns in frontier[::10]:
        _same_position(gdl, gs, ns)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("source", "reasoner", "games"),
    [("twin", "auto", 300), ("public", "auto", 100), ("twin", "prover", 10)],
)
def test_random_playouts_equal_gdl(source: str, reasoner: str, games: int) -> None:
    """Legal sets, facts, terminal and goals equal at every step of random games."""
    gdl = _gdl_peg(source, reasoner)
    rng = random.Random(2026)
    for _ in range(games):
        gs, ns = gdl.initial_state(), START
        while True:
            _same_position(gdl, gs, ns)
            if GAME.is_terminal(ns):
                break
            move = rng.choice(GAME.legal_moves(ns, "jumper"))
            gs, ns = gdl.next_state(gs, [move]), GAME.play(ns, move)


_INIT_RE = re.compile(r"\(init\s+\((?:hole|pegs)[^()]*\)\)", re.IGNORECASE)


@pytest.mark.slow
@pytest.mark.parametrize("source", ["twin", "public"])
def test_goal_edge_cases_equal_gdl(source: str) -> None:
    """Hand-built positions become the ``init`` of the GDL rules, then both engines score them."""
    gdl_game = pytest.importorskip("ggpkit.games.gdl.game")
    path = rules_path("peg") if source == "twin" else _SHARED_GAMES / "peg.kif"
    if not path.is_file():
        pytest.skip("../shared/ggp-games is absent")
    text, removed = _INIT_RE.subn("", path.read_text())
    assert removed == 34
    positions = [
        ["d c4"],  # 100
        ["a c3"],  # 99
        ["d c1", "d c2"],  # 90, not terminal
        _far_apart(2),  # 90
        _far_apart(10),  # 10
        _far_apart(11),  # 0
    ]
    for holes in positions:
        ns = PegGame.from_holes(holes)
        init = "\n".join(f"(init {f})" for f in sorted(map(str, GAME.facts(ns))))
        gdl = gdl_game.load_kif_text(text + "\n" + init, "peg.kif", reasoner="prover")
        gs = gdl.initial_state()
        _same_position(gdl, gs, ns)
        if not GAME.is_terminal(ns):
            move = GAME.legal_moves(ns, "jumper")[0]
            _same_position(gdl, gdl.next_state(gs, [move]), GAME.play(ns, move))


def test_the_hint_answers_a_perfect_line_from_what_the_start_solved() -> None:
    """After solving the start, each move of the line it found is answered mostly from the
    memo: a few positions it lost are searched again, never the millions that proving
    every other move's value takes (3 s after two moves, more than a play clock)."""
    from ggpkit.games.peg.extras import PegExactSolver

    game = load("peg")
    hint = PegExactSolver()
    state = game.initial_state()
    assert hint.solve(game, state, "jumper").goals == {"jumper": 100}
    while not game.is_terminal(state):
        before = int(hint.solver._stats[0])
        answer = hint.solve(game, state, "jumper")
        assert int(hint.solver._stats[0]) - before <= 10_000, "other moves were solved too"
        assert answer.goals == {"jumper": 100} and answer.move is not None
        state = game.next_state(state, [answer.move])
    assert game.goals(state) == {"jumper": 100}

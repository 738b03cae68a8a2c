"""Breakthrough with holes and its capture variant: rules edge cases, kernels against the plain
reference, playouts, and (when the GDL engine is present) differential play against the twins
and the public ``breakthroughSmallHoles``."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ggpkit
from ggpkit.games.api import (
    Game,
    GameError,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
)
from ggpkit.games.breakthrough import kernels
from ggpkit.games.breakthrough.game import (
    HOLES,
    BreakthroughHoles,
    BreakthroughHolesCapture,
    BtState,
    plain_legal,
    plain_next,
    plain_wins,
    position,
)
from ggpkit.games.perft import perft
from ggpkit.gdl.terms import Const, Term, func

BASE = BreakthroughHoles()
CAPTURE = BreakthroughHolesCapture()
GAMES = [BASE, CAPTURE]
VARIANTS = pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)


def _games_dir() -> Path:
    env = os.environ.get("GGPKIT_GAMES_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / ".." / "shared" / "ggp-games"


def _random_states(game: BreakthroughHoles, seed: int, games: int = 3) -> Iterator[BtState]:
    """Every state of a few random games (terminal ones included)."""
    rng = random.Random(seed)
    for _ in range(games):
        state = game.initial_state()
        yield state
        while not game.is_terminal(state):
            mover = game.to_move(state)
            assert mover is not None
            state = game.play(state, rng.choice(game.legal_moves(state, mover)))
            yield state


# ---- registry, start, facts, rendering ------------------------------------------------------


@VARIANTS
def test_registered_and_start(game: BreakthroughHoles) -> None:
    loaded = ggpkit.load(game.name)
    assert type(loaded) is type(game)
    state = game.initial_state()
    assert game.roles == ("white", "black")
    assert game.info.turn_taking and game.info.zero_sum
    assert game.to_move(state) == "white"
    assert not game.is_terminal(state)
    assert game.goals(state) == {"white": 0, "black": 0}
    assert len(game.legal_moves(state, "white")) == 10
    assert [str(m) for m in game.legal_moves(state, "black")] == ["noop"]


@VARIANTS
def test_facts_use_public_vocabulary(game: BreakthroughHoles) -> None:
    facts = {str(f) for f in game.facts(game.initial_state())}
    assert "(control white)" in facts
    assert {"(cell 2 3 hole)", "(cell 3 4 hole)", "(cell 4 3 hole)", "(cell 5 4 hole)"} <= facts
    assert "(cell 1 1 white)" in facts and "(cell 6 6 black)" in facts
    assert "(cell 3 3 white)" not in facts
    assert len(facts) == 24 + 4 + 1


def test_render_shows_board_holes_and_turn() -> None:
    text = BASE.render(BASE.initial_state())
    lines = text.splitlines()
    assert lines[0] == "6 b b b b b b"
    assert lines[2] == "4 . . # . # ."
    assert lines[3] == "3 . # . # . ."
    assert lines[5] == "1 w w w w w w"
    assert lines[6] == "  a b c d e f"  # x = 1..6 as the short notation writes it
    assert lines[-1] == "white to move"
    won = position([(1, 6)], [(3, 3)], "black")
    assert BASE.render(won).splitlines()[-1] == "game over: white wins"


# ---- terminal states and goals ----------------------------------------------------------------


@VARIANTS
def test_white_reaching_row_6_wins(game: BreakthroughHoles) -> None:
    state = position([(1, 5), (6, 1)], [(4, 6), (6, 5)], "white")
    assert not game.is_terminal(state)
    after = game.play(state, "(move 1 5 1 6)")
    assert game.is_terminal(after)
    assert game.goals(after) == {"white": 100, "black": 0}
    assert game.to_move(after) is None
    assert game.legal_moves(after, "black") == []
    with pytest.raises(GameOverError):
        game.play(after, "noop")


@VARIANTS
def test_black_reaching_row_1_wins(game: BreakthroughHoles) -> None:
    state = position([(6, 3)], [(3, 2), (1, 6)], "black")
    after = game.play(state, "(move 3 2 2 1)")
    assert game.is_terminal(after)
    assert game.goals(after) == {"white": 0, "black": 100}
    assert game.winner(after) == "black"


def test_blocked_side_to_move_loses() -> None:
    # White (2,2): straight ahead is the hole (2,3), both diagonals hold black pieces.
    state = position([(2, 2)], [(1, 3), (3, 3), (6, 6)], "white")
    assert BASE.is_terminal(state)
    assert BASE.goals(state) == {"white": 0, "black": 100}
    # The same position with black to move is not over.
    state_b = position([(2, 2)], [(1, 3), (3, 3), (6, 6)], "black")
    assert not BASE.is_terminal(state_b)
    assert BASE.goals(state_b) == {"white": 0, "black": 0}
    # In the capture variant white may capture either diagonal neighbour.
    assert not CAPTURE.is_terminal(state)
    assert sorted(str(m) for m in CAPTURE.legal_moves(state, "white")) == [
        "(move 2 2 1 3)",
        "(move 2 2 3 3)",
    ]


@VARIANTS
def test_move_that_blocks_the_opponent_wins(game: BreakthroughHoles) -> None:
    # White's only piece (1,2): (2,3) is a hole, so black on (1,3) blocks it in both variants
    # (a straight move never captures). Black moving there wins at once.
    state = position([(1, 2)], [(1, 4)], "black")
    after = game.play(state, "(move 1 4 1 3)")
    assert game.is_terminal(after)
    assert game.goals(after) == {"white": 0, "black": 100}


def test_white_blocks_black() -> None:
    # White (4,4) -> (4,5) leaves black's only piece (4,6) without a move: black loses.
    state = position([(4, 4), (5, 5), (3, 5)], [(4, 6)], "white")
    after = BASE.play(state, "(move 4 4 4 5)")
    assert BASE.is_terminal(after)
    assert BASE.goals(after) == {"white": 100, "black": 0}
    # With captures black could take (3,5) or (5,5) diagonally, so the game goes on.
    after_c = CAPTURE.play(state, "(move 4 4 4 5)")
    assert not CAPTURE.is_terminal(after_c)
    assert sorted(str(m) for m in CAPTURE.legal_moves(after_c, "black")) == [
        "(move 4 6 3 5)",
        "(move 4 6 5 5)",
    ]


@VARIANTS
def test_both_win_conditions_in_a_hand_built_position(game: BreakthroughHoles) -> None:
    # Unreachable in play; the public rules give each role its goal independently.
    state = position([(1, 6)], [(6, 1)], "white")
    assert game.is_terminal(state)
    assert game.goals(state) == {"white": 100, "black": 100}
    assert game.winner(state) is None


@VARIANTS
def test_goals_zero_while_running(game: BreakthroughHoles) -> None:
    for state in _random_states(game, seed=7):
        goals = game.goals(state)
        if game.is_terminal(state):
            assert sorted(goals.values()) == [0, 100]
        else:
            assert goals == {"white": 0, "black": 0}


# ---- captures -----------------------------------------------------------------------------------


def test_capture_variant_diagonal_capture_removes_piece() -> None:
    state = position([(3, 3), (6, 1)], [(4, 4), (3, 5)], "white")
    legal = {str(m) for m in CAPTURE.legal_moves(state, "white")}
    assert "(move 3 3 4 4)" in legal  # diagonal onto black: a capture
    assert "(move 3 3 3 4)" not in legal  # (3,4) is a hole
    after = CAPTURE.play(state, "(move 3 3 4 4)")
    facts = {str(f) for f in CAPTURE.facts(after)}
    assert "(cell 4 4 white)" in facts
    assert "(cell 4 4 black)" not in facts
    assert "(cell 3 3 white)" not in facts
    assert "(control black)" in facts
    assert bin(after.black).count("1") == 1


def test_straight_move_onto_opponent_is_illegal_in_both() -> None:
    state = position([(1, 2), (6, 1)], [(1, 3), (6, 6)], "white")
    for game in GAMES:
        with pytest.raises(IllegalMoveError) as err:
            game.play(state, "(move 1 2 1 3)")
        assert "straight" in err.value.reason or "no captures" in err.value.reason
    with pytest.raises(IllegalMoveError, match="straight move cannot capture"):
        CAPTURE.play(state, "(move 1 2 1 3)")


def test_base_game_has_no_diagonal_capture() -> None:
    state = position([(1, 3), (6, 1)], [(2, 4), (6, 6)], "white")
    with pytest.raises(IllegalMoveError, match="no captures"):
        BASE.play(state, "(move 1 3 2 4)")
    assert str(CAPTURE.check_move(state, "white", "(move 1 3 2 4)")) == "(move 1 3 2 4)"


def test_black_captures_diagonally_downwards() -> None:
    state = position([(2, 4), (6, 1)], [(1, 5), (6, 6)], "black")
    after = CAPTURE.play(state, "(move 1 5 2 4)")
    assert {str(f) for f in CAPTURE.facts(after)} >= {"(cell 2 4 black)", "(control white)"}
    assert "(cell 2 4 white)" not in {str(f) for f in CAPTURE.facts(after)}


# ---- illegal moves ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("role", "move", "reason"),
    [
        ("black", "(move 1 5 1 4)", "it is white's turn: black may only play noop"),
        ("white", "noop", "must move a piece"),
        ("white", "(jump 1 2 1 3)", "moves are (move X1 Y1 X2 Y2) or noop"),
        ("white", "(move 1 2 0 3)", "(0,3) is off the board"),
        ("white", "(move 1 3 1 4)", "no white piece on (1,3)"),
        ("white", "(move 1 2 1 4)", "one row forward"),
        ("white", "(move 1 2 1 1)", "one row forward"),
        ("white", "(move 1 2 3 3)", "neighbouring column"),
        ("white", "(move 2 2 2 3)", "(2,3) is a hole"),
        ("white", "(move 1 1 1 2)", "own piece"),
        ("white", "(move 1 1 2 2)", "own piece"),
        ("white", "(move", "not a GDL term"),
    ],
)
@VARIANTS
def test_illegal_moves_raise_with_reason_and_keep_state(
    game: BreakthroughHoles, role: str, move: str, reason: str
) -> None:
    state = game.initial_state()
    before = BtState(*state)
    expected = InvalidMoveError if reason == "not a GDL term" else IllegalMoveError
    with pytest.raises(expected) as err:
        game.check_move(state, role, move)
    assert reason in err.value.reason
    assert err.value.role == role
    if role == "white":  # the role to move: play() checks the move the same way
        with pytest.raises(expected) as err:
            game.play(state, move)
        assert reason in err.value.reason
    assert state == before
    assert game.facts(state) == game.facts(game.initial_state())


def test_hand_built_positions_are_checked() -> None:
    with pytest.raises(GameError, match="hole"):
        position([(2, 3)], [(6, 6)], "white")
    with pytest.raises(GameError, match="off the 6x6 board"):
        position([(7, 1)], [(6, 6)], "white")
    with pytest.raises(GameError, match="listed twice"):
        position([(1, 1)], [(1, 1)], "white")
    with pytest.raises(GameError, match="unknown role"):
        position([(1, 1)], [(6, 6)], "red")


def test_moves_as_strings_and_terms_are_the_same() -> None:
    state = BASE.initial_state()
    by_text = BASE.next_state(state, {"white": "( move 1 2 1 3 )", "black": "noop"})
    by_term = BASE.next_state(state, [func("move", 1, 2, 1, 3), Const("noop")])
    by_play = BASE.play(state, "(move 1 2 1 3)")
    assert by_text == by_term == by_play
    assert BASE.to_move(by_text) == "black"
    assert "(cell 1 3 white)" in {str(f) for f in BASE.facts(by_text)}
    with pytest.raises(IllegalMoveError):
        BASE.next_state(state, [func("move", 1, 2, 1, 3), func("move", 1, 5, 1, 4)])


# ---- properties and kernels against the plain reference -------------------------------------


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), capture=st.booleans())
def test_every_role_can_move_in_every_nonterminal_state(seed: int, capture: bool) -> None:
    game = CAPTURE if capture else BASE
    for state in _random_states(game, seed, games=1):
        if game.is_terminal(state):
            assert all(game.legal_moves(state, r) == [] for r in game.roles)
            continue
        mover = game.to_move(state)
        assert mover == ("white", "black")[state.control]
        other = "black" if mover == "white" else "white"
        assert len(game.legal_moves(state, mover)) >= 1
        assert [str(m) for m in game.legal_moves(state, other)] == ["noop"]
        assert not (state.white & state.black) and not ((state.white | state.black) & HOLES)


_board = st.integers(0, (1 << 36) - 1)


@settings(max_examples=300, deadline=None)
@given(white=_board, black=_board, control=st.integers(0, 1), capture=st.booleans())
def test_compiled_generator_equals_plain(
    white: int, black: int, control: int, capture: bool
) -> None:
    black &= ~white
    white &= ~HOLES
    black &= ~HOLES
    state = BtState(white, black, control)
    compiled = [(int(s), int(d)) for s, d in kernels.legal_moves(white, black, control, capture)]
    assert compiled == plain_legal(state, capture)
    wins = kernels.game_wins(white, black, control, capture)
    assert (bool(wins[0]), bool(wins[1])) == plain_wins(state, capture)
    for src, dst in compiled:
        assert BtState(*kernels.next_state(white, black, control, src, dst)) == plain_next(
            state, src, dst
        )
    game = CAPTURE if capture else BASE
    assert perft(game, state, 2) == perft(game, state, 2, compiled=False)


@VARIANTS
def test_compiled_perft_equals_generic(game: BreakthroughHoles) -> None:
    state = game.initial_state()
    for depth in range(0, 5):
        assert perft(game, state, depth) == perft(game, state, depth, compiled=False)
    assert perft(game, state, 1) == 10
    assert perft(game, state, 2) == 100


# ---- playouts ------------------------------------------------------------------------------------


@VARIANTS
def test_playout_stats_are_decisive_and_deterministic(game: BreakthroughHoles) -> None:
    state = game.initial_state()
    stats = game.playout_stats(state, 500, seed=3)
    assert stats.playouts == 500
    assert sum(stats.goal_sums) == 100 * 500  # every game has exactly one winner
    assert stats.goal_sums[0] > 0 and stats.goal_sums[1] > 0
    assert stats.moves >= 500 * 7  # white needs at least 4 moves and black 3 before white's 4th
    assert game.playout_stats(state, 500, seed=3) == stats
    goals, steps = game.random_playout(state, random.Random(5))
    assert sorted(goals.values()) == [0, 100] and steps >= 7


@VARIANTS
def test_playout_from_terminal_state_plays_nothing(game: BreakthroughHoles) -> None:
    state = position([(1, 6)], [(3, 3)], "black")
    stats = game.playout_stats(state, 10, seed=1)
    assert stats.moves == 0 and stats.goal_sums == (1000, 0)


def test_kernel_playouts_agree_with_interpreted_ones_in_distribution() -> None:
    # Same rules, different random streams: white's win rate must agree within noise.
    game = BASE
    n = 400
    compiled = game.playout_stats(game.initial_state(), 20000, seed=11).goal_sums[0] / 20000 / 100
    interpreted = Game.playout_stats(game, game.initial_state(), n, seed=11).goal_sums[0] / n / 100
    assert abs(compiled - interpreted) < 0.1


# ---- differential play against GDL rules ------------------------------------------------------


def _prover_game(path: Path) -> Game[Any]:
    gdl_game = pytest.importorskip("ggpkit.games.gdl.game")
    loaded: Game[Any] = gdl_game.load_kif_file(path, reasoner="prover")
    return loaded


def _differential(native: BreakthroughHoles, gdl: Game[Any], seed: int, games: int) -> None:
    rng = random.Random(seed)
    for _ in range(games):
        state_n, state_g = native.initial_state(), gdl.initial_state()
        while True:
            assert native.facts(state_n) == gdl.facts(state_g)
            assert native.is_terminal(state_n) == gdl.is_terminal(state_g)
            assert native.goals(state_n) == gdl.goals(state_g)
            if native.is_terminal(state_n):
                break
            legal_n = [native.legal_moves(state_n, r) for r in native.roles]
            legal_g = [gdl.legal_moves(state_g, r) for r in native.roles]
            assert [sorted(map(str, m)) for m in legal_n] == [sorted(map(str, m)) for m in legal_g]
            joint: list[Term] = [rng.choice(m) for m in legal_n]
            state_n = native.next_state(state_n, joint)
            state_g = gdl.next_state(state_g, [str(m) for m in joint])


@VARIANTS
def test_native_equals_gdl_twin(game: BreakthroughHoles) -> None:
    from ggpkit.games.registry import rules_path

    twin = _prover_game(rules_path(game.name))
    state = twin.initial_state()
    assert perft(twin, state, 2) == perft(game, game.initial_state(), 2)
    _differential(game, twin, seed=21, games=4)


@VARIANTS
def test_native_equals_shipped_gdl_engine(game: BreakthroughHoles) -> None:
    # The twin through ggpkit.load(..., engine="gdl"), with whichever reasoner it picks.
    pytest.importorskip("ggpkit.games.gdl.game")
    twin = ggpkit.load(game.name, engine="gdl")
    assert perft(twin, twin.initial_state(), 3) == perft(game, game.initial_state(), 3)
    _differential(game, twin, seed=33, games=3)
    stats = twin.playout_stats(twin.initial_state(), 5, seed=2)
    assert sum(stats.goal_sums) == 500


def test_capture_variant_equals_public_breakthrough_small_holes() -> None:
    path = _games_dir() / "breakthroughSmallHoles.kif"
    if not path.is_file():
        pytest.skip("../shared/ggp-games is not present")
    public = _prover_game(path)
    assert perft(public, public.initial_state(), 3) == perft(CAPTURE, CAPTURE.initial_state(), 3)
    _differential(CAPTURE, public, seed=5, games=4)

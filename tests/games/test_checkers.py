"""Pawn checkers and its barrel variant: perft, rule edge cases, kernels, GDL twins."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ggpkit.games.api import Game, GameOverError, IllegalMoveError, MoveError
from ggpkit.games.checkers import kernels
from ggpkit.games.checkers.game import (
    GOALS,
    START,
    CheckersState,
    PawnCheckers,
    PawnCheckersBarrel,
    PlainMove,
    plain_legal,
    plain_next,
    square_bit,
)
from ggpkit.games.perft import perft
from ggpkit.games.registry import load, rules_path
from ggpkit.gdl.terms import Const, func

PLAIN = PawnCheckers()
BARREL = PawnCheckersBarrel()
BOTH = pytest.mark.parametrize("game", [PLAIN, BARREL], ids=["plain", "barrel"])
NOOP = Const("noop")

# Perft from the start, identical for both boards up to depth 10 (no pawn gets near
# the wrap that early); computed with the plain-Python generator to depth 7 and the
# compiled one to depth 12 (the barrel first differs at depth 11: 81378122 vs 81383694).
PERFT_START = [7, 49, 302, 1469, 7361, 36768, 180018, 844361, 3923504, 17922986]


def games_dir() -> Path | None:
    env = os.environ.get("GGPKIT_GAMES_DIR")
    path = Path(env) if env else Path(__file__).resolve().parents[2] / ".." / "shared" / "ggp-games"
    return path if path.is_dir() else None


def strs(moves: list[Any]) -> list[str]:
    return [str(m) for m in moves]


def random_walk(game: PawnCheckers, seed: int, length: int) -> CheckersState:
    """The state after up to ``length`` uniformly random moves from the start."""
    rng = random.Random(seed)
    state = game.initial_state()
    for _ in range(length):
        if game.is_terminal(state):
            break
        state = game.play(state, rng.choice(game.legal_moves(state, game.roles[state.control])))
    return state


def random_states(game: PawnCheckers, seed: int) -> Iterator[CheckersState]:
    """Every state of one random game from the start, the terminal one included."""
    rng = random.Random(seed)
    state = game.initial_state()
    yield state
    while not game.is_terminal(state):
        state = game.play(state, rng.choice(game.legal_moves(state, game.roles[state.control])))
        yield state


def kernel_legal(game: PawnCheckers, state: CheckersState) -> list[PlainMove]:
    rows = kernels.legal_moves(
        np.uint64(state.black), np.uint64(state.red), state.control, game.wrap
    )
    out: list[PlainMove] = []
    for kind, frm, to in rows:
        name = "jump" if kind == kernels.KIND_JUMP else "move"
        out.append((name, frm % 8 + 1, frm // 8 + 1, to % 8 + 1, to // 8 + 1))
    return sorted(out)


def kernel_next(game: PawnCheckers, state: CheckersState, move: PlainMove) -> CheckersState:
    kind, x1, y1, x2, y2 = move
    result = kernels.next_state(
        np.uint64(state.black),
        np.uint64(state.red),
        state.black_captures,
        state.red_captures,
        state.step,
        state.control,
        kernels.KIND_JUMP if kind == "jump" else kernels.KIND_MOVE,
        (y1 - 1) * 8 + x1 - 1,
        (y2 - 1) * 8 + x2 - 1,
        game.wrap,
    )
    return CheckersState(*(int(v) for v in result))


# ---- perft -----------------------------------------------------------------------------


@BOTH
def test_black_has_seven_moves_at_the_start(game: PawnCheckers) -> None:
    state = game.initial_state()
    assert len(game.legal_moves(state, "black")) == 7
    assert game.legal_moves(state, "red") == [NOOP]
    assert game.to_move(state) == "black"


@BOTH
def test_perft_plain_and_compiled_agree_with_the_table(game: PawnCheckers) -> None:
    state = game.initial_state()
    plain = [perft(game, state, d, compiled=False) for d in range(1, 7)]
    compiled = [perft(game, state, d) for d in range(1, len(PERFT_START) + 1)]
    assert plain == compiled[:6]
    assert compiled == PERFT_START


@BOTH
@given(seed=st.integers(0, 2**32), length=st.integers(0, 120))
@settings(max_examples=40, deadline=None)
def test_perft_plain_equals_compiled_in_random_positions(
    game: PawnCheckers, seed: int, length: int
) -> None:
    state = random_walk(game, seed, length)
    for depth in range(4):
        assert perft(game, state, depth, compiled=False) == perft(game, state, depth)


# ---- compiled kernels against the plain generator ------------------------------------------


@BOTH
@given(seed=st.integers(0, 2**32))
@settings(max_examples=30, deadline=None)
def test_kernel_legal_and_next_equal_plain_along_random_games(
    game: PawnCheckers, seed: int
) -> None:
    for state in random_states(game, seed):
        plain = list(plain_legal(state.black, state.red, state.control, game.wrap))
        assert kernel_legal(game, state) == plain
        for move in plain:
            assert kernel_next(game, state, move) == plain_next(state, move, game.wrap)


@BOTH
@given(seed=st.integers(0, 2**64 - 1), length=st.integers(0, 99))
@settings(max_examples=60, deadline=None)
def test_kernel_playout_ends_in_a_terminal_state_reached_by_legal_play(
    game: PawnCheckers, seed: int, length: int
) -> None:
    start = random_walk(game, seed % 2**32, length)
    black, red, bc, rc, step, control, moves, _ = kernels.playout(
        np.uint64(start.black),
        np.uint64(start.red),
        start.black_captures,
        start.red_captures,
        start.step,
        start.control,
        game.wrap,
        np.uint64(seed),
    )
    end = CheckersState(int(black), int(red), bc, rc, step, control)
    assert game.is_terminal(end)
    assert moves == end.step - start.step
    assert end.control == (start.control + moves) % 2
    # Every capture removed one opponent pawn; no pawn appeared from nowhere.
    assert bc - start.black_captures == start.red.bit_count() - end.red.bit_count()
    assert rc - start.red_captures == start.black.bit_count() - end.black.bit_count()
    assert end.black.bit_count() <= start.black.bit_count()


@BOTH
def test_playout_stats_are_deterministic_and_bounded(game: PawnCheckers) -> None:
    state = game.initial_state()
    stats = game.playout_stats(state, 500, seed=7)
    assert stats == game.playout_stats(state, 500, seed=7)
    assert stats.playouts == 500
    assert 0 < stats.moves <= 500 * 99  # at most 99 moves a game
    assert all(0 <= s <= 500 * 100 for s in stats.goal_sums)
    assert stats != game.playout_stats(state, 500, seed=8)
    goals, steps = game.random_playout(state, random.Random(3))
    assert 0 < steps <= 99
    assert set(goals) == {"black", "red"}
    assert all(g in GOALS for g in goals.values())


@BOTH
def test_playouts_from_a_terminal_state_play_nothing(game: PawnCheckers) -> None:
    state = game.make_state(black=[(1, 1)], red=[], captures=(12, 0))
    stats = game.playout_stats(state, 10, seed=1)
    assert stats.moves == 0
    assert stats.goal_sums == (10 * 100, 0)


# ---- GGP properties on random play ---------------------------------------------------------


@BOTH
@given(seed=st.integers(0, 2**32))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_role_can_act_in_every_non_terminal_state(game: PawnCheckers, seed: int) -> None:
    for state in random_states(game, seed):
        if game.is_terminal(state):
            assert game.to_move(state) is None
            assert game.all_legal_moves(state) == [[], []]
            continue
        mover = game.to_move(state)
        assert mover == game.roles[state.control]
        for role in game.roles:
            moves = game.legal_moves(state, role)
            assert moves
            if role != mover:
                assert moves == [NOOP]
            else:
                assert NOOP not in moves
                kinds = {m.name for m in moves if not isinstance(m, Const)}
                assert len(kinds) == 1  # jumps exclude moves
        assert 1 <= state.step < 100


# ---- hand-built positions ------------------------------------------------------------------


@BOTH
def test_jumps_are_compulsory(game: PawnCheckers) -> None:
    state = game.make_state(black=[(3, 3), (1, 1)], red=[(4, 4), (8, 8)])
    assert strs(game.legal_moves(state, "black")) == ["(jump 3 3 5 5)"]
    with pytest.raises(IllegalMoveError) as info:
        game.play(state, "(move 1 1 2 2)")
    assert info.value.reason == "a jump is available, so moves are not legal: jumps are compulsory"
    assert info.value.role == "black"
    assert info.value.move == "(move 1 1 2 2)"


@BOTH
def test_a_jump_captures_and_counts(game: PawnCheckers) -> None:
    state = game.make_state(black=[(3, 3)], red=[(4, 4), (8, 8)], step=10)
    after = game.play(state, "(jump 3 3 5 5)")
    assert after.black == square_bit(5, 5)
    assert after.red == square_bit(8, 8)
    assert (after.black_captures, after.red_captures) == (1, 0)
    assert (after.step, game.to_move(after)) == (11, "red")
    assert game.goals(after) == {"black": 8, "red": 0}
    assert func("captureCount", "black", 1) in game.facts(after)


@BOTH
def test_red_jumps_down(game: PawnCheckers) -> None:
    state = game.make_state(black=[(4, 4), (1, 1)], red=[(5, 5)], control="red")
    assert strs(game.legal_moves(state, "red")) == ["(jump 5 5 3 3)"]
    after = game.play(state, "(jump 5 5 3 3)")
    assert after.black == square_bit(1, 1)
    assert game.goals(after) == {"black": 0, "red": 8}


@BOTH
def test_eleven_captures_score_90_and_twelve_score_100(game: PawnCheckers) -> None:
    state = game.make_state(black=[(3, 3)], red=[(4, 4), (8, 8)], captures=(10, 3))
    assert game.goals(state) == {"black": 80, "red": 24}
    eleven = game.play(state, "(jump 3 3 5 5)")
    assert not game.is_terminal(eleven)
    assert game.goals(eleven) == {"black": 90, "red": 24}
    last = game.make_state(black=[(3, 3)], red=[(4, 4)], captures=(11, 0))
    twelve = game.play(last, "(jump 3 3 5 5)")
    assert twelve.red == 0
    assert game.is_terminal(twelve)
    assert game.goals(twelve) == {"black": 100, "red": 0}


@BOTH
def test_goal_table(game: PawnCheckers) -> None:
    expected = [0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 90, 100]
    for count, goal in enumerate(expected):
        red = [(8, 8)] if count < 12 else []
        red_count = 11 - count if count < 12 else 0
        state = game.make_state(black=[(1, 1)], red=red, captures=(count, red_count))
        assert game.goals(state) == {"black": goal, "red": expected[red_count]}


@BOTH
def test_goals_are_defined_in_non_terminal_states(game: PawnCheckers) -> None:
    state = game.make_state(black=[(1, 1), (3, 1)], red=[(8, 8)], captures=(5, 2))
    assert not game.is_terminal(state)
    assert game.goals(state) == {"black": 40, "red": 16}
    assert game.goals(game.initial_state()) == {"black": 0, "red": 0}


@BOTH
def test_the_game_ends_when_the_step_counter_reaches_100(game: PawnCheckers) -> None:
    state = game.make_state(black=[(1, 1)], red=[(8, 8)], step=98)
    state = game.play(state, "(move 1 1 2 2)")
    assert (state.step, game.is_terminal(state)) == (99, False)
    state = game.play(state, "(move 8 8 7 7)")
    assert state.step == 100
    assert game.is_terminal(state)
    assert game.legal_moves(state, "black") == []
    with pytest.raises(GameOverError):
        game.play(state, "(move 2 2 3 3)")
    with pytest.raises(IllegalMoveError, match="the game is over"):
        game.next_state(state, ["(move 2 2 3 3)", "noop"])


@BOTH
def test_at_most_99_moves_are_played(game: PawnCheckers) -> None:
    # Random games from the start; some last until the step counter stops them.
    stopped_by_the_limit = 0
    for seed in range(40):
        states = list(random_states(game, seed))
        end = states[-1]
        assert len(states) - 1 == end.step - 1 <= 99
        assert all(not game.is_terminal(s) for s in states[:-1])
        if end.step == 100:
            # Nothing but the counter ends this game: both have pawns, the mover has moves.
            assert end.black and end.red
            assert plain_legal(end.black, end.red, end.control, game.wrap)
            stopped_by_the_limit += 1
    # On the barrel pawns go round, so some random games run into the limit; on the
    # plain board pawns run out of moves first (the limit is tested on a built position).
    assert (stopped_by_the_limit > 0) == game.wrap


@BOTH
def test_a_role_without_pawns_ends_the_game(game: PawnCheckers) -> None:
    for black, red in (([(1, 1)], []), ([], [(8, 8)])):
        state = game.make_state(black=black, red=red, control="black")
        assert game.is_terminal(state)
        assert game.to_move(state) is None


def test_a_blocked_side_to_move_ends_the_game() -> None:
    # Black's only pawn faces a red pawn with another red pawn behind it.
    for game in (PLAIN, BARREL):
        state = game.make_state(black=[(1, 1)], red=[(2, 2), (3, 3)])
        assert game.is_terminal(state)
        # Red could still move, but red does not have control.
        assert not game.is_terminal(state._replace(control=1))
    # On the plain board a pawn on the far row is stuck; on the barrel it goes round.
    stuck = PLAIN.make_state(black=[(2, 8)], red=[(1, 1)])
    assert PLAIN.is_terminal(stuck)
    assert not BARREL.is_terminal(stuck)
    assert strs(BARREL.legal_moves(stuck, "black")) == ["(move 2 8 3 1)"]


# ---- the barrel wrap -----------------------------------------------------------------------


def test_barrel_steps_wrap_vertically_but_not_sideways() -> None:
    state = BARREL.make_state(black=[(2, 8), (8, 8)], red=[(5, 5)])
    assert strs(BARREL.legal_moves(state, "black")) == [
        "(move 2 8 1 1)",
        "(move 2 8 3 1)",
        "(move 8 8 7 1)",
    ]
    red = BARREL.make_state(black=[(5, 5)], red=[(1, 1)], control="red")
    assert strs(BARREL.legal_moves(red, "red")) == ["(move 1 1 2 8)"]
    after = BARREL.play(red, "(move 1 1 2 8)")
    assert after.red == square_bit(2, 8)
    assert PLAIN.is_terminal(PLAIN.make_state(black=[(5, 5)], red=[(1, 1)], control="red"))


def test_barrel_jumps_across_the_edge() -> None:
    # Black on row 7 over red on row 8, landing on row 1.
    state = BARREL.make_state(black=[(1, 7)], red=[(2, 8), (7, 5)])
    assert strs(BARREL.legal_moves(state, "black")) == ["(jump 1 7 3 1)"]
    after = BARREL.play(state, "(jump 1 7 3 1)")
    assert after.black == square_bit(3, 1)
    assert after.red == square_bit(7, 5)
    assert after.black_captures == 1
    # Black on row 8 over red on row 1, landing on row 2.
    state = BARREL.make_state(black=[(2, 8)], red=[(3, 1), (7, 5)])
    assert strs(BARREL.legal_moves(state, "black")) == ["(jump 2 8 4 2)"]
    assert BARREL.play(state, "(jump 2 8 4 2)").red == square_bit(7, 5)
    # Red on row 2 over black on row 1, landing on row 8.
    state = BARREL.make_state(black=[(3, 1), (5, 5)], red=[(4, 2)], control="red")
    assert strs(BARREL.legal_moves(state, "red")) == ["(jump 4 2 2 8)"]
    after = BARREL.play(state, "(jump 4 2 2 8)")
    assert (after.black, after.red) == (square_bit(5, 5), square_bit(2, 8))
    assert after.red_captures == 1
    # Red on row 1 over black on row 8, landing on row 7.
    state = BARREL.make_state(black=[(4, 8), (1, 5)], red=[(3, 1)], control="red")
    assert strs(BARREL.legal_moves(state, "red")) == ["(jump 3 1 5 7)"]
    after = BARREL.play(state, "(jump 3 1 5 7)")
    assert (after.black, after.red) == (square_bit(1, 5), square_bit(5, 7))
    # None of these exist on the plain board: there black is blocked here.
    assert PLAIN.is_terminal(PLAIN.make_state(black=[(1, 7)], red=[(2, 8), (7, 5)]))


def test_no_jump_over_the_side_edge() -> None:
    for game in (PLAIN, BARREL):
        state = game.make_state(black=[(7, 3)], red=[(8, 4), (2, 8)])
        assert strs(game.legal_moves(state, "black")) == ["(move 7 3 6 4)"]


# ---- illegal moves -------------------------------------------------------------------------


@BOTH
@pytest.mark.parametrize(
    ("role", "move", "reason"),
    [
        ("red", "(move 2 6 1 5)", "it is black's turn: red may only play noop"),
        ("black", "noop",
         "it is black's turn: black must move or jump (noop is for the other role)"),
        ("black", "(move 4 4 5 5)", "no black pawn on 4 4"),
        ("black", "(move 2 6 1 5)", "no black pawn on 2 6"),
        ("black", "(move 2 2 3 3)", "3 3 is occupied"),
        ("black", "(move 1 3 0 4)", "0 4 is off the board (x and y run from 1 to 8)"),
        ("black", "(jump 1 3 3 5)", "a jump must pass over a red pawn, and there is none on 2 4"),
        ("black", "(castle)", "(castle) is not a checkers move: write (move X1 Y1 X2 Y2), "
         "(jump X1 Y1 X2 Y2) or noop"),
        ("black", "(move a 3 2 4)", "(move a 3 2 4) is not a checkers move: write "
         "(move X1 Y1 X2 Y2), (jump X1 Y1 X2 Y2) or noop"),
    ],
)  # fmt: skip
def test_illegal_moves_say_why_and_change_nothing(
    game: PawnCheckers, role: str, move: str, reason: str
) -> None:
    state = game.initial_state()
    joint = (
        {"black": move, "red": "noop"}
        if role == "black"
        else {"black": "(move 1 3 2 4)", "red": move}
    )
    with pytest.raises(IllegalMoveError) as info:
        game.next_state(state, joint)
    assert (info.value.move, info.value.role, info.value.reason) == (move, role, reason)
    assert state == START
    assert game.legal_moves(state, "black") == game.legal_moves(START, "black")


@BOTH
def test_playing_for_the_role_without_control_says_whose_turn_it_is(game: PawnCheckers) -> None:
    state = game.initial_state()
    with pytest.raises(IllegalMoveError) as info:
        game.play(state, "(move 2 6 1 5)", role="red")
    assert info.value.reason == "it is black's turn: red may only play noop"
    with pytest.raises(IllegalMoveError) as info:
        game.play(state, "noop", role="red")
    assert (
        info.value.reason == "it is black's turn: play a move for black (red's only move is noop)"
    )
    assert game.play(state, "(move 1 3 2 4)", role="black") == game.play(state, "(move 1 3 2 4)")


@BOTH
@given(
    text=st.one_of(
        st.text(max_size=30),
        st.builds(
            "({} {} {} {} {})".format,
            st.sampled_from(["move", "jump", "noop", "Move"]),
            *[st.one_of(st.integers(-2, 10), st.sampled_from(["a", "²", "01", "?x"]))] * 4,
        ),
    )
)
@settings(max_examples=100, deadline=None)
def test_any_text_is_a_legal_move_or_a_move_error(game: PawnCheckers, text: str) -> None:
    state = game.make_state(black=[(3, 3), (2, 8), (6, 2)], red=[(4, 4), (1, 1), (5, 3)])
    legal = strs(game.legal_moves(state, "black"))
    try:
        after = game.next_state(state, [text, "noop"])
    except MoveError as e:
        assert e.role == "black" and e.move == text and e.reason
    else:
        assert str(game.parse_move(text)) in legal
        assert after.step == 2


@BOTH
def test_wrong_direction_is_explained(game: PawnCheckers) -> None:
    state = game.make_state(black=[(4, 4)], red=[(8, 8)])
    with pytest.raises(IllegalMoveError) as info:
        game.play(state, "(move 4 4 3 3)")
    assert info.value.reason.startswith(
        "a move goes 1 square diagonally forward: black pawns go up"
    )
    with pytest.raises(IllegalMoveError) as info:
        game.play(state, "(jump 4 4 6 7)")
    assert "a jump goes 2 squares diagonally forward" in info.value.reason
    state = game.make_state(black=[(1, 1)], red=[(5, 5)], control="red")
    with pytest.raises(IllegalMoveError) as info:
        game.play(state, "(move 5 5 6 6)")
    assert "red pawns go down" in info.value.reason


def test_wrap_moves_are_illegal_on_the_plain_board() -> None:
    state = PLAIN.make_state(black=[(2, 8), (1, 1)], red=[(5, 5)])
    with pytest.raises(IllegalMoveError) as info:
        PLAIN.play(state, "(move 2 8 3 1)")
    assert "black pawns go up, so 2 8 cannot move to 3 1" in info.value.reason
    assert BARREL.play(state, "(move 2 8 3 1)").black == square_bit(3, 1) | square_bit(1, 1)


@BOTH
def test_moves_as_strings_or_terms(game: PawnCheckers) -> None:
    state = game.initial_state()
    by_text = game.next_state(state, {"black": " ( move 1 3   2 4 ) ", "red": "noop"})
    by_term = game.next_state(state, [func("move", 1, 3, 2, 4), NOOP])
    by_play = game.play(state, "(move 1 3 2 4)")
    assert by_text == by_term == by_play
    assert by_text.black == START.black ^ square_bit(1, 3) ^ square_bit(2, 4)
    assert (by_text.step, by_text.control) == (2, 1)
    assert hash(by_text) == hash(by_play)


@BOTH
def test_make_state_rejects_impossible_positions(game: PawnCheckers) -> None:
    with pytest.raises(ValueError, match="not a square pawns stand on"):
        game.make_state(black=[(1, 2)], red=[])
    with pytest.raises(ValueError, match="two pawns on 1 1"):
        game.make_state(black=[(1, 1)], red=[(1, 1)])
    with pytest.raises(ValueError, match="cannot have 12 captures"):
        game.make_state(black=[(1, 1)], red=[(8, 8)], captures=(12, 0))
    with pytest.raises(ValueError, match="step 101"):
        game.make_state(black=[(1, 1)], red=[(8, 8)], step=101)


# ---- facts, rendering ----------------------------------------------------------------------


@BOTH
def test_facts_of_the_start(game: PawnCheckers) -> None:
    facts = {str(f) for f in game.facts(game.initial_state())}
    assert len(facts) == 24 + 4
    assert {"(location 1 1 blackPawn)", "(location 8 8 redPawn)", "(captureCount black 0)",
            "(captureCount red 0)", "(control black)", "(step 1)"} <= facts  # fmt: skip
    assert "(location 2 1 blackPawn)" not in facts


@BOTH
def test_render_shows_the_board_with_coordinates(game: PawnCheckers) -> None:
    text = game.render(game.make_state(black=[(1, 1)], red=[(8, 8)], captures=(3, 4), step=9))
    lines = text.splitlines()
    assert lines[0] == "step 9, black to move; captures: black 3, red 4"
    assert lines[1] == "8 |   .   .   .   r"
    assert lines[8] == "1 | b   .   .   ."
    assert lines[10] == "    a b c d e f g h"  # x = 1..8 as the short notation writes it
    assert ("barrel" in text) == game.wrap


# ---- differential: native engine against the GDL twins (and the public barrel game) --------

DIFF_PLAYOUTS = int(os.environ.get("GGPKIT_CHECKERS_DIFF_PLAYOUTS", "12"))


def prover_game(path: Path) -> Game[Any]:
    """The GDL game on the reference prover (the oracle), skipped while the engine is absent."""
    gdl_game = pytest.importorskip("ggpkit.games.gdl.game")
    game: Game[Any] = gdl_game.load_kif_file(path, reasoner="prover")
    return game


def twin_and_public() -> list[Any]:
    """(native game, GDL file): our two twins, and the public barrel game when present."""
    public = games_dir()
    return [
        pytest.param(PLAIN, rules_path("pawn-checkers"), id="plain-twin"),
        pytest.param(BARREL, rules_path("pawn-checkers-barrel"), id="barrel-twin"),
        pytest.param(
            BARREL,
            public / "checkersBarrelNoKings.kif" if public else Path("absent"),
            id="barrel-public",
            marks=pytest.mark.skipif(public is None, reason="shared/ggp-games is absent"),
        ),
    ]


def assert_same_state(native: PawnCheckers, ns: CheckersState, gdl: Game[Any], gs: Any) -> None:
    assert native.facts(ns) == gdl.facts(gs)
    terminal = native.is_terminal(ns)
    assert gdl.is_terminal(gs) == terminal
    assert native.goals(ns) == gdl.goals(gs)
    legal = native.all_legal_moves(ns)
    assert [set(ms) for ms in legal] == [set(ms) for ms in gdl.all_legal_moves(gs)]


@pytest.mark.parametrize(("native", "path"), twin_and_public())
def test_gdl_perft_equals_native(native: PawnCheckers, path: Path) -> None:
    gdl = prover_game(path)
    assert gdl.roles == native.roles
    for depth in range(1, 4):
        assert perft(gdl, gdl.initial_state(), depth, compiled=False) == PERFT_START[depth - 1]


@pytest.mark.slow
@pytest.mark.parametrize(("native", "path"), twin_and_public())
def test_gdl_and_native_agree_along_random_games(native: PawnCheckers, path: Path) -> None:
    gdl = prover_game(path)
    for seed in range(DIFF_PLAYOUTS):
        rng = random.Random(seed)
        ns, gs = native.initial_state(), gdl.initial_state()
        while True:
            assert_same_state(native, ns, gdl, gs)
            if native.is_terminal(ns):
                break
            joint = [rng.choice(ms) for ms in native.all_legal_moves(ns)]
            ns, gs = native.next_state(ns, joint), gdl.next_state(gs, joint)


# Hand-built positions where the edge cases happen, compared move by move.
EDGE_POSITIONS = [
    ([(3, 3), (1, 1)], [(4, 4), (8, 8)], (0, 0), 1, "black"),  # compulsory jump
    ([(3, 3)], [(4, 4)], (11, 0), 40, "black"),  # the twelfth capture
    ([(1, 1)], [(8, 8)], (0, 0), 98, "black"),  # the step limit
    ([(1, 1)], [(2, 2), (3, 3)], (0, 9), 30, "black"),  # black blocked
    ([(2, 8), (8, 8)], [(5, 5), (1, 1)], (0, 0), 50, "black"),  # steps over the wrap
    ([(1, 7)], [(2, 8), (7, 5)], (3, 4), 20, "black"),  # jump from row 7 to row 1
    ([(2, 8)], [(3, 1), (7, 5)], (3, 4), 20, "black"),  # jump from row 8 to row 2
    ([(3, 1), (5, 5)], [(4, 2)], (5, 1), 21, "red"),  # red jump from row 2 to row 8
    ([(4, 8), (1, 5)], [(3, 1)], (5, 1), 21, "red"),  # red jump from row 1 to row 7
    ([(7, 3)], [(8, 4), (2, 8)], (0, 0), 5, "black"),  # no jump off the side
]


@pytest.mark.parametrize(("native", "path"), twin_and_public())
def test_gdl_and_native_agree_on_edge_positions(native: PawnCheckers, path: Path) -> None:
    gdl = prover_game(path)
    from_facts = getattr(getattr(gdl, "reasoner", None), "state_from_facts", None)
    if from_facts is None:
        pytest.skip("this reasoner cannot build a state from facts")
    for black, red, captures, step, control in EDGE_POSITIONS:
        ns = native.make_state(black, red, captures, step, control)
        for _ in range(4):  # the position and a few moves on
            gs = from_facts(native.facts(ns))
            assert_same_state(native, ns, gdl, gs)
            if native.is_terminal(ns):
                break
            for joint in _joints(native, ns):
                assert native.facts(native.next_state(ns, joint)) == gdl.facts(
                    gdl.next_state(gs, joint)
                )
            ns = native.next_state(ns, _joints(native, ns)[0])


def _joints(game: PawnCheckers, state: CheckersState) -> list[list[Any]]:
    black, red = game.all_legal_moves(state)
    return [[b, r] for b in black for r in red]


@pytest.mark.parametrize("native", [PLAIN, BARREL], ids=["plain", "barrel"])
def test_the_registered_gdl_engine_agrees_with_native(native: PawnCheckers) -> None:
    """``load(name, engine="gdl")`` (whichever reasoner it picks) plays the same game."""
    pytest.importorskip("ggpkit.games.gdl.game")
    gdl = load(native.name, engine="gdl")
    for seed in range(DIFF_PLAYOUTS):
        rng = random.Random(1000 + seed)
        ns, gs = native.initial_state(), gdl.initial_state()
        while True:
            assert_same_state(native, ns, gdl, gs)
            if native.is_terminal(ns):
                break
            joint = [rng.choice(ms) for ms in native.all_legal_moves(ns)]
            ns, gs = native.next_state(ns, joint), gdl.next_state(gs, joint)

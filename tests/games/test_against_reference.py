"""The native engines against independent reference implementations of rules.md.

WHY: the native engines and their GDL twins share authors, so a shared misreading
of the rules would pass every native-vs-GDL differential. ``reference_rules.py``
was written from the rule texts alone; here the two are played side by side on
random games (same joint move each step, mapped by text) and compared at every
step on the legal move sets of every role, the terminal test and the goals, and
on perft counts and the facts rules.md states.
"""

from __future__ import annotations

import os
import random
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ggpkit
from ggpkit.games.api import Game
from ggpkit.games.breakthrough.game import position as bt_position
from ggpkit.games.checkers.game import PawnCheckers
from ggpkit.games.gdl.game import GdlGame
from ggpkit.games.peg import kernels as peg_kernels
from ggpkit.games.peg.game import PegGame
from ggpkit.games.peg.game import PegState as PegGameState
from ggpkit.games.perft import perft as native_perft

from .reference_rules import (
    BT_HOLES,
    PEG_ROWS,
    PegState,
    RefGame,
    breakthrough_state,
    checkers_state,
    perft,
    reference,
)

GAMES = (
    "peg",
    "pawn-checkers",
    "pawn-checkers-barrel",
    "breakthrough-holes",
    "breakthrough-holes-capture",
)

PERFT_DEPTH = {
    "peg": 5,
    "pawn-checkers": 5,
    "pawn-checkers-barrel": 5,
    "breakthrough-holes": 4,
    "breakthrough-holes-capture": 4,
}
"""Depths at which the plain-Python reference perft runs in about a second."""

RANDOM_GAMES = 200


def compare(game: Game[Any], ref: RefGame[Any], state: Any, rstate: Any, where: str) -> None:
    """Assert the native and reference states agree on legal sets, terminal and goals."""
    terminal = ref.terminal(rstate)
    assert game.is_terminal(state) == terminal, f"terminal differs {where}"
    assert game.goals(state) == ref.goals(rstate), f"goals differ {where}"
    if terminal:
        return
    for role in ref.roles:
        native = sorted(str(m) for m in game.legal_moves(state, role))
        expected = sorted(ref.legal(rstate, role))
        assert native == expected, f"legal moves of {role} differ {where}"


def play_side_by_side(game: Game[Any], ref: RefGame[Any], rng: random.Random) -> int:
    """Play one random game on both; compare at every step; return the number of steps."""
    name = game.name
    state, rstate = game.initial_state(), ref.initial()
    history: list[str] = []
    while True:
        compare(game, ref, state, rstate, f"in {name} after {history}")
        if ref.terminal(rstate):
            return len(history)
        joint = {r: rng.choice(ref.legal(rstate, r)) for r in ref.roles}
        history.append(" ".join(joint[r] for r in ref.roles))
        state = game.next_state(state, joint)
        rstate = ref.next(rstate, joint)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("engine", ["native", "gdl"])
def test_random_games_agree(name: str, engine: str) -> None:
    """The native engine, and its GDL twin too (the twin is the natives' other oracle)."""
    rng = random.Random(f"reference-{name}-{engine}")
    game = ggpkit.load(name, engine=engine)
    ref = reference(name)
    lengths = [play_side_by_side(game, ref, rng) for _ in range(RANDOM_GAMES)]
    assert min(lengths) >= 1


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_hypothesis_games_agree(name: str, seed: int) -> None:
    play_side_by_side(ggpkit.load(name), reference(name), random.Random(seed))


@pytest.mark.parametrize("name", GAMES)
def test_perft_agrees(name: str) -> None:
    game = ggpkit.load(name)
    ref = reference(name)
    for depth in range(1, PERFT_DEPTH[name] + 1):
        expected = perft(ref, ref.initial(), depth)
        assert native_perft(game, game.initial_state(), depth) == expected, (name, depth)
        if name == "peg":  # the peg kernel's perft is not behind the API: call it directly
            assert peg_kernels.perft(peg_kernels.START, depth) == expected, depth


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("peg", [4, 12, 60, 400]),
        ("breakthrough-holes", [10, 100]),
        ("breakthrough-holes-capture", [10, 100]),
    ],
)
def test_rules_md_perft_facts(name: str, expected: list[int]) -> None:
    """rules.md: peg 4, 12, 60, 400; breakthrough 10 and 100."""
    game = ggpkit.load(name)
    ref = reference(name)
    depths = range(1, len(expected) + 1)
    assert [perft(ref, ref.initial(), d) for d in depths] == expected
    assert [native_perft(game, game.initial_state(), d) for d in depths] == expected


@pytest.mark.parametrize("name", ["pawn-checkers", "pawn-checkers-barrel"])
def test_checkers_seven_black_moves(name: str) -> None:
    """rules.md: 7 legal moves for black at the start (red: noop only)."""
    game = ggpkit.load(name)
    ref = reference(name)
    assert len(ref.legal(ref.initial(), "black")) == 7
    assert len(game.legal_moves(game.initial_state(), "black")) == 7
    assert [str(m) for m in game.legal_moves(game.initial_state(), "red")] == ["noop"]


# ---- hand-built edge positions ------------------------------------------------------------


@cache
def twin(name: str) -> GdlGame:
    """The GDL twin of a native game, loaded once per test session (building it takes time)."""
    game = ggpkit.load(name, engine="gdl")
    assert isinstance(game, GdlGame)
    return game


def check_position(name: str, state: Any, rstate: Any, perft_depth: int = 3) -> None:
    """Compare a position, every child of it, and perft (plain and compiled) from it.

    The GDL twin is checked on the same position too (built from the native facts).
    """
    native = ggpkit.load(name)
    gdl = twin(name)
    ref = reference(name)
    for game, start in ((native, state), (gdl, gdl.state_from_facts(native.facts(state)))):
        where = f"in {name} ({type(game).__name__}) at {rstate}"
        compare(game, ref, start, rstate, where)
        for depth in range(perft_depth + 1):
            expected = perft(ref, rstate, depth)
            assert native_perft(game, start, depth, compiled=False) == expected, (where, depth)
            assert native_perft(game, start, depth) == expected, (where, depth, "compiled")
        if ref.terminal(rstate):
            continue
        legal = {r: ref.legal(rstate, r) for r in ref.roles}
        for joint in _all_joints(ref.roles, legal):
            child = game.next_state(start, joint)
            rchild = ref.next(rstate, joint)
            compare(game, ref, child, rchild, f"{where} after {joint}")


def _all_joints(roles: tuple[str, ...], legal: dict[str, list[str]]) -> list[dict[str, str]]:
    out: list[dict[str, str]] = [{}]
    for r in roles:
        out = [{**j, r: m} for j in out for m in legal[r]]
    return out


CHECKERS = ("pawn-checkers", "pawn-checkers-barrel")

CHECKERS_EDGES: dict[str, dict[str, Any]] = {
    # the step limit: step 98 and 99 are still playable, 100 is over
    "step 98": {"black": [(1, 3), (3, 3)], "red": [(6, 6), (8, 8)], "step": 98},
    "step 99": {"black": [(1, 3), (3, 3)], "red": [(6, 6), (8, 8)], "step": 99},
    "step 100": {"black": [(1, 3), (3, 3)], "red": [(6, 6), (8, 8)], "step": 100},
    "step 99 red to jump": {
        "black": [(3, 3)],
        "red": [(4, 4)],
        "step": 99,
        "control": "red",
        "captures": (5, 10),
    },
    # a side with no pawns left (goals from captures)
    "no red pawns": {"black": [(1, 3)], "red": [], "captures": (12, 3)},
    "no black pawns, black to move": {"black": [], "red": [(2, 2)], "captures": (0, 12)},
    # the side to move is blocked while the other still has pawns
    "black on row 8 only": {"black": [(2, 8), (4, 8)], "red": [(1, 1)], "captures": (4, 2)},
    "red on row 1 only": {
        "black": [(8, 8)],
        "red": [(1, 1), (3, 1)],
        "control": "red",
        "captures": (1, 1),
    },
    "black boxed in": {"black": [(1, 1)], "red": [(2, 2), (3, 3)], "captures": (0, 0)},
    "black on row 7 jump onto row 1 (barrel)": {"black": [(3, 7)], "red": [(4, 8), (1, 5)]},
    # 11 and 12 captures
    "black 11 captures, 12th jump": {"black": [(3, 3)], "red": [(4, 4)], "captures": (11, 0)},
    "red 11 captures, 12th jump": {
        "black": [(5, 5)],
        "red": [(6, 6)],
        "captures": (0, 11),
        "control": "red",
    },
    "both at 11": {"black": [(3, 3)], "red": [(6, 6)], "captures": (11, 11)},
    # compulsory jump among moves
    "jump compulsory": {"black": [(1, 1), (3, 3), (7, 3)], "red": [(4, 4), (8, 8)]},
    # barrel jumps across the edge: middle or landing across the wrap
    "black jumps, landing across the wrap": {"black": [(3, 7)], "red": [(4, 8), (8, 6)]},
    "black jumps, middle across the wrap": {"black": [(4, 8)], "red": [(5, 1), (8, 6)]},
    "red jumps, landing across the wrap": {
        "black": [(5, 1), (1, 5)],
        "red": [(4, 2)],
        "control": "red",
    },
    "red jumps, middle across the wrap": {
        "black": [(4, 8), (1, 5)],
        "red": [(3, 1)],
        "control": "red",
    },
    "wrap landing occupied": {"black": [(3, 7), (5, 1)], "red": [(4, 8), (8, 6)]},
    "x never wraps": {"black": [(8, 8), (1, 5)], "red": [(7, 1), (2, 8)]},
    "jump at the side edge": {"black": [(7, 3)], "red": [(8, 4), (6, 4), (1, 7)]},
}


@pytest.mark.parametrize("name", CHECKERS)
@pytest.mark.parametrize("case", sorted(CHECKERS_EDGES))
def test_checkers_edge_positions(name: str, case: str) -> None:
    spec = dict(CHECKERS_EDGES[case])
    game = ggpkit.load(name)
    assert isinstance(game, PawnCheckers)
    state = game.make_state(
        spec["black"],
        spec["red"],
        captures=spec.get("captures", (0, 0)),
        step=spec.get("step", 1),
        control=spec.get("control", "black"),
    )
    rstate = checkers_state(
        spec["black"],
        spec["red"],
        captures=spec.get("captures", (0, 0)),
        step=spec.get("step", 1),
        control=spec.get("control", "black"),
    )
    check_position(name, state, rstate)


BREAKTHROUGH = ("breakthrough-holes", "breakthrough-holes-capture")

BREAKTHROUGH_EDGES: dict[str, tuple[list[tuple[int, int]], list[tuple[int, int]], str]] = {
    # white to move and blocked (without captures) by black pieces and holes
    "white blocked by pieces and a hole": ([(4, 2)], [(3, 3), (5, 3), (1, 6)], "white"),
    # straight ahead is never a capture; the diagonals are holes
    "white blocked straight, holes diagonal": ([(3, 2)], [(3, 3), (6, 6)], "white"),
    "black blocked": ([(1, 1)], [(3, 5), (2, 4), (4, 4), (5, 5), (6, 4)], "black"),
    "black blocked behind a hole": ([(5, 3), (1, 1)], [(5, 5), (6, 5)], "black"),
    "white capture onto row 6": ([(2, 5)], [(1, 6), (3, 6), (2, 6)], "white"),
    "black capture onto row 1": ([(1, 1), (3, 1), (2, 1)], [(2, 2)], "black"),
    "capture the last piece": ([(2, 2)], [(3, 3)], "white"),
    "white already on row 6": ([(1, 6)], [(6, 6), (5, 5)], "black"),
    "black already on row 1": ([(6, 2)], [(1, 1)], "white"),
    "no white pieces": ([], [(3, 5)], "white"),
    "no black pieces": ([(3, 2)], [], "black"),
    "corner pieces": ([(1, 5), (6, 5)], [(1, 2), (6, 2), (2, 6), (5, 6)], "white"),
}


@pytest.mark.parametrize("name", BREAKTHROUGH)
@pytest.mark.parametrize("case", sorted(BREAKTHROUGH_EDGES))
def test_breakthrough_edge_positions(name: str, case: str) -> None:
    white, black, control = BREAKTHROUGH_EDGES[case]
    state = bt_position(white, black, control)
    check_position(name, state, breakthrough_state(white, black, control))


PEG_EDGES: dict[str, list[str]] = {
    "one peg on the centre": ["d c4"],
    "one peg off the centre": ["a c3"],
    "one peg next to the centre": ["d c5"],
    "two pegs, last jump ends on the centre": ["d c2", "d c3"],
    "two pegs, last jump ends off the centre": ["a c3", "b c3"],
    "two pegs apart": ["a c3", "g c5"],
    "ten pegs stuck": [
        "a c3", "a c5", "c c1", "c c7", "e c1", "e c7", "g c3", "g c5", "d c4", "b c4",
    ],
    "eleven pegs": [
        "a c3", "a c4", "a c5", "c c1", "c c7", "e c1", "e c7", "g c3", "g c5", "d c4", "b c4",
    ],
    "twelve pegs stuck": [
        "a c3", "a c5", "c c1", "c c3", "c c5", "c c7", "e c1", "e c3", "e c5", "e c7",
        "g c3", "g c5",
    ],
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(PEG_EDGES))
def test_peg_edge_positions(case: str) -> None:
    holes = PEG_EDGES[case]
    state = PegGame.from_holes(holes)
    pegs = frozenset((PEG_ROWS.index(h[0]), int(h[3])) for h in holes)
    check_position("peg", state, PegState(pegs, len(pegs)))


# ---- compiled playouts: every outcome must be reachable by the reference --------------------


def reachable_outcomes(
    ref: RefGame[Any], state: Any, memo: dict[Any, set[tuple[tuple[int, ...], int]]], cap: int
) -> set[tuple[tuple[int, ...], int]] | None:
    """Every (goals in role order, joint moves to the end) of a complete line from ``state``.

    Memoised by state; None when more than ``cap`` states would be needed (the
    caller then picks a position nearer the end).
    """
    if state in memo:
        return memo[state]
    if len(memo) >= cap:
        return None
    if ref.terminal(state):
        goals = ref.goals(state)
        memo[state] = {(tuple(goals[r] for r in ref.roles), 0)}
        return memo[state]
    out: set[tuple[tuple[int, ...], int]] = set()
    legal = {r: ref.legal(state, r) for r in ref.roles}
    for joint in _all_joints(ref.roles, legal):
        sub = reachable_outcomes(ref, ref.next(state, joint), memo, cap)
        if sub is None:
            return None
        out |= {(goals, steps + 1) for goals, steps in sub}
    memo[state] = out
    return out


@pytest.mark.parametrize("name", GAMES)
def test_compiled_playouts_end_in_reachable_outcomes(name: str) -> None:
    """The compiled playout kernels' (goals, length) from late positions of random games.

    The kernels (used by agents and benchmarks) never pass through the API, so the
    side-by-side games above do not exercise them.
    """
    game = ggpkit.load(name)
    ref = reference(name)
    rng = random.Random(f"kernel-{name}")
    checked = 0
    for _ in range(12):
        state, rstate = game.initial_state(), ref.initial()
        line = [(state, rstate)]
        while not ref.terminal(rstate):
            joint = {r: rng.choice(ref.legal(rstate, r)) for r in ref.roles}
            state, rstate = game.next_state(state, joint), ref.next(rstate, joint)
            line.append((state, rstate))
        for back in (1, 2, 3, 5, 8):
            if back >= len(line):
                continue
            state, rstate = line[-1 - back]
            outcomes = reachable_outcomes(ref, rstate, {}, 300)
            if outcomes is None:
                continue
            for _ in range(10):
                goals, steps = game.random_playout(state, rng)
                assert (tuple(goals[r] for r in ref.roles), steps) in outcomes, rstate
            checked += 1
    # breakthrough-capture lines rarely end quickly from a played position: its kernel
    # is covered by the sparse random positions below instead
    assert checked >= (0 if name == "breakthrough-holes-capture" else 12)


def check_kernel_playouts(name: str, state: Any, rstate: Any, rng: random.Random) -> bool:
    """Compiled playouts from a position end in outcomes the reference can reach.

    Returns False (nothing checked) when the position's game tree is too big to enumerate.
    """
    game = ggpkit.load(name)
    ref = reference(name)
    outcomes = reachable_outcomes(ref, rstate, {}, 2000)
    if outcomes is None:
        return False
    for _ in range(10):
        goals, steps = game.random_playout(state, rng)
        assert (tuple(goals[r] for r in ref.roles), steps) in outcomes, rstate
    return True


@pytest.mark.parametrize("name", CHECKERS + BREAKTHROUGH)
def test_random_sparse_positions(name: str) -> None:
    """Few pieces anywhere, any control, any step near the limit: positions play rarely reaches."""
    rng = random.Random(f"sparse-{name}")
    game = ggpkit.load(name)
    kernel_checked = 0
    state: Any
    rstate: Any
    for _ in range(60):
        if name in CHECKERS:
            squares = [(x, y) for x in range(1, 9) for y in range(1, 9) if (x + y) % 2 == 0]
            picked = rng.sample(squares, rng.randint(1, 6))
            cut = rng.randint(0, len(picked))
            black, red = picked[:cut], picked[cut:]
            captures = (rng.randint(0, 12 - len(red)), rng.randint(0, 12 - len(black)))
            step = rng.choice([1, 50, 90, 95, 97, 98, 99, 100])
            control = rng.choice(["black", "red"])
            assert isinstance(game, PawnCheckers)
            state = game.make_state(black, red, captures=captures, step=step, control=control)
            rstate = checkers_state(black, red, captures=captures, step=step, control=control)
        else:
            cells = [(x, y) for x in range(1, 7) for y in range(1, 7)]
            cells = [c for c in cells if c not in BT_HOLES]
            picked = rng.sample(cells, rng.randint(1, 6))
            cut = rng.randint(0, len(picked))
            white, black = picked[:cut], picked[cut:]
            control = rng.choice(["white", "black"])
            state = bt_position(white, black, control)
            rstate = breakthrough_state(white, black, control)
        check_position(name, state, rstate, perft_depth=2)
        kernel_checked += check_kernel_playouts(name, state, rstate, rng)
    assert kernel_checked >= 10


# ---- whole peg games: the perfect game (rules.md: 31 jumps, scores 100) and a near miss ------

PEG_SOLUTION = (
    "(jump b c4 d c4)", "(jump c c2 c c4)", "(jump a c3 c c3)", "(jump a c5 a c3)",
    "(jump c c4 c c2)", "(jump c c1 c c3)", "(jump c c5 a c5)", "(jump c c7 c c5)",
    "(jump d c3 b c3)", "(jump a c3 c c3)", "(jump d c1 d c3)", "(jump d c3 b c3)",
    "(jump d c5 b c5)", "(jump a c5 c c5)", "(jump d c7 d c5)", "(jump d c5 b c5)",
    "(jump f c3 d c3)", "(jump e c1 e c3)", "(jump e c3 c c3)", "(jump b c3 d c3)",
    "(jump d c3 d c5)", "(jump e c5 c c5)", "(jump b c5 d c5)", "(jump e c7 e c5)",
    "(jump e c4 e c6)", "(jump g c5 e c5)", "(jump d c5 f c5)", "(jump g c3 g c5)",
    "(jump g c5 e c5)", "(jump e c6 e c4)",
)  # fmt: skip
"""30 jumps found by a search over the reference; the 31st decides where the last peg ends."""


@pytest.mark.parametrize("engine", ["native", "gdl"])
@pytest.mark.parametrize(("last", "goal"), [("(jump f c4 d c4)", 100), ("(jump e c4 g c4)", 99)])
def test_peg_whole_game(engine: str, last: str, goal: int) -> None:
    """One peg left on d c4 scores 100; the same game ending on g c4 scores 99."""
    game = ggpkit.load("peg", engine=engine)
    ref = reference("peg")
    state, rstate = game.initial_state(), ref.initial()
    for move in (*PEG_SOLUTION, last):
        compare(game, ref, state, rstate, f"in peg before {move}")
        state, rstate = game.next_state(state, [move]), ref.next(rstate, {"jumper": move})
    compare(game, ref, state, rstate, "in peg at the end")
    assert ref.terminal(rstate)
    assert game.is_terminal(state)
    assert game.goals(state) == ref.goals(rstate) == {"jumper": goal}


# ---- the public GDL games that rules.md names as the same games ------------------------------


def public_games_dir() -> Path | None:
    """../shared/ggp-games (or $GGPKIT_GAMES_DIR), when present."""
    env = os.environ.get("GGPKIT_GAMES_DIR")
    path = Path(env) if env else Path(__file__).resolve().parents[2] / ".." / "shared" / "ggp-games"
    return path if path.is_dir() else None


@pytest.mark.parametrize(
    ("name", "file"),
    [
        ("peg", "peg.kif"),
        ("pawn-checkers-barrel", "checkersBarrelNoKings.kif"),
        ("breakthrough-holes-capture", "breakthroughSmallHoles.kif"),
    ],
)
def test_reference_agrees_with_public_gdl(name: str, file: str) -> None:
    """The reference itself against the public rules rules.md names (a third, independent text)."""
    folder = public_games_dir()
    if folder is None:
        pytest.skip("../shared/ggp-games is not present")
    game = ggpkit.load(str(folder / file))
    ref = reference(name)
    rng = random.Random(f"public-{name}")
    lengths = [play_side_by_side(game, ref, rng) for _ in range(40)]
    assert min(lengths) >= 1


@pytest.mark.parametrize("name", GAMES)
def test_perft_from_played_positions(name: str) -> None:
    """Perft to depth 3 from middle-game positions (crowded boards, wraps in use), both paths."""
    game = ggpkit.load(name)
    ref = reference(name)
    rng = random.Random(f"perft-{name}")
    for _ in range(8):
        state, rstate = game.initial_state(), ref.initial()
        for _ in range(rng.randint(5, 40)):
            if ref.terminal(rstate):
                break
            joint = {r: rng.choice(ref.legal(rstate, r)) for r in ref.roles}
            state, rstate = game.next_state(state, joint), ref.next(rstate, joint)
        for depth in range(4):
            expected = perft(ref, rstate, depth)
            assert native_perft(game, state, depth) == expected, (rstate, depth)
            if name == "peg":
                assert isinstance(state, PegGameState)
                assert peg_kernels.perft(state.board, depth) == expected, (rstate, depth)

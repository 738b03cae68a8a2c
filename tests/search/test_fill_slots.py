"""Fill puzzles: the slots found in the rules, the sampled finding, and the solver that
branches on one slot at a time.

The oracle is independent of ggpkit's reasoners: a plain backtracking search over
Python lists that says whether a latin square with clues can be completed. Every line
the solver returns is replayed through the game API, and must end at 100.
"""

from __future__ import annotations

import dataclasses
import itertools
import random

import numpy as np
import pytest

from ggpkit.games.gdl.game import load_kif_text
from ggpkit.reasoning.propnet.latches import top_goal_blockers
from ggpkit.search.puzzles.fill_slots import find_plan
from search.test_puzzle_search import BITS, RING, public_pair, replay, search_of

BLANK = 0


def latin_rules(grid: list[list[int]]) -> str:
    """A latin square of ``len(grid)`` with clues (0: blank) as a GDL fill puzzle: mark a
    blank cell with a digit its row and column lack; 100 once no cell is blank, 0 if
    the marks run out first."""
    n = len(grid)
    facts = [f"(index {i})" for i in range(1, n + 1)]
    facts += [f"(digit {d})" for d in range(1, n + 1)]
    facts += [
        f"(init (cell {r + 1} {c + 1} {grid[r][c] or 'b'}))" for r in range(n) for c in range(n)
    ]
    return "\n".join([
        "(role filler)",
        *facts,
        "(<= (legal filler (mark ?r ?c ?d)) (true (cell ?r ?c b)) (digit ?d)",
        "    (not (inrow ?r ?d)) (not (incol ?c ?d)))",
        "(<= (inrow ?r ?d) (true (cell ?r ?c ?d)) (digit ?d))",
        "(<= (incol ?c ?d) (true (cell ?r ?c ?d)) (digit ?d))",
        "(<= (next (cell ?r ?c ?d)) (does filler (mark ?r ?c ?d)))",
        "(<= (next (cell ?r ?c ?v)) (true (cell ?r ?c ?v)) (not (marked ?r ?c)))",
        "(<= (marked ?r ?c) (does filler (mark ?r ?c ?d)))",
        "(<= open (true (cell ?r ?c b)))",
        "(<= playable (legal filler (mark ?r ?c ?d)))",
        "(<= terminal (not playable))",
        "(<= (goal filler 100) (not open))",
        "(<= (goal filler 0) open)",
    ])  # fmt: skip


def fits(grid: list[list[int]], r: int, c: int, d: int) -> bool:
    """Whether digit ``d`` is in neither row ``r`` nor column ``c``."""
    return all(grid[r][j] != d for j in range(len(grid))) and all(row[c] != d for row in grid)


def completable(grid: list[list[int]]) -> bool:
    """Whether the latin square's blanks can be filled: plain backtracking."""
    n = len(grid)
    for r, c in itertools.product(range(n), range(n)):
        if grid[r][c] == BLANK:
            for d in range(1, n + 1):
                if fits(grid, r, c, d):
                    grid[r][c] = d
                    if completable(grid):
                        grid[r][c] = BLANK
                        return True
                    grid[r][c] = BLANK
            return False
    return True


def random_clues(n: int, rng: random.Random) -> list[list[int]]:
    """A grid with a few clues that break no row or column (completable or not)."""
    grid = [[BLANK] * n for _ in range(n)]
    for _ in range(rng.randint(2, 2 * n)):
        r, c, d = rng.randrange(n), rng.randrange(n), rng.randint(1, n)
        if fits(grid, r, c, d):
            grid[r][c] = d
    return grid


def test_a_blank_cell_alone_rules_out_the_win() -> None:
    game = load_kif_text(latin_rules(random_clues(3, random.Random(1))), reasoner="propnet")
    net = game.reasoner.net  # type: ignore[attr-defined]
    blockers = top_goal_blockers(net)
    assert blockers is not None
    expected = [1 if str(fact).endswith(" b)") else -1 for fact in net.base]
    assert blockers.tolist() == expected


def test_a_latin_square_is_a_fill_puzzle_and_its_moves_fill_their_cells() -> None:
    game = load_kif_text(latin_rules([[BLANK] * 4 for _ in range(4)]), reasoner="propnet")
    net = game.reasoner.net  # type: ignore[attr-defined]
    plan = find_plan(game.reasoner, random.Random(0))  # type: ignore[arg-type]
    assert plan is not None
    start = int(net.move_start[0])
    learned = np.flatnonzero(plan.fill_count >= 0)
    assert len(learned) > 0
    for k in learned:  # (mark r c d) fills (cell r c b), and nothing else
        move = net.moves[0][k - start]
        r, c = move.args[0], move.args[1]  # type: ignore[attr-defined]
        assert plan.fill_count[k] == 1
        assert str(net.base[plan.fills[k, 0]]) == f"(cell {r} {c} b)"


@pytest.mark.parametrize("rules", [RING, BITS], ids=["a lamp toggled back", "slots by step"])
def test_no_plan_where_a_slot_is_emptied_again_or_moves_fill_by_the_state(rules: str) -> None:
    game = load_kif_text(rules, reasoner="propnet")
    assert find_plan(game.reasoner, random.Random(0)) is None  # type: ignore[arg-type]


def test_the_solver_completes_exactly_the_squares_backtracking_completes() -> None:
    rng = random.Random(7)
    outcomes = set()
    for _ in range(8):
        grid = random_clues(4, rng)
        game = load_kif_text(latin_rules(grid), reasoner="propnet")
        plan = find_plan(game.reasoner, random.Random(0))  # type: ignore[arg-type]
        assert plan is not None
        start = game.initial_state()
        solved = search_of(game).solve(game.reasoner.bits(start), 30.0, plan=plan)  # type: ignore[attr-defined]
        expected = completable([row[:] for row in grid])
        outcomes.add(expected)
        assert (solved.value == 1.0) == expected, grid
        if expected:
            assert replay(game, start, solved.line) == 1.0
    assert outcomes == {True, False}  # both kinds were met


def test_a_sudoku_is_solved_one_cell_at_a_time() -> None:
    """sudokuGrade1, one cell at a time, fewest digits first: its line scores 100."""
    game, _ = public_pair("sudokuGrade1")
    plan = find_plan(game.reasoner, random.Random(0))  # type: ignore[arg-type]
    assert plan is not None
    start = game.initial_state()
    solved = search_of(game).solve(game.reasoner.bits(start), 60.0, plan=plan)  # type: ignore[attr-defined]
    assert solved.value == 1.0
    assert replay(game, start, solved.line) == 1.0


def holes_in_a_square(n: int, rng: random.Random) -> list[list[int]]:
    """A random latin square with about half its cells blanked: completable, and often
    with a cell that has one digit left."""
    rows, cols, digits = (rng.sample(range(n), n) for _ in range(3))
    grid = [[digits[(rows[r] + cols[c]) % n] + 1 for c in range(n)] for r in range(n)]
    for r, c in itertools.product(range(n), range(n)):
        if rng.random() < 0.5:
            grid[r][c] = BLANK
    return grid


def digits_left(grid: list[list[int]], r: int, c: int) -> int:
    """How many digits blank cell (``r``, ``c``) may still take."""
    return sum(fits(grid, r, c, d) for d in range(1, len(grid) + 1))


def test_an_unfinished_solver_is_under_a_cell_with_fewest_digits_and_a_forced_one_is_safe() -> None:
    """A call of the solver too short to finish (eight states): the move it reports
    to play fills a blank cell with the fewest digits left; where that cell has one
    digit left, every completion writes it, so a completable square stays completable."""
    rng = random.Random(11)
    under = forced = 0
    for k in range(12):
        grid = random_clues(6, rng) if k % 2 else holes_in_a_square(6, rng)
        game = load_kif_text(latin_rules(grid), reasoner="propnet")
        plan = find_plan(game.reasoner, random.Random(0))  # type: ignore[arg-type]
        assert plan is not None
        net = game.reasoner.net  # type: ignore[attr-defined]
        bits = game.reasoner.bits(game.initial_state())  # type: ignore[attr-defined]
        solved = search_of(game).solve(bits, 0.0, plan=plan, budget=8)  # type: ignore[attr-defined]
        if solved.value == 1.0:
            assert solved.fill == -1
            continue
        if solved.fill < 0:
            continue
        under += 1
        move = net.moves[0][solved.fill - int(net.move_start[0])]
        r, c, d = (int(str(a)) for a in move.args)
        r, c = r - 1, c - 1
        blanks = [(i, j) for i in range(6) for j in range(6) if grid[i][j] == BLANK]
        assert grid[r][c] == BLANK and fits(grid, r, c, d)
        assert digits_left(grid, r, c) == min(digits_left(grid, i, j) for i, j in blanks)
        if digits_left(grid, r, c) == 1 and completable([row[:] for row in grid]):
            forced += 1
            grid[r][c] = d
            assert completable(grid)
    assert under > 0 and forced > 0


def assignment_rules(allowed: dict[int, set[int]]) -> str:
    """Give each slot a value it allows, each value to one slot at most: 100 once no
    slot is open, 0 when no move is left first (a perfect matching, as a fill puzzle
    whose moves ``(put slot value)`` play each value once)."""
    facts = [f"(init (open s{s}))" for s in allowed]
    facts += [f"(allowed s{s} v{v})" for s, values in allowed.items() for v in sorted(values)]
    return "\n".join([
        "(role filler)",
        *facts,
        "(<= (legal filler (put ?s ?v)) (true (open ?s)) (allowed ?s ?v) (not (used ?v)))",
        "(<= (used ?v) (true (has ?s ?v)))",
        "(<= (next (has ?s ?v)) (does filler (put ?s ?v)))",
        "(<= (next (has ?s ?v)) (true (has ?s ?v)))",
        "(<= (next (open ?s)) (true (open ?s)) (not (filled ?s)))",
        "(<= (filled ?s) (does filler (put ?s ?v)))",
        "(<= anyopen (true (open ?s)))",
        "(<= playable (legal filler (put ?s ?v)))",
        "(<= terminal (not playable))",
        "(<= terminal (not anyopen))",
        "(<= (goal filler 100) (not anyopen))",
        "(<= (goal filler 0) anyopen)",
    ])  # fmt: skip


def random_allowed(n: int, rng: random.Random) -> dict[int, set[int]]:
    return {s: set(rng.sample(range(n), rng.randint(1, 3))) for s in range(n)}


def matchable(allowed: dict[int, set[int]]) -> bool:
    """Whether every slot can get its own value: every order of the values tried."""
    n = len(allowed)
    return any(all(p[s] in allowed[s] for s in range(n)) for p in itertools.permutations(range(n)))


def test_a_value_played_once_is_found_and_numbered_per_move() -> None:
    """``(put s v)``: the value ``v`` is never legal again once played, and fills many
    slots; the slot ``s`` names its slot. A latin square's digits are played again."""
    allowed = {s: set(range(5)) for s in range(5)}
    game = load_kif_text(assignment_rules(allowed), reasoner="propnet")
    plan = find_plan(game.reasoner, random.Random(0))  # type: ignore[arg-type]
    assert plan is not None
    net = game.reasoner.net  # type: ignore[attr-defined]
    start = int(net.move_start[0])
    number = {}
    for i, move in enumerate(net.moves[0]):
        value = str(move.args[1])
        assert number.setdefault(value, plan.values[start + i]) == plan.values[start + i]
    assert sorted(number.values()) == list(range(5))
    latin = load_kif_text(latin_rules([[BLANK] * 4 for _ in range(4)]), reasoner="propnet")
    latin_plan = find_plan(latin.reasoner, random.Random(0))  # type: ignore[arg-type]
    assert latin_plan is not None and len(latin_plan.values) == 0


def test_the_solver_matches_exactly_the_assignments_every_order_matches() -> None:
    """The pigeonhole over the values drops states that cannot be completed: never one
    that can (the solver finds a line wherever some order of the values fits)."""
    rng = random.Random(5)
    outcomes = set()
    for _ in range(16):
        allowed = random_allowed(6, rng)
        game = load_kif_text(assignment_rules(allowed), reasoner="propnet")
        plan = find_plan(game.reasoner, random.Random(0))  # type: ignore[arg-type]
        assert plan is not None and len(plan.values) > 0
        start = game.initial_state()
        solved = search_of(game).solve(game.reasoner.bits(start), 30.0, plan=plan)  # type: ignore[attr-defined]
        expected = matchable(allowed)
        outcomes.add(expected)
        assert (solved.value == 1.0) == expected, allowed
        if expected:
            assert replay(game, start, solved.line) == 1.0
    assert outcomes == {True, False}


def test_hidato_is_solved_by_branching_on_the_number_with_fewest_cells() -> None:
    """hidato37: with its numbers counted, the solver's line to 100 comes within 1,000
    states; with its blank cells alone, 20,000 are not enough."""
    game, _ = public_pair("hidato37")
    plan = find_plan(game.reasoner, random.Random(0))  # type: ignore[arg-type]
    assert plan is not None and len(plan.values) > 0
    start = game.initial_state()
    bits = game.reasoner.bits(start)  # type: ignore[attr-defined]
    solved = search_of(game).solve(bits, 0.0, plan=plan, budget=1000)
    assert solved.value == 1.0
    assert replay(game, start, solved.line) == 1.0
    cells_only = dataclasses.replace(plan, values=np.zeros(0, dtype=np.int32))
    assert search_of(game).solve(bits, 0.0, plan=cells_only, budget=20_000).value < 1.0

"""Percepts in lockstep: the prover (the oracle) against the propnet, or the join code where
the propnet cannot be built, on random lines of every GDL-II game that loads.

At every step of each line both reasoners must agree on the state's facts, every role's
legal moves, terminal and goals (or both refuse the goals, where the rules give a role
none or two), and on what every role perceives of the random joint move played.
"""

from __future__ import annotations

import random
from collections.abc import Hashable

import pytest
from games.gdl2_support import LOADED, MONTY_HALL, PERFECT, gdl2_dir, marked

from ggpkit.games.api import GameError
from ggpkit.games.gdl.game import GdlGame, load_kif_file, load_kif_text
from ggpkit.gdl.kif import parse_rules, parse_term
from ggpkit.reasoning.prover.reasoner import Prover

LINES, MAX_STEPS = 20, 40


def _goals(game: GdlGame, state: Hashable) -> dict[str, int] | str:
    try:
        return game.goals(state)
    except GameError:
        return "no proper goals"


def _lockstep(oracle: GdlGame, other: GdlGame, seed: int) -> tuple[int, int]:
    """Random lines played on both games: the joint moves compared, and the percepts seen."""
    rng = random.Random(seed)
    compared = seen = 0
    for line in range(LINES):
        a, b = oracle.initial_state(), other.initial_state()
        for step in range(MAX_STEPS + 1):
            where = f"line {line}, step {step}"
            assert oracle.facts(a) == other.facts(b), where
            assert oracle.is_terminal(a) == other.is_terminal(b), where
            if oracle.is_terminal(a):
                assert _goals(oracle, a) == _goals(other, b), where
                break
            legal = [oracle.legal_moves(a, r) for r in oracle.roles]
            assert legal == [other.legal_moves(b, r) for r in other.roles], where
            joint = [rng.choice(moves) for moves in legal]
            percepts = oracle.percepts(a, joint)
            assert percepts == other.percepts(b, joint), where
            seen += sum(len(p) for p in percepts.values())
            a, b = oracle.next_state(a, joint), other.next_state(b, joint)
            compared += 1
    return compared, seen


@pytest.mark.parametrize("name", marked(LOADED))
def test_percepts_agree_with_the_prover(name: str) -> None:
    path = gdl2_dir() / name
    other = load_kif_file(path)  # the propnet where it can be built, else the join code
    oracle = load_kif_file(path, reasoner="prover")
    assert other.reasoner_name in ("propnet", "joincode")
    compared, seen = _lockstep(oracle, other, seed=len(name))
    assert compared > 0
    assert (seen > 0) == (name not in PERFECT)


@pytest.mark.parametrize("reasoner", ["joincode", "propnet"])
def test_monty_hall_percepts_agree_with_the_prover(reasoner: str) -> None:
    oracle = load_kif_text(MONTY_HALL, "monty", reasoner="prover")
    other = load_kif_text(MONTY_HALL, "monty", reasoner=reasoner)
    assert _lockstep(oracle, other, seed=1) == (3 * LINES, 2 * LINES)


def test_rules_without_sees_perceive_nothing() -> None:
    text = "(role a) (init (n 0)) (legal a go) (<= (next (n 1)) (does a go)) " + (
        "(<= terminal (true (n 1))) (goal a 100)"
    )
    prover = Prover(parse_rules(text))
    assert prover.percepts(prover.initial(), [parse_term("go")]) == (frozenset(),)

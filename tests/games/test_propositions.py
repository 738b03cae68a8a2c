"""``Game.propositions``: every reachable fact and legal move is in the listed vocabulary."""

from __future__ import annotations

import random

import pytest

import ggpkit
from ggpkit.games.api import GameError
from ggpkit.games.gdl.game import load_kif_file, load_kif_text
from ggpkit.games.registry import rules_path


@pytest.mark.parametrize("name", sorted(ggpkit.games()))
def test_native_states_and_moves_stay_inside_the_vocabulary(name: str) -> None:
    game = ggpkit.load(name)
    props = game.propositions()
    base, moves = set(props.base), [set(ms) for ms in props.moves]
    assert len(props.base) == len(base) and len(props.moves) == len(game.roles)
    rng = random.Random(7)
    for _ in range(5):
        state = game.initial_state()
        while not game.is_terminal(state):
            assert game.facts(state) <= base
            legal = game.all_legal_moves(state)
            for role_moves, possible in zip(legal, moves, strict=True):
                assert set(role_moves) <= possible
            state = game.next_state(state, [rng.choice(ms) for ms in legal])
        assert game.facts(state) <= base


def test_the_vocabulary_is_the_twins_and_in_a_fixed_order() -> None:
    native = ggpkit.load("breakthrough-holes").propositions()
    twin = load_kif_file(rules_path("breakthrough-holes"), reasoner="propnet").propositions()
    assert native == twin
    assert list(twin.base) == sorted(twin.base, key=str)


TINY = """
(role a) (init (on)) (<= (legal a flip) (true (on))) (<= (next (off)) (does a flip))
(<= terminal (true (off))) (goal a 100)
"""


def test_a_game_on_the_prover_without_base_and_input_says_it_cannot_list_them() -> None:
    game = load_kif_text(TINY, "tiny.kif", reasoner="prover")
    with pytest.raises(GameError, match="do not declare them with 'base' and 'input'"):
        game.propositions()


def test_on_the_prover_the_declared_base_and_input_match_the_grounded_ones() -> None:
    declared = load_kif_file(rules_path("breakthrough-holes"), reasoner="prover")
    grounded = load_kif_file(rules_path("breakthrough-holes"), reasoner="propnet")
    assert declared.propositions() == grounded.propositions()

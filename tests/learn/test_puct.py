"""PUCT on toy games whose answers are known by theory, with a network that knows nothing
(uniform priors, even values): what the search finds comes from the terminal goals."""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from agents.toy_games import Dilemma, Nim

from ggpkit.games.api import Game
from ggpkit.gdl.terms import Term

from .support import need_learn_extra

need_learn_extra()

from ggpkit.agents.learned.puct import PUCTOptions, Tree, search  # noqa: E402

ACTIONS = 16


class Blank:
    """An evaluator that knows nothing: every share 0.5, every logit 0. Its "encoding"
    numbers moves as it first meets them. Counts its calls and batch sizes."""

    def __init__(self, roles: int) -> None:
        self.encoding = self
        self.roles = roles
        self.numbers: dict[Term, int] = {}
        self.batches: list[int] = []

    def action(self, role: int, move: Term) -> int:
        return self.numbers.setdefault(move, len(self.numbers))

    def evaluate(
        self, states: Sequence[Hashable]
    ) -> tuple[npt.NDArray[np.float32], list[npt.NDArray[np.float32]]]:
        self.batches.append(len(states))
        n = len(states)
        shares = np.full((n, self.roles), 0.5, dtype=np.float32)
        return shares, [np.zeros((n, ACTIONS), dtype=np.float32) for _ in range(self.roles)]


def _tree(game: Game[Any], net: Blank, state: Hashable, **options: Any) -> Tree:
    return Tree(game, net, state, PUCTOptions(**options), random.Random(1))  # type: ignore[arg-type]


@pytest.mark.parametrize("tokens", [5, 6, 7])
def test_nim_finds_the_move_that_leaves_a_multiple_of_four(tokens: int) -> None:
    # Theory: taking the last token wins, so a player leaving a multiple of 4 wins.
    game = Nim(tokens)
    state = game.initial_state()
    tree = _tree(game, Blank(2), state)
    search([tree], 600)
    chosen = tree.root.moves[0][tree.choose(0, 0.0)]
    assert str(chosen) == f"(take {tokens % 4})"


def test_simultaneous_nodes_are_decoupled_so_each_role_finds_its_dominant_move() -> None:
    # Defecting dominates in the prisoner's dilemma, for each role whatever the other does.
    game = Dilemma()
    tree = _tree(game, Blank(2), game.initial_state())
    search([tree], 400)
    picks = [str(tree.root.moves[r][tree.choose(r, 0.0)]) for r in range(2)]
    assert picks == ["defect", "defect"]


def test_many_trees_send_their_leaves_in_one_batch() -> None:
    game = Nim(12)
    net = Blank(2)
    trees = [_tree(game, net, game.initial_state(), batch=1) for _ in range(6)]
    search(trees, 20)
    assert all(t.simulations >= 20 for t in trees)
    assert max(net.batches) == 6  # one leaf per tree per call: all six at once


def test_virtual_loss_spreads_one_trees_descents_over_several_leaves() -> None:
    game = Nim(12)
    net = Blank(2)
    tree = _tree(game, net, game.initial_state(), batch=8)
    search([tree], 40)
    assert max(net.batches) > 1
    assert tree.simulations >= 40


def test_advance_keeps_the_subtree_of_the_move_played() -> None:
    game = Nim(9)
    tree = _tree(game, Blank(2), game.initial_state())
    search([tree], 100)
    joint = (tree.choose(0, 0.0), 0)
    child = tree.root.children[joint]
    tree.advance(joint)
    assert tree.root is child
    assert tree.simulations == 0

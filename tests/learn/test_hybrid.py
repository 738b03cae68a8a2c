"""The hybrid player: ggpkit's MCTS whose root moves a network's values help to judge.

The network here is a stand-in that rates one chosen move's next state best, so what the
mix does is known without training: with the network's whole weight the hybrid plays
that move wherever the search tried it, and never over a win the search proved.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pytest

from ggpkit.agents.base import Limit
from ggpkit.agents.learned.hybrid import HybridAgent
from ggpkit.agents.specs import SpecError, parse_spec
from ggpkit.games.api import Game
from ggpkit.gdl.terms import Term
from ggpkit.search.contract import TreeReport

from .support import tictactoe


class FavouriteNet:
    """Rates the states ``favourite`` leads to from ``root`` 1 for ``role``, every other 0."""

    def __init__(self, game: Game[Any], root: Hashable, role: str, favourite: Term) -> None:
        r = game.role_index(role)
        self.role_index = r
        joint = [
            favourite if k == r else game.legal_moves(root, x)[0] for k, x in enumerate(game.roles)
        ]
        self.liked = game.next_state(root, joint)
        self.calls = 0

    def evaluate(self, states: Sequence[Hashable]) -> tuple[Any, list[Any]]:
        self.calls += 1
        shares = np.zeros((len(states), 2), dtype=np.float32)
        for i, s in enumerate(states):
            shares[i, self.role_index] = 1.0 if s == self.liked else 0.0
        return shares, []


def _hybrid(game: Game[Any], net: FavouriteNet, weight: float) -> HybridAgent:
    agent = HybridAgent(seed=1, weight=weight)
    agent.network = net  # no model file: the stand-in is the network
    agent.search.start(game, game.roles[0])
    return agent


def _line(game: Game[Any], moves: list[str]) -> Hashable:
    """The state after ``moves``, the roles taking turns (each move text of the mover)."""
    state = game.initial_state()
    for text in moves:
        joint = []
        for role in game.roles:
            legal = game.legal_moves(state, role)
            joint.append(next((m for m in legal if str(m) == text), legal[0]))
        state = game.next_state(state, joint)
    return state


def _report(game: Game[Any], state: Hashable, role: str, **columns: Any) -> TreeReport:
    """A root report of ``role``'s moves at ``state``: equal visits and means, no proofs,
    but where ``columns`` (visits, means, exact: per-move lists) say otherwise."""
    moves = tuple(game.legal_moves(state, role))
    n = len(moves)
    return TreeReport(
        mover=role,
        moves=moves,
        visits=tuple(columns.get("visits", [100.0] * n)),
        means=tuple(columns.get("means", [0.5] * n)),
        exact=tuple(columns.get("exact", [None] * n)),
        proven=None,
        iterations=100 * n,
        playouts=100.0 * n,
    )


@pytest.mark.parametrize("index", range(9))
def test_with_the_whole_weight_the_network_chooses_among_moves_searched_alike(index: int) -> None:
    game, root, role = tictactoe(), tictactoe().initial_state(), tictactoe().roles[0]
    favourite = game.legal_moves(root, role)[index]
    net = FavouriteNet(game, root, role, favourite)
    report = _report(game, root, role)
    assert _hybrid(game, net, 1.0).mixed_choice(game, root, role, report) == favourite
    assert net.calls == 1  # one call for every move


def test_a_move_the_search_barely_tried_is_not_chosen_on_the_networks_word() -> None:
    game, root, role = tictactoe(), tictactoe().initial_state(), tictactoe().roles[0]
    moves = game.legal_moves(root, role)
    net = FavouriteNet(game, root, role, moves[0])
    visits = [9.0] + [100.0] * 7 + [120.0]  # the favourite: under a tenth of the most
    report = _report(game, root, role, visits=visits)
    assert _hybrid(game, net, 1.0).mixed_choice(game, root, role, report) == moves[8]
    visits[0] = 12.0  # now a tenth of the most: mixed, and the network's favourite
    report = _report(game, root, role, visits=visits)
    assert _hybrid(game, net, 1.0).mixed_choice(game, root, role, report) == moves[0]


def test_the_weight_shares_a_move_s_worth_between_the_search_and_the_network() -> None:
    game, root, role = tictactoe(), tictactoe().initial_state(), tictactoe().roles[0]
    moves = game.legal_moves(root, role)
    means = [0.5] * 9
    means[3] = 0.7  # the search's best mean; the network's favourite is moves[0]
    report = _report(game, root, role, means=means)
    net = FavouriteNet(game, root, role, moves[0])
    chosen = {
        w: _hybrid(game, net, w).mixed_choice(game, root, role, report) for w in (0, 0.15, 0.18, 1)
    }
    # worth of moves[0]: 0.5 (1 - w) + w; of moves[3]: 0.7 (1 - w): equal at w = 1/6
    assert chosen == {0: moves[3], 0.15: moves[3], 0.18: moves[0], 1: moves[0]}


def test_proofs_stand_over_the_network() -> None:
    game, root, role = tictactoe(), tictactoe().initial_state(), tictactoe().roles[0]
    moves = game.legal_moves(root, role)
    net = FavouriteNet(game, root, role, moves[0])
    lost = _report(game, root, role, exact=[0.0] + [None] * 8)  # the favourite proven lost
    assert _hybrid(game, net, 1.0).mixed_choice(game, root, role, lost) != moves[0]
    won = _report(game, root, role, exact=[None] * 4 + [1.0] + [None] * 4)
    assert _hybrid(game, net, 1.0).mixed_choice(game, root, role, won) is None  # the search's


def test_a_win_the_search_proved_is_played_whatever_the_network_says() -> None:
    game = tictactoe()
    role = game.roles[0]
    # x holds (1,1) and (1,2); o holds (2,1) and (3,3): x wins at (1,3)
    state = _line(game, ["(mark 1 1)", "(mark 2 1)", "(mark 1 2)", "(mark 3 3)"])
    legal = game.legal_moves(state, role)
    win = next(m for m in legal if str(m) == "(mark 1 3)")
    for favourite in legal:
        net = FavouriteNet(game, state, role, favourite)
        assert _hybrid(game, net, 1.0).select(game, state, role, Limit(playouts=3000)) == win


def test_the_weight_is_a_share() -> None:
    assert parse_spec("hybrid:model=m.model,weight=0.3").options["weight"] == 0.3
    with pytest.raises(SpecError, match="between 0 and 1"):
        parse_spec("hybrid:model=m.model,weight=1.5")
    with pytest.raises(ValueError, match="between 0 and 1"):
        HybridAgent(weight=-0.1)

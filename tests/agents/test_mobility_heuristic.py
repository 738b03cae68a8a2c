"""The mobility heuristic: the probe's counts, the per-game decision, the tree's goals.

The tree's values are checked against a model written from the description: at a
node made once (one parent), each role's mobility is its legal moves there, or in the
parent where it has one there, and its heuristic goal is its share of all roles'
mobility, in whole points.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from search.tree_options import plain_options

from ggpkit.agents.mcts.agent import MCTSAgent
from ggpkit.agents.mcts.mobility_heuristic import mobility, mobility_foretells
from ggpkit.agents.mcts.options import MCTSOptions
from ggpkit.agents.mcts.probe import ProbeMatch, probe_matches
from ggpkit.games.gdl.game import load_kif_text
from ggpkit.search.options import SearchLimit

from .corpus import public
from .test_compiled_tree import random_state, tree_of
from .test_implicit_minimax import _parents


def test_a_role_without_a_choice_counts_its_last_choice() -> None:
    assert mobility((5, 1), (1, 7)) == [5, 7]
    assert mobility((3, 4), (9, 9)) == [3, 4]  # both choose now (simultaneous)
    assert mobility((1, 1), (1, 1)) == [1, 1]


def _match(a_moves: int, b_moves: int, a_wins: bool) -> ProbeMatch:
    late_moves = [((a_moves, 1), (1, b_moves)), ((1, b_moves), (a_moves, 1))]
    return ProbeMatch([], [None, None], {"a": 100 * a_wins, "b": 100 * (not a_wins)}, late_moves)


class _TwoRoles:
    roles = ("a", "b")


def test_used_where_more_moves_go_with_winning() -> None:
    rng = random.Random(3)
    samples = [(rng.randrange(1, 20), rng.randrange(1, 20), rng.random() < 0.8) for _ in range(60)]
    agree = [_match(a, b, (a > b) == keep) for a, b, keep in samples]
    disagree = [_match(a, b, (a > b) != keep) for a, b, keep in samples]
    assert mobility_foretells(_TwoRoles(), agree)  # type: ignore[arg-type]
    assert not mobility_foretells(_TwoRoles(), disagree)  # type: ignore[arg-type]
    assert not mobility_foretells(_TwoRoles(), None)  # type: ignore[arg-type]


TURNS = """
(role left) (role right)
(init (control left)) (init (count 0))
(<= (legal ?r (take ?n)) (true (control ?r)) (true (count ?c)) (option ?c ?n))
(<= (legal ?r noop) (role ?r) (not (true (control ?r))))
(<= (next (count ?n)) (does ?r (take ?n)))
(<= (next (control left)) (true (control right)))
(<= (next (control right)) (true (control left)))
(option 0 1) (option 0 2) (option 1 2) (option 1 3) (option 1 4) (option 2 3) (option 3 4)
(option 2 4)
(<= terminal (true (count 4)))
(<= (goal left 100) (true (control right)))
(<= (goal left 0) (true (control left)))
(<= (goal right 100) (true (control left)))
(<= (goal right 0) (true (control right)))
"""
"""Turns take a number above the count (options fixed per count): the moves each side
has depend on the state, so the counts before and now differ."""


def _spaced(items: list[Any]) -> list[Any]:
    step = max(1, len(items) // 6)
    return items[::step][:6]


def test_the_probe_records_each_roles_moves_now_and_before() -> None:
    """A model of the probe: the same random stream replayed; the second half's states
    evenly spaced, six at most, each with the roles' move counts there and before."""
    game = load_kif_text(TURNS, reasoner="propnet")
    matches = probe_matches(game, random.Random(1))
    assert matches is not None
    rng = random.Random(1)
    for match in matches:
        state, line, counts = game.initial_state(), [], []
        while not game.is_terminal(state):
            legal = game.all_legal_moves(state)
            line.append(state)
            counts.append(tuple(len(ms) for ms in legal))
            state = game.next_state(state, [rng.choice(ms) for ms in legal])
        half = len(line) // 2
        before = [counts[max(0, k - 1)] for k in range(len(counts))]
        assert match.late == _spaced(line[half:])
        assert match.late_moves == list(
            zip(_spaced(counts[half:]), _spaced(before[half:]), strict=True)
        )


def _model(game: Any, arrays: Any, node: int, parent: int) -> list[int]:
    reasoner = game.reasoner
    nroles = len(game.roles)
    now = [len(reasoner.legal(_bytes(arrays[0][node]), r)) for r in range(nroles)]
    before = [len(reasoner.legal(_bytes(arrays[0][parent]), r)) for r in range(nroles)]
    counts = mobility(tuple(now), tuple(before))
    return [int(100.0 * c / sum(counts)) for c in counts]


@pytest.mark.parametrize("name", ["knightThrough", "reversi"])
def test_the_trees_heuristic_goals_are_the_roles_shares_of_their_moves(name: str) -> None:
    game = public(name)
    search = tree_of(game).tree  # type: ignore[attr-defined]
    state = random_state(game, 6, random.Random(2))
    search.search(
        game.reasoner.bits(state),
        SearchLimit(iterations=3000),
        plain_options(c=0.4, leaf=1, seed=3, paths=16, goals=0.5, mobility=1.0),
    )
    arrays, nodes = search._tree, int(search._sizes[0])
    parents = _parents(arrays, nodes)
    checked = 0
    for parent in range(nodes):
        first, n = int(arrays[1][parent]), int(arrays[2][parent])
        for e in range(first, first + max(0, n)):
            child = int(arrays[9][e])
            if child < 0 or parents[child] != 1 or arrays[18][child, 0] < 0:
                continue
            expected = _model(game, arrays, child, parent)
            assert [round(100 * v) for v in arrays[18][child]] == expected
            checked += 1
    assert checked > 100


def test_without_mobility_the_goals_are_the_states() -> None:
    game = public("checkersSmall")  # goals in every state
    search = tree_of(game).tree  # type: ignore[attr-defined]
    search.search(
        game.reasoner.bits(game.initial_state()),
        SearchLimit(iterations=500),
        plain_options(c=0.4, leaf=1, seed=3, paths=16, goals=0.5),
    )
    arrays, root = search._tree, search._root
    child = int(arrays[9][int(arrays[1][root])])
    goals = game.goals(_bytes(arrays[0][child]))
    assert [round(100 * v) for v in arrays[18][child]] == [goals[r] for r in game.roles]


def _bytes(row: Any) -> bytes:
    return bytes(np.packbits(row, bitorder="little"))


@pytest.mark.parametrize(
    ("name", "options", "used"),
    [
        ("knightThrough", {"mobility": 0.3}, False),  # pieces: the material heuristic
        ("connectFour", {"mobility": 0.3}, False),  # its mobility says nothing of the result
        ("checkersSmall", {"mobility": 0.3}, False),  # its goals do: the goal heuristic
        ("checkersSmall", {"goals": 0.0, "material": 0.0, "mobility": 0.3}, True),
        ("checkersSmall", {"goals": 0.0, "material": 0.0}, False),  # off unless asked for
    ],
)
def test_decided_per_game_only_where_no_other_heuristic_is(
    name: str, options: dict[str, float], used: bool
) -> None:
    game = public(name)
    agent = MCTSAgent(seed=1, options=MCTSOptions(**options))
    agent.start(game, game.roles[0])
    assert agent.compiled_tree is not None
    decided = agent.compiled_tree.heuristics
    assert decided.by_mobility is used
    assert (decided.goals == 0.3) is used
    agent.stop()


def test_asked_for_it_reaches_every_search(monkeypatch: pytest.MonkeyPatch) -> None:
    game = public("checkersSmall")
    agent = MCTSAgent(seed=1, options=MCTSOptions(goals=0.0, material=0.0, mobility=0.4))
    agent.start(game, game.roles[0])
    assert agent.compiled_tree is not None
    decided = agent.compiled_tree.heuristics
    assert decided.by_mobility and decided.goals == 0.4
    tree = agent.compiled_tree.tree
    asked: list[Any] = []
    search = tree.search

    def spy(*args: Any, **kwargs: Any) -> Any:
        options = args[2]  # (state, limit, options, role)
        asked.append((options.mobility > 0, options.goals))
        return search(*args, **kwargs)

    monkeypatch.setattr(tree, "search", spy)
    from ggpkit.agents.base import Limit

    agent.select(game, game.initial_state(), game.roles[0], Limit(playouts=640))
    assert asked and set(asked) == {(True, 0.4)}
    agent.stop()

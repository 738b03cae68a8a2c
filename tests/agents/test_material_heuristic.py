"""The material heuristic: pieces found by random matches, counted at the compiled tree's leaves."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ggpkit.agents.base import Limit
from ggpkit.agents.mcts.agent import MCTSAgent
from ggpkit.agents.mcts.material_check import pieces_guide_play
from ggpkit.agents.mcts.material_heuristic import MATERIAL_WEIGHT, MAX_CANDIDATE_SETS, material_sets
from ggpkit.agents.mcts.options import MCTSOptions
from ggpkit.agents.mcts.probe import ProbeMatch, probe_matches
from ggpkit.agents.specs import SpecError, make_agent
from ggpkit.games.recognition.recognise import recognise
from ggpkit.games.registry import load
from ggpkit.gdl.terms import Func, func
from ggpkit.search.tree import kernels as tk
from ggpkit.search.tree.array_tree import ArrayTree

from .corpus import public


def _colours(pieces: frozenset[object]) -> set[str]:
    return {str(f.args[2]) for f in pieces if isinstance(f, Func)}


@pytest.mark.parametrize("name", ["breakthroughSmall", "breakthroughSmallHoles"])
def test_breakthroughs_pawns_are_found_for_each_role(name: str) -> None:
    game = public(name)
    pieces = material_sets(game, probe_matches(game, random.Random(1)) or [])
    assert pieces is not None
    assert [_colours(p) for p in pieces] == [{"white"}, {"black"}]
    assert all(len(p) >= 12 for p in pieces)  # pawns seen on many squares


@pytest.mark.parametrize("name", ["connectFour", "pentago", "sheepAndWolf"])
def test_games_whose_piece_counts_say_nothing_have_no_material(name: str) -> None:
    game = public(name)
    assert material_sets(game, probe_matches(game, random.Random(1)) or []) is None


def _queue(rows: list[list[int]], terminal: list[bool]) -> tuple[np.ndarray, ...]:
    """A batch's scratch holding children ``rows`` (two uint64 words each)."""
    tree = ArrayTree(2, 2, np.uint64, np.array([0, 1, 2], dtype=np.int64), max_nodes=1000)
    q = tree._queue(len(rows))
    for j, row in enumerate(rows):
        q[4][j, :] = np.array(row, dtype=np.uint64)
        q[10][j] = j
        q[8][j] = terminal[j]
        q[9][j, :] = (100, 0) if terminal[j] else (-5, -5)
    return q


def test_a_leaf_is_valued_by_the_pieces_won_since_the_root() -> None:
    masks = np.array([[0b1111111111, 0], [0, 0b1111111111]], dtype=np.uint64)
    base = np.array([10.0, 10.0])  # ten pawns each at the root
    rows = [
        [0b1111111111, 0b111111111],  # white took a black pawn
        [0b1111111111, 0b1111111111],  # nothing taken
        [0b111111111, 0b1111111111],  # black took a white pawn
        [0b1, 0b1],  # terminal: real goals kept
        [0, 0],  # no pieces at all: no heuristic value
    ]
    q = _queue(rows, [False, False, False, True, False])
    tk.material_goals(q, len(rows), masks, base)
    goal = q[9]
    assert goal[0, 0] > 60 > 40 > goal[0, 1]  # one pawn of ten is worth much
    assert abs(goal[0, 0] + goal[0, 1] - 100) <= 1
    assert goal[1, 0] == goal[1, 1] == 50
    assert goal[2, 0] == goal[0, 1] and goal[2, 1] == goal[0, 0]
    assert list(goal[3]) == [100, 0]
    assert list(goal[4]) == [-1, -1]


def test_a_material_lead_at_the_root_is_the_reference_not_a_bonus() -> None:
    masks = np.array([[0b1111111111, 0], [0, 0b1111111111]], dtype=np.uint64)
    base = np.array([10.0, 6.0])  # white is four pawns up at the root
    q = _queue([[0b1111111111, 0b111111]], [False])  # and nothing changed
    tk.material_goals(q, 1, masks, base)
    assert list(q[9][0]) == [50, 50]


def _array_tree(agent: MCTSAgent) -> ArrayTree:
    """The array tree inside the agent's compiled tree (behind any renaming)."""
    tree: object = agent.compiled_tree
    while not isinstance(tree, ArrayTree):
        tree = tree.tree  # type: ignore[attr-defined]
    return tree


def test_the_native_tree_of_a_recognised_public_file_counts_the_pieces() -> None:
    """The pieces are found in the rules' names and reach the native engine's rows."""
    game = recognise(public("breakthroughSmallHoles"), seconds=60)
    assert game is not None and "Breakthrough" in type(game).__name__
    agent = MCTSAgent(seed=1)
    agent.start(game, game.roles[0])
    assert agent.compiled_tree is not None
    decided = agent.compiled_tree.heuristics
    assert decided.goals == MATERIAL_WEIGHT and len(decided.pieces) == 2
    agent.select(game, game.initial_state(), game.roles[0], Limit(playouts=20_000))
    tree = _array_tree(agent)
    assert tree.material.shape == (2, 3) and tree.material[:, :2].any()
    assert list(tree.material_base) == [12.0, 12.0]
    valued = tree._tree[18][: tree._sizes[0], 0]
    assert (valued >= 0).sum() > 100  # leaves carry heuristic values


def test_the_propnet_tree_counts_the_pieces() -> None:
    game = public("breakthroughSmall")
    agent = MCTSAgent(seed=1)
    agent.start(game, game.roles[0])
    assert agent.compiled_tree is not None
    assert agent.compiled_tree.heuristics.goals == MATERIAL_WEIGHT
    agent.select(game, game.initial_state(), game.roles[0], Limit(playouts=20_000))
    tree = _array_tree(agent)
    assert list(tree.material_base) == [12.0, 12.0]
    assert (tree._tree[18][: tree._sizes[0], 0] >= 0).sum() > 100


def test_material_zero_turns_it_off_and_the_spec_takes_a_share() -> None:
    game = public("breakthroughSmall")
    agent = MCTSAgent(options=MCTSOptions(material=0.0))
    agent.start(game, game.roles[0])
    assert agent.compiled_tree is not None
    decided = agent.compiled_tree.heuristics
    assert decided.goals == 0.0 and decided.pieces == ()
    told = make_agent("mcts:material=0.3")
    assert isinstance(told, MCTSAgent) and told.options.material == 0.3
    with pytest.raises(SpecError):
        make_agent("mcts:material=2")


@pytest.mark.parametrize("name", ["breakthrough-holes-capture", "pawn-checkers-barrel"])
def test_a_native_games_piece_facts_are_the_bits_of_its_rows(name: str) -> None:
    """Along a random line, the bits ``fact_bit`` gives are exactly the row's pieces."""
    game = load(name)
    kernels = game.info.capabilities.tree_search.kernels  # type: ignore[union-attr]
    rng = random.Random(3)
    state = game.initial_state()
    for _ in range(30):
        row = kernels.row(state)
        placed = [kernels.fact_bit(f) for f in game.facts(state)]
        bits = [p for p in placed if p is not None]
        assert len(bits) >= 2
        rebuilt = np.zeros(2, dtype=np.uint64)
        for word, bit in bits:
            rebuilt[word] |= np.uint64(1) << np.uint64(bit)
        assert list(rebuilt) == list(row[:2])
        if game.is_terminal(state):
            break
        state = game.next_state(state, [rng.choice(m) for m in game.all_legal_moves(state)])


class _Facts:
    """A two-role stand-in whose states are their own fact sets."""

    roles = ("a", "b")

    def facts(self, state: frozenset[Func]) -> frozenset[Func]:
        return state


def _board(pieces_a: int, pieces_b: int, noise: int) -> frozenset[Func]:
    """``(board x y pa|pb)`` pawns, and ``noise`` other board-like relations."""
    facts = {func("board", x, 1 + x % 3, "pa") for x in range(1, pieces_a + 1)}
    facts |= {func("board", x, 1 + x % 3, "pb") for x in range(1, pieces_b + 1)}
    for k in range(noise):
        facts |= {func(f"noise{k}", x, 1, t) for x in range(1, 7) for t in ("u", "v")}
    return frozenset(facts)


def _matches(noise: int) -> list[ProbeMatch]:
    """Matches where the side that loses pawns loses the match."""
    out = []
    for i in range(40):
        a_wins = i % 2 == 0
        late = [_board(6 - s * (not a_wins), 6 - s * a_wins, noise) for s in range(3)]
        out.append(ProbeMatch([], late, {"a": 100 * a_wins, "b": 100 * (not a_wins)}))
    return out


def test_the_pieces_of_a_plain_board_are_found() -> None:
    pieces = material_sets(_Facts(), _matches(noise=0))  # type: ignore[arg-type]
    assert pieces is not None
    assert [{str(f.args[2]) for f in p} for p in pieces] == [{"pa"}, {"pb"}]


def test_rules_with_too_many_candidate_sets_are_not_searched() -> None:
    """Hostile rules could spend the start clock on pairs: past the bound, no heuristic."""
    many = MAX_CANDIDATE_SETS // 2  # two sets each, and the board's two
    assert material_sets(_Facts(), _matches(noise=many)) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "guides"), [
    ("breakthroughSmall", True), ("breakthroughSmallHoles", True),
    ("breakthroughSuicideSmall", False),
])  # fmt: skip
def test_pieces_are_kept_only_where_a_greedy_player_by_them_beats_random(
    name: str, guides: bool
) -> None:
    """Suicide breakthrough's random matches run as breakthrough's, so its counts go with
    the results as well (the sides flipped); a greedy player by them gains nothing. (The
    8x8 boards are left out: about 18 greedy matches end in the check's CPU second here,
    and fewer than ten on a slower machine keep the pieces.)"""
    game = public(name)
    matches = probe_matches(game, random.Random(1)) or []
    pieces = material_sets(game, matches)
    assert pieces is not None
    assert pieces_guide_play(game, pieces, matches, random.Random(2)) is guides
    agent = MCTSAgent(seed=1)
    agent.start(game, game.roles[0])
    assert agent.compiled_tree is not None
    assert (agent.compiled_tree.heuristics.pieces != ()) is guides
    asked = MCTSAgent(options=MCTSOptions(material=0.4))  # a weight asked for is not checked
    asked.start(game, game.roles[0])
    assert asked.compiled_tree is not None and asked.compiled_tree.heuristics.goals == 0.4

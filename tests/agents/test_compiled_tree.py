"""The compiled MCTS tree of propnet games, against the generic solver and the game API.

Public games come from ../shared/ggp-games (skipped when absent); ggpkit's own GDL
twins are always here.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import numpy as np
import pytest
from search.tree_options import plain_options

import ggpkit
from ggpkit.agents.base import Limit
from ggpkit.agents.mcts.agent import MCTSAgent
from ggpkit.agents.mcts.options import MCTSOptions
from ggpkit.agents.solvers.generic import GenericSolver
from ggpkit.agents.specs import make_agent
from ggpkit.games.api import Game
from ggpkit.games.gdl.game import load_kif_text
from ggpkit.search.contract import TreeSearch
from ggpkit.search.options import SearchLimit

from .corpus import public


def tree_of(game: Game[Any]) -> TreeSearch:
    make = game.info.capabilities.tree_search
    assert make is not None, f"{game.name} on the propnet declares a compiled tree"
    return make(None)


def random_state(game: Game[Any], plies: int, rng: random.Random) -> Any:
    state = game.initial_state()
    for _ in range(plies):
        if game.is_terminal(state):
            break
        joint = [rng.choice(game.legal_moves(state, r)) for r in game.roles]
        state = game.next_state(state, joint)
    return state


SEARCHES = [
    {},
    {"mast": True},
    {"grave": 20},
    {"paths": 16},
    {"paths": 16, "greedy": True},
    {"paths": 16, "wins": True},
    {"paths": 16, "wins": True, "blunders": False},
]
"""Options of the compiled tree that change how it searches: each must stay sound."""


@pytest.mark.parametrize("options", SEARCHES)
@pytest.mark.parametrize(("name", "plies"), [("ticTacToe", 3), ("ticTacToe", 5), ("nim1", 0)])
def test_proven_values_are_the_generic_solvers(
    name: str, plies: int, options: dict[str, Any]
) -> None:
    game = public(name)
    rng = random.Random(plies)
    solver = GenericSolver(game)
    proven = 0
    for _ in range(8):
        state = random_state(game, plies, rng)
        if game.is_terminal(state):
            continue
        seed = rng.randrange(1000)
        report = tree_of(game).search(
            state,
            SearchLimit(iterations=200_000),
            plain_options(c=1.4, leaf=1, seed=seed, **options),
        )
        assert report.proven is not None, "small positions are proven within the iterations"
        exact = solver.value(state)
        assert {r: round(100 * v) for r, v in report.proven.items()} == exact
        # every proven move value is the solver's value after that move
        mover = game.role_index(report.mover)
        for move, value in zip(report.moves, report.exact, strict=True):
            if value is not None:
                joint = [move if i == mover else game.legal_moves(state, r)[0]
                         for i, r in enumerate(game.roles)]  # fmt: skip
                after = game.next_state(state, joint)
                assert round(100 * value) == solver.value(after)[report.mover]
        proven += 1
    assert proven > 0


@pytest.mark.parametrize(("paths", "blunders"), [(1, True), (64, False), (64, True)])
def test_root_statistics_cover_the_legal_moves_and_every_iteration(
    paths: int, blunders: bool
) -> None:
    """Every iteration is a root visit, but where batched paths take back the visit of
    a path that ends in a blunder (``blunders``, see tree_kernels._avoided_loss)."""
    game = public("connectFour")
    state = random_state(game, 4, random.Random(2))
    report = tree_of(game).search(
        state,
        SearchLimit(iterations=3000),
        plain_options(c=1.4, leaf=1, seed=7, paths=paths, wins=True, blunders=blunders),
    )
    mover = game.to_move(state)
    assert report.mover == mover
    assert sorted(map(str, report.moves)) == sorted(map(str, game.legal_moves(state, mover)))
    assert report.iterations == 3000
    if paths == 1 or not blunders:
        assert sum(report.visits) == 3000
    else:
        assert 2000 < sum(report.visits) < 3000
    assert all(0.0 <= m <= 1.0 for m in report.means)


@pytest.mark.parametrize("greedy", [False, True])
@pytest.mark.parametrize(("name", "leaf"), [("connectFour", 1), ("breakthroughSmall", 3)])
def test_batched_paths_count_every_visit_once(name: str, leaf: int, greedy: bool) -> None:
    """With paths played out together, a path counts its visit on the way down (a
    virtual loss) and its rewards on the way back: once all are back, every node but
    the root counts as many visits as the edges into it (more than one where states
    transpose), a path is one visit however many playouts it has (``leaf``), and every
    mean reward is within 0..1."""
    game = public(name)
    tree = tree_of(game)
    report = tree.search(
        game.initial_state(),
        SearchLimit(iterations=2000),
        plain_options(c=1.4, leaf=leaf, seed=3, paths=32, greedy=greedy),
    )
    assert report.iterations == 2000 and sum(report.visits) == 2000
    assert report.greedy == greedy
    assert report.playouts == 2000 * leaf
    arrays = tree.tree._tree  # type: ignore[attr-defined]
    nedges = int(tree.tree._sizes[1])  # type: ignore[attr-defined]
    child, count, sums = arrays[9][:nedges], arrays[11][:nedges], arrays[12][:nedges]
    stored = child >= 0
    assert stored.sum() > 1000, "the tree grew by about one node a path"
    nodes = int(tree.tree._sizes[0])  # type: ignore[attr-defined]
    into = np.bincount(child[stored], weights=count[stored], minlength=nodes)
    root = tree.tree._root  # type: ignore[attr-defined]
    assert np.delete(into == arrays[6][:nodes], root).all()
    parents = np.bincount(child[stored], minlength=nodes)
    assert parents.max() > 1, "some states are reached by two move orders"
    assert (sums >= 0).all() and (sums <= count[:, None] + 1e-9).all()


def test_a_search_from_a_child_continues_the_tree() -> None:
    game = public("connectFour")
    tree = tree_of(game)
    state = game.initial_state()
    first = tree.search(state, SearchLimit(iterations=5000), plain_options(c=1.4, leaf=1, seed=1))
    best = first.moves[max(range(len(first.visits)), key=lambda i: first.visits[i])]
    child = game.play(state, best)
    again = tree.search(child, SearchLimit(iterations=10), plain_options(c=1.4, leaf=1, seed=2))
    assert sum(again.visits) > 10  # the visits it had below the first root are kept


@pytest.mark.parametrize("options", SEARCHES)
def test_the_best_line_of_a_puzzle_scores_what_it_claims(options: dict[str, Any]) -> None:
    game = ggpkit.load("peg", engine="gdl")
    report = tree_of(game).search(
        game.initial_state(),
        SearchLimit(iterations=3000),
        plain_options(c=1.4, leaf=1, seed=3, **options),
    )
    assert report.best_line and report.best_value > 0
    state = game.initial_state()
    for move in report.best_line:
        state = game.play(state, move)
    assert game.is_terminal(state)
    assert game.goals(state)["jumper"] == round(100 * report.best_value)


def test_mcts_searches_in_the_compiled_tree_and_takes_a_win_in_one() -> None:
    game = public("ticTacToe")
    state = game.initial_state()
    # x: (1,1) (1,2); o: (2,1) (2,2); x to play and win with (mark 1 3)
    for text in ["(mark 1 1)", "(mark 2 1)", "(mark 1 2)", "(mark 2 2)"]:
        state = game.play(state, text)
    agent = MCTSAgent(seed=1)
    agent.start(game, "xplayer")
    move = agent.select(game, state, "xplayer", Limit(playouts=2000))
    assert str(move) == "(mark 1 3)"
    thoughts = agent.thoughts("xplayer")
    assert thoughts is not None and thoughts.verdict == "proved: xplayer gets 100"
    # the compiled tree's report (the search in start may have proven this state already)
    assert agent.report is not None


@pytest.mark.parametrize("greedy", [True, False])
def test_playouts_flag_the_moves_that_won_for_the_rest_of_the_match(greedy: bool) -> None:
    """The propnet tree's batched playouts, greedy or not, learn which moves end a game at
    their role's best goal (connectFour: drops, never the waiting role's noop) and keep
    them through later searches."""
    game = public("connectFour")
    tree = tree_of(game)
    tree.search(
        game.initial_state(),
        SearchLimit(iterations=640),
        plain_options(c=0.4, leaf=1, seed=3, paths=64, greedy=greedy),
    )
    flags = tree.tree._decisive.copy()  # type: ignore[attr-defined]
    net = tree.tree.net  # type: ignore[attr-defined]
    names = [str(m) for role_moves in net.moves for m in role_moves]
    flagged = {names[i] for i in np.flatnonzero(flags)}
    assert flagged and all(name.startswith("(drop") for name in flagged)
    tree.search(
        game.initial_state(),
        SearchLimit(iterations=64),
        plain_options(c=0.4, leaf=1, seed=4, paths=64, greedy=not greedy),
    )
    assert (tree.tree._decisive >= flags).all()  # type: ignore[attr-defined]


def _wins_in_one(game: Game[Any], state: Any) -> bool:
    """Whether the role to move in ``state`` (one role choosing) can end it at 100 at once."""
    if game.is_terminal(state):
        return False
    legal = [game.legal_moves(state, r) for r in game.roles]
    (mover,) = [i for i, moves in enumerate(legal) if len(moves) > 1]
    for move in legal[mover]:
        joint = [move if i == mover else moves[0] for i, moves in enumerate(legal)]
        after = game.next_state(state, joint)
        if game.is_terminal(after) and game.goals(after)[game.roles[mover]] == 100:
            return True
    return False


@pytest.mark.parametrize("wins", [True, False])
def test_a_new_node_whose_mover_wins_in_one_is_proven_when_made(wins: bool) -> None:
    """One batch of 64 paths makes every child of a connectFour root; with ``wins``, each
    child where the opponent then wins in one (the API says which) is proven lost for
    the root's mover at once, and no other is; without, none is proven yet."""
    game = public("connectFour")
    rng = random.Random(5)
    checked = 0
    while checked < 3:
        state = random_state(game, rng.randrange(6, 24), rng)
        if game.is_terminal(state) or _wins_in_one(game, state):
            continue
        tree = tree_of(game)
        tree.tree._decisive[:] = 1  # type: ignore[attr-defined]
        report = tree.search(
            state,
            SearchLimit(iterations=64),
            plain_options(c=0.4, leaf=1, seed=3, paths=64, wins=wins),
        )
        mover = game.role_index(report.mover)
        expected: list[float | None] = []
        threats = 0
        for move in report.moves:
            joint = [move if i == mover else game.legal_moves(state, r)[0]
                     for i, r in enumerate(game.roles)]  # fmt: skip
            after = game.next_state(state, joint)
            if game.is_terminal(after):  # a draw by a full board
                expected.append(game.goals(after)[report.mover] / 100)
                continue
            threat = _wins_in_one(game, after)
            threats += threat
            expected.append(0.0 if wins and threat else None)
        if threats == 0:
            continue
        assert list(report.exact) == expected
        checked += 1


@pytest.mark.parametrize("greedy", [0, 1])
def test_greedy_as_given_is_kept(greedy: int) -> None:
    game = public("breakthroughSmall")
    agent = MCTSAgent(seed=1, options=MCTSOptions(greedy=bool(greedy)))
    agent.start(game, game.roles[0])
    assert agent.options.greedy == bool(greedy)
    agent.select(game, game.initial_state(), game.roles[0], Limit(playouts=640))
    assert agent.report is not None and agent.report.greedy == bool(greedy)
    agent.stop()


@pytest.mark.parametrize(
    ("option", "given", "searched"),
    [
        ("wins", "0", False),
        ("wins", "1", True),
        ("minimax", "0.3", 0.3),
        ("minimax", "0", 0.0),
        ("blunders", "0", False),
        ("blunders", "1", True),
        ("latches", "0", False),
        ("latches", "1", True),
        ("nested", "0.5", 0.5),
        ("dfs", "0.25", 0.25),
        ("ordered", "1", True),
        ("monotone", "1", True),
        ("fill", "0", False),
    ],
)
def test_tree_options_as_given_reach_the_tree(
    option: str, given: str, searched: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``mcts:wins``, ``mcts:minimax``, ``mcts:blunders``, ``mcts:latches``,
    ``mcts:nested``, ``mcts:dfs``, ``mcts:ordered``, ``mcts:monotone`` and ``mcts:fill``
    from a spec reach every search of the compiled tree."""
    game = public("connectFour")
    agent = make_agent(f"mcts:{option}={given}", seed=1)
    assert isinstance(agent, MCTSAgent)
    agent.start(game, game.roles[0])
    assert agent.compiled_tree is not None
    tree = agent.compiled_tree.tree
    asked: list[Any] = []
    search = tree.search

    def spy(*args: Any, **kwargs: Any) -> Any:
        asked.append(getattr(args[2], option))  # (state, limit, options, role)
        return search(*args, **kwargs)

    monkeypatch.setattr(tree, "search", spy)
    agent.select(game, game.initial_state(), game.roles[0], Limit(playouts=640))
    assert asked and set(asked) == {searched}
    agent.stop()


def test_greedy_is_off_unless_asked_for_and_native_trees_say_they_ignore_it() -> None:
    """Greedy playouts are off by default; a native game's tree has its own playouts and
    reports that its searches were not greedy even when asked."""
    game = ggpkit.load("breakthrough-holes")
    assert MCTSAgent(seed=1).options.greedy is False
    agent = MCTSAgent(seed=1, options=MCTSOptions(greedy=True))
    agent.start(game, game.roles[0])
    agent.select(game, game.initial_state(), game.roles[0], Limit(playouts=640))
    assert agent.report is not None and agent.report.greedy is False
    agent.stop()


def test_compiled_0_keeps_the_python_tree() -> None:
    game = public("ticTacToe")
    agent = MCTSAgent(seed=1, options=MCTSOptions(compiled=False))
    agent.start(game, "xplayer")
    agent.select(game, game.initial_state(), "xplayer", Limit(playouts=200))
    assert agent.report is None and agent.python_tree.root is not None


def test_statistics_of_another_position_send_the_agent_to_the_python_tree() -> None:
    """A compiled report whose moves are not the legal ones (as a mis-compacted tree gave
    before stop 27) is never played from: the agent searches in Python instead."""
    game = public("ticTacToe")
    state = game.play(game.initial_state(), "(mark 2 2)")  # o to play
    elsewhere = game.initial_state()  # x to play: other moves

    class WrongRoot:
        def __init__(self, inner: TreeSearch) -> None:
            self.inner = inner

        def search(self, _state: Any, *args: Any, **kwargs: Any) -> Any:
            report = self.inner.search(elsewhere, *args, **kwargs)
            return dataclasses.replace(report, mover="oplayer")

    agent = MCTSAgent(seed=1)
    agent.start(game, "oplayer")
    assert agent.compiled_tree is not None
    agent.compiled_tree.tree = WrongRoot(tree_of(game))
    move = agent.select(game, state, "oplayer", Limit(playouts=500))
    assert move in game.legal_moves(state, "oplayer")
    assert agent.compiled_tree is None and agent.python_tree.root is not None


def test_mast_credits_the_moves_of_its_playouts_with_their_rewards() -> None:
    game = public("connectFour")
    tree = tree_of(game)
    stats = tree.tree._mast  # type: ignore[attr-defined]
    tree.search(
        game.initial_state(), SearchLimit(iterations=300), plain_options(c=1.4, leaf=64, seed=5)
    )
    assert stats[:, 1].sum() == 0, "MAST learns nothing while it is off"
    report = tree.search(
        game.initial_state(),
        SearchLimit(iterations=300),
        plain_options(c=1.4, leaf=64, seed=5, mast=True),
    )
    assert report.playouts == report.iterations == 300, "one playout per leaf"
    counts, sums = stats[:, 1], stats[:, 0]
    assert counts.sum() >= 300 * 7, "every playout plays at least 7 moves, each credited"
    assert (sums <= counts).all() and (sums >= 0).all(), "rewards are within 0..1"


@pytest.mark.parametrize("leaf", [1, 64])
def test_grave_counts_each_root_move_in_every_iteration_that_plays_it(leaf: int) -> None:
    """All moves as first at the root, in a real search: a column counts at most once an
    iteration, and at least whenever it was the root's move. The playouts' moves count
    too: the first player uses several columns in a random game, far more than the
    tree's one or two moves of that player in a pass of 400 iterations. A batch of 64
    playouts counts as 64 samples, in the visits and in these counts alike."""
    game = public("connectFour")
    tree = tree_of(game)
    report = tree.search(
        game.initial_state(),
        SearchLimit(iterations=400),
        plain_options(c=1.4, leaf=leaf, seed=5, grave=20),
    )
    assert report.iterations == 400 and report.playouts == 400 * leaf
    arrays = tree.tree._tree  # type: ignore[attr-defined]
    first, n = int(arrays[1][0]), int(arrays[2][0])
    counts, amaf = arrays[11][first : first + n], arrays[13][first : first + n]
    assert (amaf >= counts).all() and (amaf <= 400 * leaf).all()
    assert 3 * 400 * leaf <= amaf.sum() <= n * 400 * leaf
    wins = arrays[14][first : first + n]
    assert (wins >= 0).all() and (wins <= amaf).all(), "rewards are within 0..1"


def test_all_moves_as_first_counts_moves_played_at_or_below_each_node() -> None:
    """GRAVE's backup on a hand-made path: root (role 0 moves 10..13) -> edge 11 ->
    node 1 (role 1 moves 11, 20, 21, 22) -> edge 21 -> a leaf, then a playout of
    12, 20, 10, 21. A move counts at a node when its mover played it there or later;
    11 was played only above node 1, 13 and 22 never."""
    import numpy as np

    from ggpkit.search.propnet import kernels as sk
    from ggpkit.search.tree.array_tree import tree_arrays

    tree = tree_arrays(4, 1, 2, np.uint8)
    first, nedge, mover, emove = tree[1], tree[2], tree[3], tree[10]
    edges = {0: [10, 11, 12, 13], 1: [11, 20, 21, 22]}
    for node, moves in edges.items():
        first[node], nedge[node], mover[node] = 4 * node, len(moves), node
        emove[4 * node : 4 * node + len(moves)] = moves
    seen = np.full(32, -1, dtype=np.int64)
    path_n, path_e = np.array([0, 1]), np.array([1, 6])
    played = np.array([12, 20, 10, 21])
    sk._amaf_backup(tree, path_n, path_e, 2, 2, played, 4, np.array([1.0, 0.25]), 2.0, seen)
    assert list(tree[13][:8]) == [2, 2, 2, 0, 0, 2, 2, 0], "two samples (a batch's weight)"
    assert list(tree[14][:8]) == [2, 2, 2, 0, 0, 0.5, 0.5, 0], "each node's mover's reward"
    assert (seen == -1).all(), "the scratch is left clean"


def test_a_move_proven_to_lose_is_never_chosen_nor_merged_however_visited() -> None:
    from ggpkit.agents.mcts.choice import report_choice
    from ggpkit.gdl.kif import parse_term
    from ggpkit.search.contract import TreeReport

    moves = tuple(parse_term(t) for t in ("(a)", "(b)", "(c)"))
    report = TreeReport(
        mover="x", moves=moves, visits=(900.0, 60.0, 40.0), means=(0.9, 0.5, 0.4),
        exact=(0.0, None, None), proven=None, iterations=1000, playouts=1000.0,
    )  # fmt: skip
    assert report_choice(report) == 1
    agent = MCTSAgent(seed=1)
    agent.report = report
    assert agent.root_visits("x") == {moves[1]: 60, moves[2]: 40}, "what the workers' merge sees"


def test_the_python_tree_never_plays_a_move_proven_to_lose_however_visited() -> None:
    game = public("ticTacToe")
    state = game.initial_state()
    # x in opposite corners, o in the centre: o loses to a fork if it takes a corner
    for text in ["(mark 1 1)", "(mark 2 2)", "(mark 3 3)"]:
        state = game.play(state, text)
    agent = MCTSAgent(seed=3, options=MCTSOptions(compiled=False))
    agent.start(game, "oplayer")
    agent.select(game, state, "oplayer", Limit(playouts=20000))
    root = agent.python_tree.root
    assert root is not None
    r = game.role_index("oplayer")
    losing = [i for i, v in enumerate(agent.python_tree.exact(root, r)) if v == 0.0]
    assert losing, "the corner moves are proven lost"
    for i in losing:  # give the proven losses the most visits: still never chosen
        root.counts[r][i] = 10**6
    assert agent.python_tree.final_choice(root, r) not in losing
    assert all(root.moves[r][i] not in agent.root_visits("oplayer") for i in losing)


def _subtree(arrays: Any, node: int) -> tuple[Any, ...]:
    """Everything the tree knows below ``node``, independent of where it is stored."""
    first, n = int(arrays[1][node]), int(arrays[2][node])
    edges = tuple(
        (
            int(arrays[10][e]),
            float(arrays[11][e]),
            tuple(arrays[12][e]),
            None if arrays[9][e] < 0 else _subtree(arrays, int(arrays[9][e])),
        )
        for e in range(first, first + max(0, n))
    )
    node_data = (bytes(arrays[0][node]), float(arrays[6][node]), int(arrays[7][node]))
    return (node_data, tuple(arrays[8][node]), int(arrays[3][node]), edges)


def _count(sub: tuple[Any, ...]) -> int:
    return 1 + sum(_count(e[3]) for e in sub[3] if e[3] is not None)


def test_compaction_keeps_the_new_roots_subtree_exactly() -> None:
    from ggpkit.search.tree import kernels as tk

    game = public("connectFour")
    search = tree_of(game).tree  # type: ignore[attr-defined]
    search.search(
        game.reasoner.bits(game.initial_state()),
        SearchLimit(iterations=3000),
        plain_options(c=1.4, leaf=1, seed=4),
    )
    arrays, sizes = search._tree, search._sizes

    def most_visited_child(node: int) -> int:
        edges = range(int(arrays[1][node]), int(arrays[1][node]) + int(arrays[2][node]))
        return max((int(arrays[9][e]) for e in edges), key=lambda c: arrays[6][c])

    grandchild = most_visited_child(most_visited_child(0))
    before = _subtree(arrays, grandchild)
    assert _count(before) > 50
    tk.compact(arrays, sizes, grandchild, search._newid, search._order)
    assert _subtree(arrays, 0) == before
    assert sizes[0] == _count(before) and sizes[0] < 3000
    first, nedge = arrays[1][: sizes[0]], arrays[2][: sizes[0]]
    assert (first + np.maximum(nedge, 0)).max() == sizes[1], "the edges are packed"


def _reachable(arrays: Any, root: int) -> dict[bytes, tuple[Any, ...]]:
    """Each node reachable from ``root``, by its state: its data and edges, with children
    named by their states (so two stores of one graph compare equal)."""
    seen: dict[bytes, tuple[Any, ...]] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        key = bytes(arrays[0][node])
        if key in seen:
            continue
        first, n = int(arrays[1][node]), max(0, int(arrays[2][node]))
        children = [int(arrays[9][e]) for e in range(first, first + n)]
        edges = tuple(
            (int(arrays[10][e]), float(arrays[11][e]), tuple(arrays[12][e]),
             None if ch < 0 else bytes(arrays[0][ch]))
            for e, ch in zip(range(first, first + n), children, strict=True)
        )  # fmt: skip
        seen[key] = (float(arrays[6][node]), int(arrays[7][node]), int(arrays[3][node]), edges)
        stack.extend(ch for ch in children if ch >= 0)
    return seen


def test_compaction_puts_the_new_root_first_when_its_subtree_holds_older_nodes() -> None:
    """A transposition can make a node older than the new root part of its subtree; the
    root must still end up in slot 0, where the search goes on from."""
    from ggpkit.search.tree import kernels as tk

    game = public("connectFour")
    search = tree_of(game).tree  # type: ignore[attr-defined]
    search.search(
        game.reasoner.bits(game.initial_state()),
        SearchLimit(iterations=20_000),
        plain_options(c=0.4, leaf=1, seed=4, paths=64),
    )
    arrays, sizes = search._tree, search._sizes

    def children(node: int) -> list[int]:
        first, n = int(arrays[1][node]), max(0, int(arrays[2][node]))
        return [int(arrays[9][e]) for e in range(first, first + n) if arrays[9][e] >= 0]

    def holds_older(node: int) -> bool:
        reach = _reachable(arrays, node)
        index = {bytes(arrays[0][k]): k for k in range(int(sizes[0]))}
        return min(index[key] for key in reach) < node

    level = [0]
    for _ in range(4):  # four plies down: the tree grew there long after its start
        level = [ch for node in level for ch in children(node)]
    root = next(node for node in level if len(children(node)) > 2 and holds_older(node))
    before, root_state = _reachable(arrays, root), bytes(arrays[0][root])
    tk.compact(arrays, sizes, root, search._newid, search._order)
    assert bytes(arrays[0][0]) == root_state
    assert _reachable(arrays, 0) == before
    assert sizes[0] == len(before)


def test_a_full_tree_keeps_the_new_roots_subtree_instead_of_starting_again() -> None:
    game = public("connectFour")
    make = game.info.capabilities.tree_search
    assert make is not None
    search = make(1000).tree  # type: ignore[attr-defined]
    bits = game.reasoner.bits(game.initial_state())  # type: ignore[attr-defined]
    first = search.search(bits, SearchLimit(iterations=3000), plain_options(c=1.4, leaf=1, seed=4))
    assert search._sizes[0] == search.capacity, "3000 iterations fill 1000 nodes"
    again = search.search(bits, SearchLimit(iterations=10), plain_options(c=1.4, leaf=1, seed=5))
    assert sum(again.visits) == sum(first.visits) + 10, "the full tree was kept"


def test_a_move_too_short_for_one_compiled_batch_is_searched_with_clocked_playouts() -> None:
    game = public("connectFour")
    agent = MCTSAgent(seed=1)
    agent.start(game, "red")
    assert agent._batch_seconds > 0, "the start times one batch of playouts"
    agent._batch_seconds = 2.0  # as if one batch took 2 s (chess_200's takes about 3)
    agent.select(game, game.initial_state(), "red", Limit(time=0.4))
    assert agent._clocked and agent.report is None, "the Python tree searched"
    assert agent.last_iterations > 0
    agent._batch_seconds = 0.001
    agent.select(game, game.initial_state(), "red", Limit(time=0.4))
    assert not agent._clocked and agent.report is not None, "the compiled tree searched"


def test_every_compiled_call_runs_a_whole_batch_of_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch costs one 64-lane pass however few paths share it: on a network where
    every call is slow (here a clock that moves half a second a reading), a call must
    still run all the batch's paths, not one (quarto ran 30 iterations a second)."""
    import itertools
    import types

    from ggpkit.search.tree import array_tree

    clock = itertools.count(0.0, 0.5)
    monkeypatch.setattr(array_tree, "time", types.SimpleNamespace(perf_counter=lambda: next(clock)))
    game = public("connectFour")
    report = tree_of(game).search(
        game.initial_state(), SearchLimit(time=2.0), plain_options(c=0.4, leaf=1, seed=1, paths=64)
    )
    assert report.iterations >= 64


def test_a_search_starts_no_call_it_expects_to_overrun(monkeypatch: pytest.MonkeyPatch) -> None:
    """A compiled call cannot be stopped: with calls of 0.3 s and 1 s to search, the
    third call ends at 0.9 s and a fourth would end at 1.2 s, so it is not started."""
    import time

    from ggpkit.search.tree import kernels as tk

    game = public("connectFour")
    search = tree_of(game).tree  # type: ignore[attr-defined]
    calls: list[int] = []

    def slow(n: int, *args: Any) -> tuple[int, int, float]:
        time.sleep(0.3)
        calls.append(n)
        return tk.STOP_DONE, n, float(n)

    monkeypatch.setattr(search, "_iterate", slow)
    search.search(
        game.reasoner.bits(game.initial_state()),
        SearchLimit(time=1.0),
        plain_options(c=0.4, leaf=1, seed=1, paths=64),
    )
    assert 2 <= len(calls) <= 3


@pytest.mark.parametrize("plies", [0, 6, 12])
def test_the_goal_heuristic_values_a_leaf_at_its_states_goals(plies: int) -> None:
    """With the whole weight on the goal heuristic, one path per root move values each
    move at the goals the game API gives its child state (checkersSmall's goals count
    pieces in every state): the stepper's goals of non-terminal states are the rules'."""
    game = public("checkersSmall")
    state = random_state(game, plies, random.Random(plies))
    mover = game.to_move(state)
    assert mover is not None
    moves = game.legal_moves(state, mover)
    count = len(moves) + len(moves) % 2  # whole batches of two paths
    report = tree_of(game).search(
        state,
        SearchLimit(iterations=count),
        plain_options(c=0.4, leaf=1, seed=5, paths=2, goals=1.0),
    )
    checked = 0
    for move, visits, mean, exact in zip(
        report.moves, report.visits, report.means, report.exact, strict=True
    ):
        child = game.play(state, move)
        expected = game.goals(child)[mover] / 100.0
        if exact is not None:
            assert exact == expected
        elif visits == 1:
            assert mean == pytest.approx(expected), move
            checked += 1
    assert checked >= len(moves) - 1


def test_without_the_goal_heuristic_a_leaf_is_worth_its_playouts_alone() -> None:
    """goals=0 (the default) never reads the states' goals: on checkersSmall every
    child of the start gives 50, and its random playouts do not all end in draws."""
    game = public("checkersSmall")
    state = game.initial_state()
    mover = game.to_move(state)
    assert mover is not None
    moves = game.legal_moves(state, mover)
    assert all(game.goals(game.play(state, m))[mover] == 50 for m in moves)
    report = tree_of(game).search(
        state, SearchLimit(iterations=8 * len(moves)), plain_options(c=0.4, leaf=1, seed=5, paths=2)
    )
    assert any(m != pytest.approx(0.5) for m in report.means)


def test_a_search_where_the_role_has_no_choice_is_kept_for_its_next_move() -> None:
    # What the GGP player does on the opponent's turn (see Agent.ponders).
    game = public("connectFour")
    first, second = game.roles
    agent = MCTSAgent(seed=5)
    assert agent.ponders
    agent.start(game, first)
    opening = game.initial_state()
    state = game.next_state(opening, [game.legal_moves(opening, first)[0], "noop"])
    assert [str(m) for m in game.legal_moves(state, first)] == ["noop"]
    assert str(agent.select(game, state, first, Limit(time=0.3))) == "noop"
    assert agent.last_iterations > 0
    replies = agent.root_visits(second)
    reply = max(replies, key=lambda m: replies[m])
    child = game.next_state(state, ["noop", reply])
    agent.select(game, child, first, Limit(playouts=64))
    assert agent.last_playouts <= 64
    # The reply's subtree, searched on the opponent's turn, is the new root's.
    assert sum(agent.root_visits(first).values()) > replies[reply] // 2 > 64
    agent.stop()


GIVE_UP = """
(role solver)
(init (step 0))
(secret 0 1) (secret 1 0) (secret 2 1) (secret 3 1) (secret 4 0) (secret 5 1) (secret 6 0)
(bit 0) (bit 1)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7)
(legal solver giveup)
(<= (legal solver (choose ?b)) (bit ?b))
(<= (next (chose ?n ?b)) (does solver (choose ?b)) (true (step ?n)))
(<= (next (chose ?n ?b)) (true (chose ?n ?b)))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= (next gaveup) (does solver giveup))
(<= wrong (true (chose ?n ?b)) (secret ?n ?c) (distinct ?b ?c))
(<= terminal (true gaveup))
(<= terminal (true (step 7)))
(<= (goal solver 5) (true gaveup))
(<= (goal solver 100) (not (true gaveup)) (not wrong))
(<= (goal solver 0) (not (true gaveup)) wrong)
"""
"""A combination of seven bits, or give up for 5 (legal throughout)."""


def test_the_compiled_tree_waits_while_an_early_end_below_the_top_stays_open() -> None:
    """As in test_mcts: the tree's best line gives up (5) at once; it is played only at
    the last step, where no other move keeps it open."""
    game = load_kif_text(GIVE_UP, "giveup")
    for seed in range(4):
        agent = make_agent("mcts:dfs=0", seed=seed)
        agent.start(game, "solver")
        state, moves = game.initial_state(), []
        while not game.is_terminal(state):
            moves.append(str(agent.select(game, state, "solver", Limit(playouts=64))))
            state = game.play(state, moves[-1])
        assert game.goals(state)["solver"] in (5, 100), moves
        assert "giveup" not in moves[:-1] and len(moves) == 7, moves


TRAPS = """
(role solver)
(init (step 0))
(trap 1) (trap 2) (trap 3) (trap 4) (trap 5) (trap 6) (trap 7) (trap 8) (trap 9)
(secret 1 1) (secret 2 0) (secret 3 1) (secret 4 1) (secret 5 0) (secret 6 0)
(secret 7 1) (secret 8 0) (secret 9 1) (secret 10 1)
(bit 0) (bit 1)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8)
(succ 8 9) (succ 9 10) (succ 10 11)
(<= (legal solver go) (true (step 0)))
(<= (legal solver (spring ?i)) (true (step 0)) (trap ?i))
(<= (legal solver (choose ?b)) (true (step ?n)) (distinct ?n 0) (bit ?b))
(<= (next sprung) (does solver (spring ?i)))
(<= (next (chose ?n ?b)) (does solver (choose ?b)) (true (step ?n)))
(<= (next (chose ?n ?b)) (true (chose ?n ?b)))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= wrong (true (chose ?n ?b)) (secret ?n ?c) (distinct ?b ?c))
(<= terminal (true sprung))
(<= terminal (true (step 11)))
(<= (goal solver 100) (not (true sprung)) (not wrong))
(<= (goal solver 0) (true sprung))
(<= (goal solver 0) (not (true sprung)) wrong)
"""
"""Nine first moves spring a trap (0 at once); ``go`` goes on to ten bits (random
playouts find their one line worth 100 once in some 10,000)."""


def test_the_compiled_tree_never_follows_a_worthless_line_into_a_proven_loss() -> None:
    """As in test_mcts: the line kept is most likely a trap (worth 0, as every line
    seen); the tree proves the traps lost while ``go`` is open."""
    game = load_kif_text(TRAPS, "traps")
    for seed in range(6):
        agent = make_agent("mcts:dfs=0,latches=0", seed=seed)  # (latches prove `go` won)
        agent.start(game, "solver")
        move = agent.select(game, game.initial_state(), "solver", Limit(playouts=640))
        assert str(move) == "go", seed
        agent.stop()

"""Monte Carlo tree search (UCT) for any game through the game API.

Why these choices:

* **Any number of roles, general-sum.** Rewards are the goals scaled to 0..1, one per
  role, and every role maximises its own reward. In a turn-taking state only the
  mover has a choice, so this is plain UCT. In a simultaneous state the selection
  is *decoupled*: each role with a choice picks its own move from its own
  statistics at that node (a role never sees the others' choice of the moment),
  by Exp3 rather than UCB: deterministic UCB makes symmetric roles explore in
  lockstep (in a prisoner's dilemma both try "defect" at once and never see the
  payoff of defecting alone), while Exp3 samples independently and its visit
  frequencies approach a mixed equilibrium in zero-sum games.
* **Transpositions.** Nodes are keyed by state in one table, so the tree is a DAG.
  Move statistics live in the *parent* (per role and move), not in the child, so a
  child reached along two paths does not mix the value of one parent's move into
  another's. An iteration that runs into a state already on its own path (a cycle)
  stops there and plays out.
* **MCTS-solver backups.** A terminal node is proven (its goals). A node where at most
  one role has a choice is proven when a proven child gives the mover the top goal
  (100), or when every move leads to a proven child: it takes the child best for the
  mover (a subgame-perfect value; exact for 1- and 2-player turn-taking games, and an
  equilibrium value with ties broken by move order for more roles). A simultaneous
  node is only proven when it is sound without mixed strategies: every joint move
  leads to the same proven value, or, in a two-role zero-sum game, the proven matrix
  has a pure saddle point. Selection uses a proven child's exact value; the final
  choice never takes a move proven worse than another proven move. In the compiled
  tree's batched paths (``blunders=1``, the default), a path that ends in a move
  proven to lose for its mover adds nothing to the means of the moves above it: the
  mover will not play it, and counted as a reward each such reply, visited once
  before it is shunned, raised the move that threatened it above a better quiet one.
  On a propnet whose latches (facts that once true, or once false, stay so) bound a
  goal, a new node whose latched facts settle every role's goal is proven at that
  value at once (``latches=1``, the default; :mod:`ggpkit.reasoning.propnet.latches`).
* **Tree reuse.** The table survives between the moves of a match; at each move the
  nodes not reachable from the actual state are dropped.
* **Playouts** run in compiled code when the game declares compiled playouts
  (``info.capabilities.compiled_playouts``: the native engines and GDL games on the
  propnet); otherwise through a loop on the API that checks the clock at every step.
  Compiled, the agent runs ``leaf`` playouts per new leaf in one ``playout_stats``
  call: a kernel playout costs a small fraction of one pass down the tree in Python,
  so several samples per pass give better statistics for the same time. In one-player
  games the API loop is always used because it records the moves: the agent keeps the
  best complete line seen and plays it (a line found in a deterministic one-player game
  is a guaranteed score).
* **Compiled trees.** Where the game declares ``capabilities.tree_search`` (GDL
  games on the propnet), the whole search runs in that compiled tree: selection,
  expansion, playouts, backups and proofs without the interpreter, at a large
  multiple of the Python tree's iterations. The choice of move, the best line of a
  one-player game, thoughts and root-parallel merging read its root statistics. In
  games of several roles, ``paths`` paths descend, each counting a
  virtual loss on its way, before their leaves share one 64-lane batch of playouts:
  a leaf then costs a fraction of a batch instead of a scalar playout, and the tree
  grows 10-30x faster than one leaf at a time. Unless given, ``paths`` is chosen per
  game so that a path's playouts cost about what the path does
  (:mod:`~ggpkit.agents.mcts.batch_split`: 64 paths of one playout on most propnets, 4
  paths of 16 on breakthrough-holes' bitboards), from the playouts timed in
  :meth:`start` and what the tree spent a path in the last search. With ``paths=1``
  (or MAST, or GRAVE) a ``leaf`` of 8 or more becomes a full 64-lane batch at one leaf (it costs the
  same). Where several roles choose at once, the compiled tree's paths search with
  decoupled UCB (each role its own statistics, blind to the others' pick; the
  Python tree uses Exp3 there). A state it cannot search (several roles choosing
  with one path, MAST or GRAVE, or more than 4,096 joint moves) sends the game back
  to the Python tree for the rest of the match. ``compiled=0`` keeps the Python tree.
  ``greedy=1`` makes a propnet tree's batched playouts greedy, as Sancho's are: a
  move that ends the game at its role's best goal is taken, and a move after which
  the next role can do so is taken back while others remain (the moves to try are
  the ones seen to end a game so). Off by default: nowhere measured did it pay for
  its cost (see :data:`GREEDY_DEFAULT`).
  ``wins=1`` (the default) makes a propnet tree prove a new node where its mover
  can win at once (Teytaud and Teytaud's decisive moves): the moves seen to end a
  playout at their role's best goal are tried there, 64 nodes at a time, so the
  solver sees a threat when the node is made instead of when its winning child is.
  ``mobility=W`` (default 0: off; no measured gain) values a new leaf partly by each
  role's share of the roles' legal moves, where neither the goal nor the material
  heuristic is used and random matches show it foretells the result.
  ``minimax=W`` (with a goal or material heuristic; default 0) mixes that share of
  each child's heuristic value, backed up by minimax over the tree, into its mean in
  selection (implicit minimax backups, Lanctot et al. 2014): no measured gain yet.
  ``mast=1`` makes its playouts choose moves by MAST (epsilon-greedy on each move's
  mean reward in earlier playouts of the match, one playout per leaf); off by
  default until an arena shows it helps (see DEVELOPERS.md).
* **Puzzles on a propnet.** In a one-role game the compiled tree first gives
  ``dfs=S`` of the searches' time (default 0.5; the solver runs in this process only,
  so with two threads that is all of this process's move) to a depth-first solver whose
  transposition table is kept for the match (:mod:`~ggpkit.search.puzzles.depth_first`:
  small puzzles are solved outright, hanoi in 2,700 states), and ``nested=S`` (default
  0) to nested Monte Carlo search (:mod:`~ggpkit.search.puzzles.nested`); the best
  line any of them found is kept and played (the solver's only where it is worth
  something or exact: see :mod:`~ggpkit.search.propnet.game_tree`).
* **Puzzles with a hint.** In a one-role game that declares a ``hint`` (a solver that
  answers while a person waits, such as peg's), the agent plays the hint's move: an
  exact best move beats any sample. The hint solves the start once in :meth:`start`,
  inside the start clock, so the moves that follow are answered from its memory.
* **Limits.** The clock is read before every iteration and during descent and
  playouts, so the agent overshoots its time by at most one compiled call. Where one
  batch of 64 compiled playouts (timed at the start of a match) would take more than
  half of a move's time, that move is searched in Python with playouts that read the
  clock.
"""

from __future__ import annotations

import gc
import math
import random
import time
from collections.abc import Hashable, Sequence
from typing import Any

from ggpkit.agents.base import Agent, Limit, Thoughts
from ggpkit.agents.mcts.batch_split import (
    LANES,
    path_seconds,
    paths_sharing_a_batch,
    time_playouts,
)
from ggpkit.agents.mcts.goal_heuristic import banks_goals, goal_heuristic_weight
from ggpkit.agents.mcts.material_heuristic import MATERIAL_WEIGHT, material_sets
from ggpkit.agents.mcts.mobility_heuristic import mobility_foretells
from ggpkit.agents.mcts.probe import probe_matches
from ggpkit.agents.mcts.root_parallel import SearchWorkers, can_fork_workers, merged_choice
from ggpkit.games.api import Game
from ggpkit.games.capabilities import Solver
from ggpkit.gdl.terms import Term
from ggpkit.search.contract import CannotSearchError, TreeReport, TreeSearch

DEFAULT_LIMIT = Limit(time=1.0)
"""Used when neither the spec nor the caller limits the search."""
WAIT_CANDIDATES = 4
"""How many of the root's moves are tried as a wait before a kept line's early end (see
:meth:`MCTSAgent._unless_end_waits`): each costs two steps of the game."""
COLLECT_SECONDS = 0.05
"""Worker searches stop this much sooner, and are waited for this long after our own."""

UCB_C = 1.4
"""The UCB constant (rewards in 0..1) where a leaf is valued by several playouts."""
UCB_C_PATHS = 0.4
"""The UCB constant where each of a batch's paths gets one playout (the compiled tree's
default). One playout is a noisy value: with 1.4 the visits spread almost evenly over
connect5's 64 moves, and the block of an open three got 6% of them. 0.4 (CadiaPlayer's
40 on the 0-100 goal scale) beat 1.4 10-0 on knightThrough and on breakthroughSmall
and drew 5-5 on connectFour (0.5 s a move, DEVELOPERS.md)."""

CALIBRATION_SECONDS = 0.03
"""The search in :meth:`MCTSAgent.start` that times a path of the compiled tree."""

NESTED_DEFAULT = 0.0
"""Share of a one-role game's move time given to nested Monte Carlo search: off. On the
47 puzzles the tree alone did not solve at 0.5 s a move, ``nested=0.5`` solved 1 (peg)
and was better on 8, worse on 3 (duplicateStateMedium 88 to 44); with the solver
(``dfs=0.4,nested=0.3``) it did no better than the solver alone."""

DFS_DEFAULT = 0.5
"""Share of a one-role game's move time given to the depth-first solver first. On the
corpus's 95 puzzles at 0.5 s a move (``benchmarks/puzzles.py``, one match each): 53
solved against 46 without, mean goal 68.3 against 65.1, better on 14, worse on 4 (single
matches: rechecked over four, queens31lg was 1 of 4 either way)."""

ORDERED_DEFAULT = 0
"""The solver's moves in the rules' order unless asked for (``ordered=1``): not measured."""

MONOTONE_DEFAULT = 1
"""Goal-monotonicity for the solver (``monotone=0``: off). A finding from random
matches (:mod:`~ggpkit.search.puzzles.goal_monotony`), found in 11 of the corpus's 95
puzzles (the queens, hitori, firefighter, twisty-passages, zombieAttack1PL6). Puzzle
benchmark on those 11, 0.5 s a move, 3 matches each: queens06ug 0 -> 100, queens08ug
0 -> 67, queens 60 -> 70, the others equal."""

GREEDY_DEFAULT = 0
"""Greedy playouts (a win in one taken, a loss in one avoided) are off unless asked for.
Their trials cost little where few moves can end a game and much where many can: the
tree keeps about 1.0 of its iterations a second with them in reversi, 0.30 in
breakthroughSmall and breakthrough (any capture may take the last piece), 0.12-0.20 in
knightThrough, 0.08 in connectFour. Against uniform playouts at 0.5 s a move they
scored breakthroughSmall 16-14 (30 matches), reversi 8-2-12 (22), knightThrough 23-27
(50), connectFour 2-8 (5-5 at equal playouts). Stop 35's speed trial turned them on
where they looked cheap; it timed them before any move was flagged."""

SLOW_BATCH_SHARE = 0.5
"""A compiled call cannot be stopped: where one batch of 64 playouts takes more than this
share of a move's time, the move is searched in Python with playouts that read the
clock, so no answer comes late. (The compiled search starts no call it expects to
overrun; only its first call is unpredicted. chess_200's batch takes about 0.65 s.)"""

GOAL_PROBE_SEED = 20261125
"""Seed of the goal heuristic's probe: every process of a root-parallel search decides alike."""

PYTHON_TREE_NODES = 200_000
"""Most nodes the Python tree holds unless told (the compiled tree has its own budget)."""

EXP3_GAMMA = 0.1
"""Exp3 exploration rate at simultaneous nodes (share of uniformly random choices)."""

_TOP = 1.0 - 1e-9
"""A reward at or above this is the top goal (100): nothing can be better."""

Reward = tuple[float, ...]
Joint = tuple[int, ...]


class _Node:
    """One state of the search DAG, with the per-role move statistics of its out-edges."""

    __slots__ = (
        "children",
        "choosers",
        "chosen_prob",
        "counts",
        "exp3",
        "kids",
        "maxes",
        "moves",
        "proven",
        "state",
        "sums",
        "terminal",
        "visits",
    )

    def __init__(self, game: Game[Any], state: Hashable) -> None:
        self.state = state
        self.terminal = game.is_terminal(state)
        self.visits = 0
        self.children: dict[Joint, _Node] = {}
        self.proven: Reward | None = None
        n = len(game.roles)
        if self.terminal:
            goals = game.goals(state)
            self.proven = tuple(goals[r] / 100.0 for r in game.roles)
            self.moves: list[list[Term]] = [[] for _ in range(n)]
            self.choosers: tuple[int, ...] = ()
        else:
            self.moves = game.all_legal_moves(state)
            self.choosers = tuple(i for i in range(n) if len(self.moves[i]) > 1)
        self.counts: list[list[int]] = [[0] * len(ms) for ms in self.moves]
        self.sums: list[list[float]] = [[0.0] * len(ms) for ms in self.moves]
        self.maxes: list[float] = [0.0] * len(self.moves[0]) if n == 1 else []
        simultaneous = len(self.choosers) > 1
        self.kids: list[_Node | None] = (
            []
            if simultaneous
            else [None] * len(self.moves[self.choosers[0]] if self.choosers else [0])
        )
        """Children by the mover's move index, where at most one role has a choice."""
        self.exp3: list[list[float]] = (
            [[0.0] * len(ms) for ms in self.moves] if simultaneous else []
        )
        self.chosen_prob: list[float] = [1.0] * n if simultaneous else []

    def link(self, joint: Joint, child: _Node) -> None:
        """Remember the child reached by ``joint``."""
        self.children[joint] = child
        if self.kids:
            self.kids[joint[self.choosers[0]] if self.choosers else 0] = child


class _OutOfTime(Exception):
    """The clock ran out inside an iteration; the iteration is dropped."""


class MCTSAgent(Agent):
    """UCT with decoupled statistics, transpositions, solver backups and tree reuse.

    ``limit`` is the agent's own limit (from its spec); the limit given to
    :meth:`select` is combined with it kind by kind, the stricter one winning.
    ``c`` is the UCB exploration constant for rewards in 0..1 (default: :data:`UCB_C_PATHS`
    where a compiled tree's paths share a batch, else :data:`UCB_C`).
    """

    name = "mcts"
    ponders = True

    def __init__(
        self,
        limit: Limit | None = None,
        c: float | None = None,
        seed: int | None = None,
        nodes: int | None = None,
        leaf: int = 8,
        threads: int = 1,
        compiled: int = 1,
        mast: int = 0,
        grave: int = 0,
        paths: int | None = None,
        goals: float | None = None,
        material: float | None = None,
        greedy: int = GREEDY_DEFAULT,
        wins: int = 1,
        minimax: float = 0.0,
        blunders: int = 1,
        latches: int = 1,
        mobility: float = 0.0,
        nested: float = NESTED_DEFAULT,
        dfs: float = DFS_DEFAULT,
        ordered: int = ORDERED_DEFAULT,
        monotone: int = MONOTONE_DEFAULT,
    ) -> None:
        self.limit = limit or Limit()
        self.c = c
        self.max_nodes = nodes
        """Most nodes the tree holds (None: the compiled tree's memory budget, or
        :data:`PYTHON_TREE_NODES` in Python)."""
        self.leaf = max(1, leaf)
        self.rng = random.Random(seed)
        self._workers = SearchWorkers(threads - 1, self._worker) if threads > 1 else None
        """Root-parallel searches in other processes (``threads - 1`` of them)."""
        self._game: Game[Any] | None = None
        self._nodes: dict[Hashable, _Node] = {}
        self._root: _Node | None = None
        self._best_value = -1.0
        self._best_line: list[tuple[Hashable, Term]] = []
        self._compiled = False
        self._batch_seconds = 0.0
        """How long one compiled batch of 64 playouts from the start took (see start)."""
        self._clocked = False
        """This move's playouts read the clock: a compiled batch is too slow for it."""
        self.use_tree = bool(compiled)
        self.mast = bool(mast)
        """Playouts in the compiled tree choose moves by MAST (one playout per leaf)."""
        self.grave = max(0, grave)
        """The compiled tree selects by GRAVE with this reference threshold (0: UCB)."""
        self.paths_option = None if paths is None else min(LANES, max(1, paths))
        """Paths the compiled tree descends before their leaves share one 64-lane batch,
        as given (None: chosen per game, see :mod:`~ggpkit.agents.mcts.batch_split`)."""
        self.paths = self.paths_option or LANES
        """Those paths in this match (the choice is revised after every search)."""
        self._playout_seconds = 0.0
        """What one more compiled playout costs in this game (timed in :meth:`start`)."""
        self.goals_option = None if goals is None else min(1.0, max(0.0, goals))
        """The goal heuristic's weight as given (None: decided per game at the start)."""
        self.goals = self.goals_option or 0.0
        """Share of a new leaf's value its heuristic goals give in this match (the goals
        of its state, or with :attr:`pieces` the roles' shares of the pieces)."""
        self.material_option = None if material is None else min(1.0, max(0.0, material))
        """The material heuristic's weight as given (None: decided per game at the start,
        where the goal heuristic is off)."""
        self.pieces: tuple[frozenset[Term], ...] = ()
        """Each role's pieces in this match, where the material heuristic is used."""
        self.mobility_option = min(1.0, max(0.0, mobility))
        """The mobility heuristic's weight where it is used (0: never; else where the goal
        and material heuristics are off and random matches show it foretells the result)."""
        self.by_mobility = False
        """This match's heuristic goals are the roles' shares of their moves."""
        self.greedy = bool(greedy)
        """The compiled tree's batched playouts take a win in one where they find one, and
        avoid giving one where they can (trees with uniform playouts otherwise: see
        ``TreeSearch.search``)."""
        self.wins = bool(wins)
        """The compiled tree proves a new node where its mover wins in one (decisive
        moves, see ``TreeSearch.search``)."""
        self.minimax = min(1.0, max(0.0, minimax))
        """Share of a child's heuristic goals, backed up by minimax, in the compiled
        tree's selection (implicit minimax backups; with a goal or material heuristic)."""
        self.blunders = bool(blunders)
        """In the compiled tree, a path that ends in a move proven to lose for its mover
        adds nothing to the means of the moves above it (see ``TreeSearch.search``)."""
        self.latches = bool(latches)
        """The compiled tree counts a node whose latched facts settle every role's goal
        as a leaf of that value (see ``TreeSearch.search``)."""
        self.nested = min(1.0, max(0.0, nested))
        """In a one-role game, the share of each move's time the compiled tree gives a
        nested Monte Carlo search, whose best line is kept where it is better (0: none)."""
        self.dfs = min(1.0, max(0.0, dfs))
        """In a one-role game, the share of the searches' time (all root-parallel ones
        together) given to a depth-first solver with a transposition table (0: none)."""
        searches = threads if threads > 1 and can_fork_workers() else 1
        self._solver_share = min(1.0, self.dfs * searches)
        """The share of this process's move time its compiled tree gives the solver
        first: the solver runs here only (a worker's would repeat its work), so with two
        threads ``dfs=0.5`` is the whole move. nonogram_5x5_1 with two threads, 1.5 s a
        move after 6 s of start: 4 of 4 solved so, 1 of 6 with 0.5 of the move."""
        self.ordered = bool(ordered)
        """The solver tries each state's moves best first by the goal each leads to."""
        self.monotone = bool(monotone)
        """Where random matches never see a one-role game's goal rise, the solver values
        a state already at the least goal so at once (goal-monotonicity)."""
        self._tree: TreeSearch | None = None
        """The game's compiled tree, where it has one (and ``compiled`` allows it)."""
        self._report: TreeReport | None = None
        """The compiled tree's root statistics of the last search."""
        self._hint: Solver | None = None
        """A one-role game's declared hint, which then chooses the moves."""
        self.last_iterations = 0
        """Iterations (passes down the tree) of the last :meth:`select`."""
        self.last_playouts = 0
        """Simulations of the last :meth:`select` (what a ``playouts`` limit counts)."""

    # ---- match lifecycle ---------------------------------------------------------------

    def start(self, game: Game[Any], role: str) -> None:
        """Forget everything from an earlier match; warm up the game's compiled playouts.

        The first call of a compiled kernel loads (or compiles) it, which can take
        most of a second: better here, before the clock runs, than in the first move.
        Then a batch of 64 playouts is timed (see :data:`SLOW_BATCH_SHARE`), and a
        short search times a path of the compiled tree (see
        :mod:`~ggpkit.agents.mcts.batch_split`); in a one-role game one iteration of the
        compiled tree loads it and looks for latches. Unless given, the heuristics are decided
        here, by random matches (the goal heuristic, else the material heuristic, else
        the mobility heuristic: :mod:`~ggpkit.agents.mcts.goal_heuristic`,
        :mod:`~ggpkit.agents.mcts.material_heuristic`,
        :mod:`~ggpkit.agents.mcts.mobility_heuristic`;
        seeded, so root-parallel workers agree).
        """
        self._reset(game)
        state = game.initial_state()
        if self._tree is not None and len(game.roles) > 1:
            self._decide_heuristics(game)
        if self._compiled:
            self._batch_seconds, self._playout_seconds = time_playouts(game, state)
            self._calibrate(game, role)
        elif self._tree is not None and len(game.roles) == 1 and not game.is_terminal(state):
            self._search_tree(self._tree, game, state, role, None, 1)
        if self._hint is not None:
            self._hint.solve(game, state, role)
        if self._workers is not None:
            self._workers.start(game, role)

    def _calibrate(self, game: Game[Any], role: str) -> None:
        """Short searches from the start (the tree keeps what they found): the first loads
        the tree's kernels; then, unless given, how the first move's batches are split
        by what a path costs in this game."""
        state = game.initial_state()
        tree = self._tree
        if tree is None or game.is_terminal(state) or self._batch_seconds > CALIBRATION_SECONDS:
            return  # (a slow network: its playouts outweigh any path)
        try:
            self._search_tree(tree, game, state, role, None, 1)
            if self.paths_option is None:
                self._search_tree(tree, game, state, role, CALIBRATION_SECONDS, None)
        except CannotSearchError:  # the compiled tree cannot search this: Python from now on
            self._tree = None

    def _decide_heuristics(self, game: Game[Any]) -> None:
        """The goal heuristic's weight, else the material heuristic's pieces and weight
        (not where goals are banked: :func:`banks_goals`), else the mobility heuristic's
        weight."""
        wants_material = self.material_option != 0.0
        wants_mobility = self.mobility_option > 0.0
        if self.goals_option is not None and (
            self.goals_option > 0 or not (wants_material or wants_mobility)
        ):
            return
        matches = probe_matches(game, random.Random(GOAL_PROBE_SEED))
        if self.goals_option is None:
            self.goals = goal_heuristic_weight(game, matches)
        asked = self.material_option is not None  # a weight given wins over banked goals
        if (
            self.goals == 0.0
            and wants_material
            and matches is not None
            and (asked or not banks_goals(game, matches))
        ):
            self.pieces = material_sets(game, matches) or ()
            if self.pieces:
                self.goals = self.material_option or MATERIAL_WEIGHT
        if self.goals == 0.0 and wants_mobility and mobility_foretells(game, matches):
            self.goals = self.mobility_option
            self.by_mobility = True

    def stop(self) -> None:
        """Drop the tree, end the worker searches, and give the collector back its objects."""
        self._forget()
        gc.unfreeze()
        if self._workers is not None:
            self._workers.stop()

    def _worker(self, index: int) -> MCTSAgent:
        """The searcher of worker ``index``: the same settings, its own random stream, and
        no depth-first solver (it is deterministic: a worker's would repeat this one's
        work, and the core is better spent on the worker's tree)."""
        seed = self.rng.randrange(2**63)
        return MCTSAgent(
            self.limit, self.c, seed, self.max_nodes, self.leaf,
            compiled=int(self.use_tree), mast=int(self.mast), grave=self.grave,
            paths=self.paths_option, goals=self.goals_option, material=self.material_option,
            greedy=int(self.greedy), wins=int(self.wins), minimax=self.minimax,
            blunders=int(self.blunders), latches=int(self.latches),
            mobility=self.mobility_option, nested=self.nested, dfs=0.0,
            ordered=int(self.ordered), monotone=int(self.monotone),
        )  # fmt: skip

    def root_visits(self, role: str) -> dict[Term, int]:
        """How often the last search tried each of ``role``'s moves at its root."""
        if self._report is not None:
            report = self._report
            if report.mover != role:
                return {}
            return {report.moves[i]: round(report.visits[i]) for i in _candidates(report.exact)}
        root, game = self._root, self._game
        if root is None or game is None or root.terminal:
            return {}
        r = game.role_index(role)
        return {root.moves[r][i]: root.counts[r][i] for i in _candidates(self._exact(root, r))}

    def thoughts(self, role: str) -> Thoughts | None:
        """The last search's value for ``role`` and its most visited moves (top 3)."""
        if self._report is not None:
            return _report_thoughts(self._report, role)
        root, game = self._root, self._game
        if root is None or game is None or root.terminal:
            return None
        r = game.role_index(role)
        counts = root.counts[r]
        total = sum(counts)
        if root.proven is not None:
            value = 100 * root.proven[r]
            verdict: str | None = f"proved: {role} gets {round(value)}"
        elif total:
            value, verdict = 100 * sum(root.sums[r]) / total, None
        else:
            return None
        # the move the search picks first (a proof outranks visits), then the most visited
        chosen = self._final_choice(root, r) if len(counts) > 1 else 0
        others = [i for i in range(len(counts)) if i != chosen and counts[i]]
        ranked = [chosen, *sorted(others, key=lambda i: -counts[i])][:3]
        shares = tuple((root.moves[r][i], counts[i] / max(total, 1)) for i in ranked)
        return Thoughts(value, shares, verdict)

    def _forget(self) -> None:
        self._hint = None
        self._tree = None
        self._report = None
        self._game = None
        self._nodes = {}
        self._root = None
        self._best_line = []
        self._best_value = -1.0

    def _reset(self, game: Game[Any]) -> None:
        self._forget()
        self._game = game
        self.goals = self.goals_option or 0.0
        self.pieces = ()
        self.by_mobility = False
        caps = game.info.capabilities
        self._compiled = caps.compiled_playouts and len(game.roles) > 1
        self._batch_seconds = 0.0
        self._playout_seconds = 0.0
        self.paths = self.paths_option or LANES
        if self.use_tree and caps.tree_search is not None:
            self._tree = caps.tree_search(self.max_nodes)
        if len(game.roles) == 1 and caps.hint is not None:
            self._hint = caps.hint()

    def root_value(self) -> tuple[float, ...] | None:
        """The proven value (goals / 100 per role) of the last searched state, if proven."""
        return None if self._root is None else self._root.proven

    def visits(self, state: Hashable) -> int:
        """How often the search has passed through ``state`` (0 when it is not in the tree)."""
        node = self._nodes.get(state)
        return 0 if node is None else node.visits

    # ---- the search ----------------------------------------------------------------

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        """The best move found for ``role`` within the stricter of the two limits.

        Python's cyclic garbage collector is paused during the search, and what the
        search leaves alive (the tree) is then frozen out of its reach: a Python tree
        grows by hundreds of thousands of objects a move, and scanning them took 1.5 s
        for the young generation and 13 s for an older one (quarto on the join-code
        prover), whichever thread happened to trigger it, so the player answered
        seconds late. The tree has no reference cycles (children only), nor have the
        reasoners' contexts, so what the search drops is freed by reference counting.
        :meth:`stop` unfreezes.
        """
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._select(game, state, role, limit)
        finally:
            gc.freeze()
            if collecting:
                gc.enable()

    def _select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        started = time.perf_counter()
        limit = self.limit.stricter(limit)
        if limit.time is None and limit.playouts is None:
            limit = limit.stricter(DEFAULT_LIMIT)
        margin = 0.005 + (COLLECT_SECONDS if self._workers is not None else 0.0)
        deadline = math.inf if limit.time is None else started + max(0.0, limit.time - margin)
        if game is not self._game:
            self._reset(game)
        role_index = game.role_index(role)
        legal = game.legal_moves(state, role)
        if not legal:
            raise ValueError(f"no legal move for {role}: the state is terminal")
        workers = self._workers if self._workers is not None and game is self._game else None
        if self._hint is not None:
            move = self._hint.solve(game, state, role).move
            if move is not None:
                return move
        if workers is not None:
            workers.ask(state, role, _sooner(limit, COLLECT_SECONDS))
        self._clocked = self._batch_seconds > SLOW_BATCH_SHARE * (deadline - started)
        if self._tree is not None and not self._clocked:
            try:
                return self._select_compiled(self._tree, game, state, role, limit, deadline)
            except CannotSearchError:  # the compiled tree cannot search this: Python from now on
                self._tree = None
                self._report = None
        root = self._reroot(game, state, started, deadline)
        iterations = 0
        playouts = 0
        budget = limit.playouts if limit.playouts is not None else math.inf
        try:
            while playouts < budget and root.proven is None:
                if time.perf_counter() >= deadline:
                    break
                playouts += self._iterate(game, root, deadline)
                iterations += 1
        except _OutOfTime:
            pass
        self.last_iterations = iterations
        self.last_playouts = playouts
        if len(legal) == 1:
            return legal[0]
        if workers is not None and len(game.roles) == 1:  # a worker's line may be better
            for reply in workers.collect(time.monotonic() + COLLECT_SECONDS):
                self._keep_line(game, state, reply.line_value, reply.line)
        line_move = self._line_move(state)
        moves, visits = root.moves[role_index], root.counts[role_index]
        exact = self._exact(root, role_index)
        if line_move is not None and self._line_not_proven_worse(line_move, moves, exact):
            return self._unless_end_waits(game, state, line_move, moves, visits)
        choice = root.moves[role_index][self._final_choice(root, role_index)]
        if workers is None or root.proven is not None:
            return choice
        replies = workers.collect(time.monotonic() + COLLECT_SECONDS)
        return merged_choice(self.root_visits(role), [r.visits for r in replies], choice)

    def _select_compiled(
        self,
        tree: TreeSearch,
        game: Game[Any],
        state: Hashable,
        role: str,
        limit: Limit,
        deadline: float,
    ) -> Term:
        """The search of :meth:`_select` run in the game's compiled tree."""
        seconds = None if deadline == math.inf else max(0.0, deadline - time.perf_counter())
        report = self._search_tree(tree, game, state, role, seconds, limit.playouts)
        self._report = report
        self.last_iterations = report.iterations
        self.last_playouts = round(report.playouts)
        legal = game.legal_moves(state, role)
        workers = self._workers
        if len(game.roles) == 1 and len(legal) > 1:  # the best line, even where the tree
            self._keep_line(game, state, report.best_value, report.best_line)  # had no time
            if workers is not None:  # a worker's line may be better
                for reply in workers.collect(time.monotonic() + COLLECT_SECONDS):
                    self._keep_line(game, state, reply.line_value, reply.line)
            line_move = self._line_move(state)
            if line_move is not None and self._line_not_proven_worse(
                line_move, report.moves, report.exact
            ):
                return self._unless_end_waits(game, state, line_move, report.moves, report.visits)
        if len(legal) == 1 or report.mover != role or not report.moves:
            return legal[0]
        if set(report.moves) != set(legal):  # never play from another position's statistics
            raise CannotSearchError(
                f"{game.name}: the compiled tree's root is not the state searched"
            )
        choice = report.moves[_report_choice(report)]
        if workers is None or report.proven is not None:
            return choice
        replies = workers.collect(time.monotonic() + COLLECT_SECONDS)
        own = self.root_visits(role)  # the moves this search has not proven worse
        others = [{m: n for m, n in r.visits.items() if m in own} for r in replies]
        return merged_choice(own, others, choice)

    def _search_tree(
        self,
        tree: TreeSearch,
        game: Game[Any],
        state: Hashable,
        role: str,
        seconds: float | None,
        playouts: int | None,
    ) -> TreeReport:
        """One search of the compiled tree within the limits; then the paths of a batch
        are chosen again from what this search spent a path (unless given)."""
        # A 64-lane batch costs the same for 8 playouts as for 64: fill it.
        batched = self.paths > 1 and len(game.roles) > 1 and not self.mast and not self.grave
        if batched:  # the paths share the batch's lanes
            leaf = per_iteration = LANES // self.paths
        else:
            leaf = LANES if self._compiled and self.leaf >= 8 else self.leaf
            per_iteration = leaf if leaf >= 8 else 1
        iterations = None if playouts is None else -(-playouts // per_iteration)
        if seconds is None and iterations is None:
            iterations = 1
        seed = self.rng.getrandbits(63)
        c = self.c if self.c is not None else UCB_C_PATHS if batched else UCB_C
        began = time.perf_counter()
        report = tree.search(
            state,
            seconds,
            iterations,
            c,
            leaf,
            seed,
            mast=self.mast,
            grave=self.grave,
            paths=self.paths,
            goals=self.goals,
            role=role,
            material=self.pieces,
            greedy=self.greedy,
            wins=self.wins,
            minimax=self.minimax,
            blunders=self.blunders,
            latches=self.latches,
            mobility=self.by_mobility,
            nested=self.nested,
            dfs=self._solver_share,
            ordered=self.ordered,
            monotone=self.monotone,
        )
        if batched and self.paths_option is None and report.greedy:
            self.paths = LANES  # a greedy playout costs more than the timed ones: not a path
        elif batched and self.paths_option is None:
            took = time.perf_counter() - began
            spent = path_seconds(took, report.iterations, report.playouts, self._playout_seconds)
            if not math.isnan(spent):
                self.paths = paths_sharing_a_batch(spent, self._playout_seconds)
        return report

    def _keep_line(
        self, game: Game[Any], state: Hashable, value: float, moves: Sequence[Term]
    ) -> None:
        """Keep a line of ``moves`` from ``state`` (a compiled search's, or a worker's)
        worth ``value`` when it beats the best line kept so far."""
        if not moves or value <= self._best_value:
            return
        line: list[tuple[Hashable, Term]] = []
        for move in moves:
            line.append((state, move))
            state = game._next(state, [move])
        self._best_value = value
        self._best_line = line

    def line_from(self, state: Hashable) -> tuple[float, tuple[Term, ...]]:
        """In a one-role game, the best value (0..1) seen and the moves of its line from
        ``state``, if the kept line passes it; else (-1, ())."""
        k = self._line_index(state)
        if k is None:
            return -1.0, ()
        return self._best_value, tuple(m for _, m in self._best_line[k:])

    def _line_index(self, state: Hashable) -> int | None:
        """Where the kept best line passes ``state`` (None: it does not)."""
        return next((k for k, (s, _) in enumerate(self._best_line) if s == state), None)

    def _reroot(self, game: Game[Any], state: Hashable, started: float, deadline: float) -> _Node:
        """The root node for ``state``, keeping only what is reachable from it."""
        root = self._nodes.get(state)
        if root is None:
            self._nodes = {}
            root = self._nodes[state] = _Node(game, state)
        elif root is not self._root:
            budget = started + 0.25 * (deadline - started) if deadline < math.inf else math.inf
            kept: dict[Hashable, _Node] = {state: root}
            stack = [root]
            while stack:
                node = stack.pop()
                for child in node.children.values():
                    if child.state not in kept:
                        kept[child.state] = child
                        stack.append(child)
                if len(kept) % 1024 == 0 and time.perf_counter() > budget:
                    kept = {}  # cheaper to start again than to overrun the clock
                    root = _Node(game, state)
                    kept[state] = root
                    break
            self._nodes = kept
        self._root = root
        return root

    def _iterate(self, game: Game[Any], root: _Node, deadline: float) -> int:
        """One selection, expansion, playout and backup; returns the simulations it counted."""
        weight = 1
        path: list[tuple[_Node, Joint]] = []
        seen = {root.state}
        node = root
        line: list[tuple[Hashable, Term]] | None = [] if len(game.roles) == 1 else None
        while True:
            if node.proven is not None:
                reward = node.proven
                break
            joint = self._choose(node)
            child = node.children.get(joint)
            if child is None:
                moves = [node.moves[r][i] for r, i in enumerate(joint)]
                child_state = game._next(node.state, moves)
                child = self._nodes.get(child_state)
                if child is None:
                    child = _Node(game, child_state)
                    if len(self._nodes) < (self.max_nodes or PYTHON_TREE_NODES):
                        self._nodes[child_state] = child
                        node.link(joint, child)
                    path.append((node, joint))
                    if line is not None:
                        line.append((node.state, node.moves[0][joint[0]]))
                    if child.proven is not None:
                        reward = child.proven
                    else:
                        reward, weight = self._playout(game, child.state, deadline, line)
                    child.visits += weight
                    break
                node.link(joint, child)
            path.append((node, joint))
            if line is not None:
                line.append((node.state, node.moves[0][joint[0]]))
            if child.state in seen:  # a cycle: stop here
                reward, weight = self._playout(game, child.state, deadline, line)
                break
            seen.add(child.state)
            if time.perf_counter() >= deadline:
                raise _OutOfTime
            node = child
        if line is not None and reward[0] > self._best_value:
            self._best_value = reward[0]
            self._best_line = line
        self._backup(path, reward, weight)
        return weight

    def _choose(self, node: _Node) -> Joint:
        """The joint move: UCB for the one role with a choice, Exp3 for each when several."""
        joint = [0] * len(node.moves)
        if len(node.choosers) == 1:
            r = node.choosers[0]
            joint[r] = self._ucb_turn(node, r)
            return tuple(joint)
        for r in node.choosers:
            joint[r] = self._exp3(node, r)
        return tuple(joint)

    def _exp3(self, node: _Node, r: int) -> int:
        """Sample role ``r``'s move from its Exp3 distribution; remember its probability."""
        estimates = node.exp3[r]
        k = len(estimates)
        eta = EXP3_GAMMA / k
        top = max(estimates)
        weights = [math.exp(eta * (x - top)) for x in estimates]
        total = sum(weights)
        probs = [(1 - EXP3_GAMMA) * w / total + EXP3_GAMMA / k for w in weights]
        x = self.rng.random()
        i = 0
        while i < k - 1 and x >= probs[i]:
            x -= probs[i]
            i += 1
        node.chosen_prob[r] = probs[i]
        return i

    def _ucb_turn(self, node: _Node, r: int) -> int:
        """UCB for the one role with a choice, using and pruning proven children.

        A move proven worse than another proven move is never tried again; a proven
        move counts with its exact value.
        """
        counts = node.counts[r]
        if 0 in counts:
            return self.rng.choice([i for i, n in enumerate(counts) if n == 0])
        kids = node.kids
        best_exact = -1.0
        for kid in kids:
            if kid is not None and kid.proven is not None and kid.proven[r] > best_exact:
                best_exact = kid.proven[r]
        sums = node.sums[r]
        maxes = node.maxes
        c = UCB_C if self.c is None else self.c
        log_n = math.log(max(2, node.visits))
        best_i = 0
        best_u = -math.inf
        for i, n in enumerate(counts):
            kid = kids[i]
            if kid is not None and kid.proven is not None:
                q = kid.proven[r]
                if q < best_exact:
                    continue
            else:
                q = sums[i] / n
            if maxes:
                q = 0.5 * q + 0.5 * maxes[i]
            u = q + c * math.sqrt(log_n / n)
            if u > best_u:
                best_u, best_i = u, i
        return best_i

    def _playout(
        self,
        game: Game[Any],
        state: Hashable,
        deadline: float,
        line: list[tuple[Hashable, Term]] | None,
    ) -> tuple[Reward, int]:
        """Random play to the end: (mean reward per role, number of playouts).

        The compiled kernels when the game has them (and they are fast enough for the
        move's time), else a clocked loop on the API.
        """
        if self._compiled and not self._clocked:
            stats = game.playout_stats(state, self.leaf, self.rng.getrandbits(63))
            scale = 100.0 * stats.playouts
            return tuple(total / scale for total in stats.goal_sums), stats.playouts
        rng = self.rng
        steps = 0
        while not game.is_terminal(state):
            moves = [rng.choice(ms) for ms in game.all_legal_moves(state)]
            if line is not None:
                line.append((state, moves[0]))
            state = game._next(state, moves)
            steps += 1
            if steps % 8 == 0 and time.perf_counter() >= deadline:
                raise _OutOfTime
        goals = game.goals(state)
        return tuple(goals[r] / 100.0 for r in game.roles), 1

    def _backup(self, path: list[tuple[_Node, Joint]], reward: Reward, weight: int) -> None:
        """Add ``weight`` samples of mean ``reward`` to every edge on the path; then proofs."""
        for node, joint in path:
            node.visits += weight
            for r in node.choosers:
                i = joint[r]
                node.counts[r][i] += weight
                node.sums[r][i] += reward[r] * weight
                if node.exp3:
                    node.exp3[r][i] += reward[r] / node.chosen_prob[r]
            if node.maxes and reward[0] > node.maxes[joint[0]]:
                node.maxes[joint[0]] = reward[0]
        for node, _ in reversed(path):
            if node.proven is not None or not self._prove(node):
                break

    def _prove(self, node: _Node) -> bool:
        """Try to prove ``node`` from its children; True when it became proven."""
        if not node.choosers:
            child = node.children.get(tuple(0 for _ in node.moves))
            if child is not None and child.proven is not None:
                node.proven = child.proven
            return node.proven is not None
        if len(node.choosers) == 1:
            return self._prove_turn(node, node.choosers[0])
        return self._prove_simultaneous(node)

    def _prove_turn(self, node: _Node, m: int) -> bool:
        best: Reward | None = None
        complete = True
        for i in range(len(node.moves[m])):
            child = node.kids[i]
            if child is None or child.proven is None:
                complete = False
                continue
            value = child.proven
            if value[m] >= _TOP:
                node.proven = value
                return True
            if best is None or value[m] > best[m]:
                best = value
        if complete and best is not None:
            node.proven = best
        return node.proven is not None

    def _prove_simultaneous(self, node: _Node) -> bool:
        values: dict[Joint, Reward] = {}
        sizes = [len(ms) for ms in node.moves]
        total = math.prod(sizes)
        for joint, child in node.children.items():
            if child.proven is None:
                return False
            values[joint] = child.proven
        if len(values) < total:
            return False
        distinct = set(values.values())
        if len(distinct) == 1:
            node.proven = distinct.pop()
            return True
        game = self._game
        if game is None or not game.info.zero_sum or len(node.choosers) != 2:
            return False
        a, b = node.choosers
        # pure saddle point: role a's maximin equals its minimax
        rows = {i: min(v[a] for j, v in values.items() if j[a] == i) for i in range(sizes[a])}
        cols = {k: max(v[a] for j, v in values.items() if j[b] == k) for k in range(sizes[b])}
        maximin, minimax = max(rows.values()), min(cols.values())
        if maximin != minimax:
            return False
        i = max(rows, key=lambda x: rows[x])
        k = min(cols, key=lambda x: cols[x])
        node.proven = next(v for j, v in values.items() if j[a] == i and j[b] == k)
        return True

    def _final_choice(self, root: _Node, r: int) -> int:
        """The most visited move, never one proven worse than another proven move."""
        counts = root.counts[r]
        means = [s / n if n else -1.0 for s, n in zip(root.sums[r], counts, strict=True)]
        if len(root.choosers) != 1:
            return max(range(len(counts)), key=lambda i: (counts[i], means[i]))
        return _choose(self._exact(root, r), counts, means)

    @staticmethod
    def _exact(root: _Node, r: int) -> list[float | None]:
        """Per move of role ``r`` at ``root``: its proven value for ``r``, or None."""
        if root.choosers != (r,):  # children are known by the one chooser's moves only
            return [None] * len(root.counts[r])
        out: list[float | None] = []
        for child in root.kids:
            out.append(None if child is None or child.proven is None else child.proven[r])
        return out

    def _line_not_proven_worse(
        self, move: Term, moves: Sequence[Term], exact: Sequence[float | None]
    ) -> bool:
        """Whether the kept line's next ``move`` is among the searched root's ``moves``
        not proven worse than another (``exact``: their proven values); if not, the line
        is dropped and the tree's choice played.

        Why: a line worth nothing is only the first random line that ended; the tree may
        have proven its move lost while other moves are still open (futoshiki4, 0.5 s a
        move, three matches: 1 solved following such lines, 3 without any worthless
        line). Worthless lines are still followed where the tree knows nothing better:
        a random line beats the tree's choice among equals, which leans to the moves
        listed first (hidato19: 3 solved with them, 0 without)."""
        if move not in moves or len(exact) != len(moves):
            return True
        if moves.index(move) in _candidates(exact):
            return True
        self._best_value, self._best_line = -1.0, []
        return False

    def _unless_end_waits(
        self,
        game: Game[Any],
        state: Hashable,
        move: Term,
        moves: Sequence[Term],
        visits: Sequence[float],
    ) -> Term:
        """``move``, the kept line's next, unless it ends the game below the top goal
        while one of ``moves`` (the searched root's, most visited first) keeps that same
        end open: then that move.

        Why: in a deterministic one-role game such a move loses nothing (the end is
        still there a move later, worth as much), and the searches get another move's
        time to find better. hanoi_6_disks's ``giveup`` (worth 5) is legal throughout:
        taken at once, the solver never finished its 46,000 states."""
        if len(self._best_line) > 1 or self._best_value >= 1.0:
            return move
        role = game.roles[0]
        ranked = sorted(range(len(moves)), key=lambda i: -visits[i])
        for other in [moves[i] for i in ranked if moves[i] != move][:WAIT_CANDIDATES]:
            after = game._next(state, [other])
            if game.is_terminal(after) or move not in game.legal_moves(after, role):
                continue
            end = game._next(after, [move])
            if game.is_terminal(end) and game.goals(end)[role] / 100.0 >= self._best_value:
                self._best_line = [(after, move)]  # the same end, a move later
                return other
        return move

    def _line_move(self, state: Hashable) -> Term | None:
        """In a one-player game, the next move of the best line seen, if it passes ``state``."""
        k = self._line_index(state)
        if k is None:
            return None
        self._best_line = self._best_line[k:]
        return self._best_line[0][1]


def _report_choice(report: TreeReport) -> int:
    """Index of the move to play: as :meth:`MCTSAgent._final_choice`, from root statistics."""
    return _choose(report.exact, report.visits, report.means)


def _choose(exact: Sequence[float | None], visits: Sequence[float], means: Sequence[float]) -> int:
    """The move to play from root statistics: a proven win, or the best proven value when
    every move is proven; else the most visited move not proven worse than another."""
    proven = {i: v for i, v in enumerate(exact) if v is not None}
    if proven:
        best = max(proven.values())
        if best >= _TOP or len(proven) == len(visits):
            return max(proven, key=lambda i: (proven[i], visits[i]))
    return max(_candidates(exact), key=lambda i: (visits[i], means[i]))


def _candidates(exact: Sequence[float | None]) -> list[int]:
    """Indexes of the root moves not proven worse than another move (``exact``: each
    move's proven value for the mover, or None).

    A move proven to lose may still have the most visits (it was searched a lot before
    its proof): neither the choice nor the merge of parallel searches may pick it.
    """
    best = max((v for v in exact if v is not None), default=0.0)
    if best <= 0.0 and None in exact:  # only losses are proven: any open move is as good
        best = 1e-9
    return [i for i, v in enumerate(exact) if v is None or v >= best]


def _report_thoughts(report: TreeReport, role: str) -> Thoughts | None:
    """What the compiled search thinks for ``role``: only the mover's view is kept."""
    total = sum(report.visits)
    if report.proven is not None and role in report.proven:
        value = 100 * report.proven[role]
        verdict: str | None = f"proved: {role} gets {round(value)}"
    elif report.mover == role and total:
        value = 100 * sum(m * v for m, v in zip(report.means, report.visits, strict=True)) / total
        verdict = None
    else:
        return None
    if report.mover != role or not report.moves:
        return Thoughts(value, (), verdict)
    chosen = _report_choice(report)
    others = [i for i in range(len(report.visits)) if i != chosen and report.visits[i]]
    ranked = [chosen, *sorted(others, key=lambda i: -report.visits[i])][:3]
    shares = tuple((report.moves[i], report.visits[i] / max(total, 1)) for i in ranked)
    return Thoughts(value, shares, verdict)


def _sooner(limit: Limit, seconds: float) -> Limit:
    """``limit`` with ``seconds`` less time (when it has a time), so an answer arrives in it."""
    if limit.time is None:
        return limit
    return Limit(time=max(limit.time - seconds, 0.0), playouts=limit.playouts, depth=limit.depth)

"""Monte Carlo tree search (UCT) for any game through the game API: the agent.

The agent searches a game's compiled tree where the game declares one
(:mod:`~ggpkit.agents.mcts.compiled`), else its own tree in Python
(:mod:`~ggpkit.agents.mcts.python_tree`); either way it plays the most visited move
not proven worse than another (:mod:`~ggpkit.agents.mcts.choice`), or in a one-role
game the best line any search found (:mod:`~ggpkit.agents.mcts.best_line`), and adds
the root visits of searches in other processes (:mod:`~ggpkit.agents.mcts.root_parallel`).
Its options, each with its default and help, are
:class:`~ggpkit.agents.mcts.options.MCTSOptions`.

* **Puzzles with a hint.** In a one-role game that declares a ``hint`` (a solver that
  answers while a person waits, such as peg's), the agent plays the hint's move: an
  exact best move beats any sample. The hint solves the start once in :meth:`start`,
  inside the start clock, so the moves that follow are answered from its memory.
* **Puzzles in the Python tree.** A one-role game without a compiled tree (the join
  code's) has most of each move walked breadth first for the shortest line to its top
  goal (:mod:`~ggpkit.agents.mcts.shortest_line`), a line the agent then keeps and
  plays as it does any search's.
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
from dataclasses import replace
from typing import Any

from ggpkit.agents.base import Agent, Limit, Thoughts
from ggpkit.agents.mcts.batch_split import time_playouts
from ggpkit.agents.mcts.best_line import BestLine
from ggpkit.agents.mcts.choice import report_choice, report_thoughts, report_visits
from ggpkit.agents.mcts.compiled import CALIBRATION_SECONDS, CompiledTree, decide_heuristics
from ggpkit.agents.mcts.options import MCTSOptions, clamped
from ggpkit.agents.mcts.python_tree import PythonTree
from ggpkit.agents.mcts.root_parallel import (
    SearchWorkers,
    can_fork_workers,
    merged_choice,
)
from ggpkit.agents.mcts.shortest_line import BreadthFirstLine
from ggpkit.games.api import Game
from ggpkit.games.capabilities import Solver
from ggpkit.gdl.terms import Term
from ggpkit.search.contract import CannotSearchError, TreeReport

WALK_SEED = 0xB0F5
"""Seed of the random matches that look for a one-role game's step counter."""
ENDING_COUNTER_SHARE = 0.25
"""The share of the move left that the search for the end of a settled one-role game
(see :meth:`MCTSAgent._keep_line_to_end`) spends looking for step counters, at its
first move: the rest walks."""
WALK_LEAST = 0.1
"""The least share of a one-role move the Python tree keeps beside the breadth-first
search: its proofs and statistics choose the move while the search has no line."""

DEFAULT_LIMIT = Limit(time=1.0)
"""Used when neither the spec nor the caller limits the search."""
COLLECT_SECONDS = 0.05
"""Worker searches stop this much sooner, and are waited for this long after our own."""

SLOW_BATCH_SHARE = 0.5
"""A compiled call cannot be stopped: where one batch of 64 playouts takes more than this
share of a move's time, the move is searched in Python with playouts that read the
clock, so no answer comes late. (The compiled search starts no call it expects to
overrun; only its first call is unpredicted, and on the largest networks one batch
takes a large part of a short move.)"""


class MCTSAgent(Agent):
    """UCT with decoupled statistics, transpositions, solver backups and tree reuse.

    ``limit`` is the agent's own limit (from its spec); the limit given to
    :meth:`select` is combined with it kind by kind, the stricter one winning.
    ``options``: how it searches (:class:`~ggpkit.agents.mcts.options.MCTSOptions`,
    kept within their ranges).
    """

    name = "mcts"
    ponders = True

    def __init__(
        self,
        limit: Limit | None = None,
        seed: int | None = None,
        options: MCTSOptions | None = None,
    ) -> None:
        self.limit = limit or Limit()
        self.options = clamped(options or MCTSOptions())
        threads = self.options.threads
        self.rng = random.Random(seed)
        self._workers = SearchWorkers(threads - 1, self._worker) if threads > 1 else None
        """Root-parallel searches in other processes (``threads - 1`` of them)."""
        searches = threads if threads > 1 and can_fork_workers() else 1
        self._solver_share = min(1.0, self.options.dfs * searches)
        """The share of this process's move time its compiled tree gives the solver
        first: the solver runs here only (a worker's would repeat its work), so with two
        threads ``dfs=0.5`` is the whole move, which solved more of a puzzle's matches
        than half of it did."""
        self.best = BestLine()
        """A one-role game's best line seen, which the agent plays."""
        self.python_tree = PythonTree(
            self.rng, self.options.c, self.options.leaf, self.options.nodes, self.best
        )
        self.compiled_tree: CompiledTree | None = None
        """The game's compiled tree, where it has one (and ``compiled`` allows it)."""
        self.report: TreeReport | None = None
        """The compiled tree's root statistics of the last search."""
        self._game: Game[Any] | None = None
        self._compiled = False
        """The game's playouts run in compiled kernels (and it has several roles)."""
        self._batch_seconds = 0.0
        """How long one compiled batch of 64 playouts from the start took (see start)."""
        self._clocked = False
        """This move's playouts read the clock: a compiled batch is too slow for it."""
        self._hint: Solver | None = None
        """A one-role game's declared hint, which then chooses the moves."""
        self._walk: BreadthFirstLine | None = None
        """A one-role game's breadth-first search, where the tree is Python's."""
        self._ending_walk: BreadthFirstLine | None = None
        """A one-role game's search for the end, once the compiled tree settles its root."""
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
        compiled tree loads it and looks for latches. Unless given, the heuristics are
        decided here (:func:`~ggpkit.agents.mcts.compiled.decide_heuristics`).
        """
        self._reset(game)
        state = game.initial_state()
        tree = self.compiled_tree
        if tree is not None and len(game.roles) > 1:
            tree.heuristics = decide_heuristics(game, self.options)
        if self._compiled:
            self._batch_seconds, playout_seconds = time_playouts(game, state)
            if tree is not None:
                tree.playout_seconds = playout_seconds
            self._calibrate(game, role)
        elif tree is not None and len(game.roles) == 1 and not game.is_terminal(state):
            tree.search(game, state, role, None, 1)
        if self._hint is not None:
            self._hint.solve(game, state, role)
        if self._workers is not None:
            self._workers.start(game, role)

    def _calibrate(self, game: Game[Any], role: str) -> None:
        """The compiled tree's first searches (:meth:`CompiledTree.calibrate`), but on a
        slow network, whose playouts outweigh any path."""
        tree = self.compiled_tree
        if (
            tree is None
            or game.is_terminal(game.initial_state())
            or self._batch_seconds > CALIBRATION_SECONDS
        ):
            return
        try:
            tree.calibrate(game, role)
        except CannotSearchError:  # the compiled tree cannot search this: Python from now on
            self.compiled_tree = None

    def stop(self) -> None:
        """Drop the tree, end the worker searches, and give the collector back its objects."""
        self._forget()
        gc.unfreeze()
        if self._workers is not None:
            self._workers.stop()

    def _worker(self, index: int) -> MCTSAgent:
        """The searcher of worker ``index``: the same settings, its own random stream, and
        no depth-first solver or breadth-first search (they are deterministic: a
        worker's would repeat this one's work, and the core is better spent on the
        worker's tree)."""
        seed = self.rng.randrange(2**63)
        return MCTSAgent(self.limit, seed, replace(self.options, threads=1, dfs=0.0, bfs=0.0))

    def root_visits(self, role: str) -> dict[Term, int]:
        """How often the last search tried each of ``role``'s moves at its root (but the
        moves proven worse than another)."""
        if self.report is not None:
            return report_visits(self.report, role)
        return self.python_tree.root_visits(role)

    def thoughts(self, role: str) -> Thoughts | None:
        """The last search's value for ``role`` and its most visited moves (top 3)."""
        if self.report is not None:
            return report_thoughts(self.report, role)
        return self.python_tree.thoughts(role)

    def _forget(self) -> None:
        self._hint = None
        self._walk = None
        self._ending_walk = None
        self.compiled_tree = None
        self.report = None
        self._game = None
        self.python_tree.clear()
        self.best.clear()

    def _reset(self, game: Game[Any]) -> None:
        self._forget()
        self._game = game
        caps = game.info.capabilities
        self._compiled = caps.compiled_playouts and len(game.roles) > 1
        self._batch_seconds = 0.0
        if self.options.compiled and caps.tree_search is not None:
            tree = caps.tree_search(self.options.nodes)
            self.compiled_tree = CompiledTree(
                tree, self.options, self.rng, self._solver_share, self._compiled
            )
        if len(game.roles) == 1 and caps.hint is not None:
            self._hint = caps.hint()
        elif len(game.roles) == 1 and self.compiled_tree is None and self._walk_share() > 0:
            self._walk = BreadthFirstLine(game, random.Random(WALK_SEED))

    def _walk_share(self) -> float:
        """The share of a one-role move in the Python tree that its breadth-first search
        gets: all but :data:`WALK_LEAST` where the compiled tree would give any to its
        breadth-first or depth-first search (the Python tree has neither, and on the
        join code it sees a few hundred playouts a move)."""
        return 1.0 - WALK_LEAST if self.options.bfs + self.options.dfs > 0 else 0.0

    def root_value(self) -> tuple[float, ...] | None:
        """The proven value (goals / 100 per role) of the last searched state, if proven."""
        root = self.python_tree.root
        return None if root is None else root.proven

    def visits(self, state: Hashable) -> int:
        """How often the search has passed through ``state`` (0 when it is not in the tree)."""
        node = self.python_tree.nodes.get(state)
        return 0 if node is None else node.visits

    def line_from(self, state: Hashable) -> tuple[float, tuple[Term, ...]]:
        """In a one-role game, the best value (0..1) seen and the moves of its line from
        ``state``, if the kept line passes it; else (-1, ())."""
        return self.best.line_from(state)

    # ---- the search ----------------------------------------------------------------

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        """The best move found for ``role`` within the stricter of the two limits.

        Python's cyclic garbage collector is paused during the search, and what the
        search leaves alive (the tree) is then frozen out of its reach: a Python tree
        grows by hundreds of thousands of objects a move, and scanning them took
        seconds, whichever thread happened to trigger it, so the player answered
        late. The tree has no reference cycles (children only), nor have the
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
        game.role_index(role)  # an unknown role fails here
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
        if self.compiled_tree is not None and not self._clocked:
            try:
                return self._select_compiled(self.compiled_tree, game, state, role, limit, deadline)
            except CannotSearchError:  # the compiled tree cannot search this: Python from now on
                self.compiled_tree = None
                self.report = None
        clock = (started, deadline)
        return self._select_python(game, state, role, legal, limit.playouts, clock, workers)

    def _select_python(
        self,
        game: Game[Any],
        state: Hashable,
        role: str,
        legal: list[Term],
        playouts: int | None,
        clock: tuple[float, float],
        workers: SearchWorkers | None,
    ) -> Term:
        """The search of :meth:`_select` in the Python tree, for ``role`` with the moves
        ``legal``, within ``playouts`` and ``clock`` (when the search started, and its
        deadline)."""
        if self._walk is not None and self.best.line_from(state)[0] < 1.0:
            started, deadline = clock
            share = self._walk_share() * (deadline - started)
            self.best.keep(game, state, *self._walk.search(state, started + share))
        tree = self.python_tree
        tree.compiled_playouts = self._compiled and not self._clocked
        root = tree.reroot(game, state, *clock)
        budget = playouts if playouts is not None else math.inf
        self.last_iterations, self.last_playouts = tree.search(root, clock[1], budget)
        if len(legal) == 1:
            return legal[0]
        if workers is not None and len(game.roles) == 1:  # a worker's line may be better
            for reply in workers.collect(time.monotonic() + COLLECT_SECONDS):
                self.best.keep(game, state, reply.line_value, reply.line)
        line_move = self.best.next_move(state)
        r = game.role_index(role)
        moves, visits = root.moves[r], root.counts[r]
        if line_move is not None and self.best.not_proven_worse(
            line_move, moves, tree.exact(root, r)
        ):
            return self.best.unless_end_waits(game, state, line_move, moves, visits)
        choice = moves[tree.final_choice(root, r)]
        if workers is None or root.proven is not None:
            return choice
        replies = workers.collect(time.monotonic() + COLLECT_SECONDS)
        return merged_choice(self.root_visits(role), [reply.visits for reply in replies], choice)

    def _keep_line_to_end(self, game: Game[Any], state: Hashable, deadline: float) -> None:
        """Keep the shortest line from ``state`` to an end of the game, found by
        breadth-first search until ``deadline``, unless a kept line passes ``state`` and
        ends the game; with none found, keep no line (the tree's choice is played).

        Why: the compiled tree values a state whose latched facts settle the goal as if
        the game ended there (every line on scores the same), so its line may stop short
        of the end; where the root itself is settled (a goal that holds in every state,
        as factoringGeorgeForman's 100, settles every state), any move keeps the value,
        and a line of such moves may come back to where it began. The match still has to
        end: the agent played moves that never ended it.
        """
        value, moves = self.best.line_from(state)
        if value >= 0 and _line_ends(game, state, moves):
            return
        self.best.clear()
        if self._ending_walk is None:  # its random matches take a share of this move
            share = max(0.0, deadline - time.perf_counter()) * ENDING_COUNTER_SHARE
            self._ending_walk = BreadthFirstLine(game, random.Random(WALK_SEED), share)
        value, moves = self._ending_walk.search(state, deadline)
        if value >= 0:
            self.best.keep(game, state, value, moves)

    def _select_compiled(
        self,
        tree: CompiledTree,
        game: Game[Any],
        state: Hashable,
        role: str,
        limit: Limit,
        deadline: float,
    ) -> Term:
        """The search of :meth:`_select` run in the game's compiled tree."""
        seconds = None if deadline == math.inf else max(0.0, deadline - time.perf_counter())
        report = tree.search(game, state, role, seconds, limit.playouts)
        self.report = report
        self.last_iterations = report.iterations
        self.last_playouts = round(report.playouts)
        legal = game.legal_moves(state, role)
        workers = self._workers
        if len(game.roles) == 1 and len(legal) > 1:  # the best line, even where the tree
            self.best.keep(game, state, report.best_value, report.best_line)  # had no time
            if report.proven is not None and not _line_ends(game, state, report.best_line):
                self._keep_line_to_end(game, state, deadline)  # settled, not ended
            if workers is not None:  # a worker's line may be better
                for reply in workers.collect(time.monotonic() + COLLECT_SECONDS):
                    self.best.keep(game, state, reply.line_value, reply.line)
            line_move = self.best.next_move(state)
            if report.fill is not None and (
                line_move is None or self.best.value <= report.best_value
            ):
                return report.fill  # a fill puzzle's solver's move: no better line kept
            if line_move is not None and self.best.not_proven_worse(
                line_move, report.moves, report.exact
            ):
                return self.best.unless_end_waits(
                    game, state, line_move, report.moves, report.visits
                )
        if len(legal) == 1 or report.mover != role or not report.moves:
            return legal[0]
        if set(report.moves) != set(legal):  # never play from another position's statistics
            raise CannotSearchError(
                f"{game.name}: the compiled tree's root is not the state searched"
            )
        choice = report.moves[report_choice(report)]
        if workers is None or report.proven is not None:
            return choice
        replies = workers.collect(time.monotonic() + COLLECT_SECONDS)
        own = self.root_visits(role)  # the moves this search has not proven worse
        others = [{m: n for m, n in r.visits.items() if m in own} for r in replies]
        return merged_choice(own, others, choice)


def _line_ends(game: Game[Any], state: Hashable, moves: Sequence[Term]) -> bool:
    """Whether one-role ``moves`` played from ``state`` end the game."""
    for move in moves:
        state = game._next(state, [move])
    return game.is_terminal(state)


def _sooner(limit: Limit, seconds: float) -> Limit:
    """``limit`` with ``seconds`` less time (when it has a time), so an answer arrives in it."""
    if limit.time is None:
        return limit
    return Limit(time=max(limit.time - seconds, 0.0), playouts=limit.playouts, depth=limit.depth)

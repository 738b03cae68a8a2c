"""The MCTS agent's driver of a game's compiled tree, and the heuristics it is given.

* **Compiled trees.** Where the game declares ``capabilities.tree_search`` (GDL
  games on the propnet, some native games), the whole search runs in that compiled
  tree (:class:`~ggpkit.search.contract.TreeSearch`): selection, expansion, playouts,
  backups and proofs without the interpreter, at a large multiple of the Python
  tree's iterations. The choice of move, the best line of a one-player game,
  thoughts and root-parallel merging read its root statistics. In games of several
  roles, ``paths`` paths descend, each counting a virtual loss on its way, before
  their leaves share one 64-lane batch of playouts: a leaf then costs a fraction of a
  batch instead of a scalar playout, and the tree grows much faster than one leaf at
  a time. Unless given, ``paths`` is chosen per game so that a path's playouts cost
  about what the path does (:mod:`~ggpkit.agents.mcts.batch_split`), from the
  playouts timed at the start and what the tree spent a path in the last search. With
  ``paths=1`` (or MAST, or GRAVE) a ``leaf`` of 8 or more becomes a full 64-lane
  batch at one leaf (it costs the same). Where several roles choose at once, the
  compiled tree's paths search with decoupled UCB (each role its own statistics,
  blind to the others' pick; the Python tree uses Exp3 there). A state it cannot
  search (several roles choosing with one path, MAST or GRAVE, or more than 4,096
  joint moves) sends the game back to the Python tree for the rest of the match.
  What each option does is its help in :class:`~ggpkit.search.options.SearchOptions`.
* **Heuristics, decided per game.** Unless given, random matches at the start decide
  how a new leaf is valued beyond its playouts: by its state's goals (the goal
  heuristic), else by the pieces each role won or lost (the material heuristic),
  else by the roles' shares of the legal moves (the mobility heuristic):
  :mod:`~ggpkit.agents.mcts.goal_heuristic`, :mod:`~ggpkit.agents.mcts.material_heuristic`,
  :mod:`~ggpkit.agents.mcts.mobility_heuristic`; seeded, so root-parallel workers agree.
* **Puzzles on a propnet.** In a one-role game the compiled tree first gives ``dfs``
  of the searches' time (the solver runs in the agent's own process only, so with
  two threads ``dfs=0.5`` is all of that process's move) to a depth-first solver whose
  transposition table is kept for the match (:mod:`~ggpkit.search.puzzles.depth_first`:
  small puzzles are solved outright), and ``nested`` to nested Monte Carlo search
  (:mod:`~ggpkit.search.puzzles.nested`); the best line any of them found is kept and
  played (the solver's only where it is worth something or exact: see
  :mod:`~ggpkit.search.propnet.game_tree`).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Hashable
from dataclasses import dataclass, replace
from typing import Any

from ggpkit.agents.mcts.batch_split import LANES, path_seconds, paths_sharing_a_batch
from ggpkit.agents.mcts.goal_heuristic import banks_goals, goal_heuristic_weight
from ggpkit.agents.mcts.material_check import pieces_guide_play
from ggpkit.agents.mcts.material_heuristic import MATERIAL_WEIGHT, material_sets
from ggpkit.agents.mcts.mobility_heuristic import mobility_foretells
from ggpkit.agents.mcts.options import MCTSOptions
from ggpkit.agents.mcts.probe import probe_matches
from ggpkit.games.api import Game
from ggpkit.gdl.terms import Term
from ggpkit.search.contract import TreeReport, TreeSearch
from ggpkit.search.options import SearchLimit, SearchOptions

CALIBRATION_SECONDS = 0.03
"""The search at the start that times a path of the compiled tree."""

GOAL_PROBE_SEED = 20261125
"""Seed of the heuristics' probe: every process of a root-parallel search decides alike."""


@dataclass(frozen=True, slots=True)
class Heuristics:
    """How the compiled tree values a new leaf in this match, beyond its playouts."""

    goals: float = 0.0
    """Share of a new leaf's value its heuristic goals give: the goals of its state, or
    with :attr:`pieces` the roles' shares of the pieces, or :attr:`by_mobility` of the
    roles' legal moves."""
    pieces: tuple[frozenset[Term], ...] = ()
    """Each role's pieces, where the material heuristic is used."""
    by_mobility: bool = False
    """The heuristic goals are the roles' shares of their moves."""


def decide_heuristics(game: Game[Any], options: SearchOptions) -> Heuristics:
    """The goal heuristic's weight, else the material heuristic's pieces and weight
    (not where goals are banked: :func:`banks_goals`), else the mobility heuristic's
    weight; what ``options`` give is kept, what they leave to the game is decided by
    random matches."""
    goals = options.goal_share()
    wants_material = options.material != 0.0
    wants_mobility = options.mobility > 0.0
    if options.goals is not None and (options.goals > 0 or not (wants_material or wants_mobility)):
        return Heuristics(goals)
    matches = probe_matches(game, random.Random(GOAL_PROBE_SEED))
    if options.goals is None:
        goals = goal_heuristic_weight(game, matches)
    asked = options.material is not None  # a weight given wins over banked goals
    if (
        goals == 0.0
        and wants_material
        and matches is not None
        and (asked or not banks_goals(game, matches))
    ):
        pieces = material_sets(game, matches) or ()
        if pieces and (asked or pieces_guide_play(game, pieces, matches, random.Random(1))):
            return Heuristics(options.material or MATERIAL_WEIGHT, pieces)
    if goals == 0.0 and wants_mobility and mobility_foretells(game, matches):
        return Heuristics(options.mobility, by_mobility=True)
    return Heuristics(goals)


class CompiledTree:
    """A game's compiled tree as the agent searches it in one match.

    Each search is told the agent's ``options`` with what this match decided: the
    heuristics, the paths of a batch, the playouts a leaf, the solver's share of the
    time (``solver_share``: see :class:`~ggpkit.agents.mcts.agent.MCTSAgent`) and a
    seed from ``rng``. ``compiled_playouts``: the game's playouts run in compiled code,
    so a batch of 64 costs what 8 do.
    """

    def __init__(
        self,
        tree: TreeSearch,
        options: MCTSOptions,
        rng: random.Random,
        solver_share: float,
        compiled_playouts: bool,
    ) -> None:
        self.tree = tree
        self.options = options
        self.rng = rng
        self.solver_share = solver_share
        self.compiled_playouts = compiled_playouts
        self.heuristics = Heuristics(options.goal_share())
        """This match's heuristics (decided at its start in games of several roles)."""
        self.paths = options.paths or LANES
        """The paths that share a batch in this match (unless given, revised after every
        search: see :mod:`~ggpkit.agents.mcts.batch_split`)."""
        self.playout_seconds = 0.0
        """What one more compiled playout costs in this game (timed at the start)."""

    def calibrate(self, game: Game[Any], role: str) -> None:
        """Short searches from the start (the tree keeps what they found): the first loads
        the tree's kernels; then, unless given, how the first move's batches are split
        by what a path costs in this game. Raises CannotSearchError where the tree
        cannot search the game."""
        state = game.initial_state()
        self.search(game, state, role, None, 1)
        if self.options.paths is None:
            self.search(game, state, role, CALIBRATION_SECONDS, None)

    def search(
        self,
        game: Game[Any],
        state: Hashable,
        role: str,
        seconds: float | None,
        playouts: int | None,
    ) -> TreeReport:
        """One search of the compiled tree within the limits; then the paths of a batch
        are chosen again from what this search spent a path (unless given)."""
        o = self.options
        # A 64-lane batch costs the same for 8 playouts as for 64: fill it.
        batched = self.paths > 1 and len(game.roles) > 1 and not o.mast and not o.grave
        if batched:  # the paths share the batch's lanes
            leaf = per_iteration = LANES // self.paths
        else:
            leaf = LANES if self.compiled_playouts and o.leaf >= 8 else o.leaf
            per_iteration = leaf if leaf >= 8 else 1
        iterations = None if playouts is None else -(-playouts // per_iteration)
        if seconds is None and iterations is None:
            iterations = 1
        heuristics = self.heuristics
        options = replace(
            o,
            c=o.exploration(batched),
            leaf=leaf,
            seed=self.rng.getrandbits(63),
            paths=self.paths,
            goals=heuristics.goals,
            pieces=heuristics.pieces,
            mobility=heuristics.goals if heuristics.by_mobility else 0.0,
            dfs=self.solver_share,
        )
        began = time.perf_counter()
        report = self.tree.search(state, SearchLimit(seconds, iterations), options, role)
        if batched and o.paths is None and report.greedy:
            self.paths = LANES  # a greedy playout costs more than the timed ones: not a path
        elif batched and o.paths is None:
            took = time.perf_counter() - began
            spent = path_seconds(took, report.iterations, report.playouts, self.playout_seconds)
            if not math.isnan(spent):
                self.paths = paths_sharing_a_batch(spent, self.playout_seconds)
        return report

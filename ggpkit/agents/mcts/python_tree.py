"""The MCTS agent's tree in Python: UCT through the game API, for any game.

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
  choice never takes a move proven worse than another proven move.
* **Tree reuse.** The table survives between the moves of a match; at each move the
  nodes not reachable from the actual state are dropped.
* **Playouts** run in compiled code when the game declares compiled playouts
  (``info.capabilities.compiled_playouts``: the native engines and GDL games on the
  propnet); otherwise through a loop on the API that checks the clock at every step.
  Compiled, the tree runs ``leaf`` playouts per new leaf in one ``playout_stats``
  call: a kernel playout costs a small fraction of one pass down the tree in Python,
  so several samples per pass give better statistics for the same time. In one-player
  games the API loop is always used because it records the moves: the agent keeps the
  best complete line seen and plays it (a line found in a deterministic one-player game
  is a guaranteed score; :mod:`~ggpkit.agents.mcts.best_line`).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Hashable
from typing import Any

from ggpkit.agents.base import Thoughts
from ggpkit.agents.mcts.best_line import BestLine, Line
from ggpkit.agents.mcts.choice import TOP, candidates, choose
from ggpkit.games.api import Game
from ggpkit.gdl.terms import Term
from ggpkit.search.options import UCB_C

PYTHON_TREE_NODES = 200_000
"""Most nodes the Python tree holds unless told (the compiled tree has its own budget)."""

EXP3_GAMMA = 0.1
"""Exp3 exploration rate at simultaneous nodes (share of uniformly random choices)."""

Reward = tuple[float, ...]
Joint = tuple[int, ...]


class Node:
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
        self.children: dict[Joint, Node] = {}
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
        self.kids: list[Node | None] = (
            []
            if simultaneous
            else [None] * len(self.moves[self.choosers[0]] if self.choosers else [0])
        )
        """Children by the mover's move index, where at most one role has a choice."""
        self.exp3: list[list[float]] = (
            [[0.0] * len(ms) for ms in self.moves] if simultaneous else []
        )
        self.chosen_prob: list[float] = [1.0] * n if simultaneous else []

    def link(self, joint: Joint, child: Node) -> None:
        """Remember the child reached by ``joint``."""
        self.children[joint] = child
        if self.kids:
            self.kids[joint[self.choosers[0]] if self.choosers else 0] = child


class _OutOfTime(Exception):
    """The clock ran out inside an iteration; the iteration is dropped."""


class PythonTree:
    """UCT with decoupled statistics, transpositions, solver backups and tree reuse.

    ``c`` is the UCB constant (None: :data:`~ggpkit.search.options.UCB_C`), ``leaf`` the
    compiled playouts a new leaf gets, ``max_nodes`` the most nodes kept (None:
    :data:`PYTHON_TREE_NODES`); in one-role games its playouts' lines are offered to ``best``.
    """

    def __init__(
        self,
        rng: random.Random,
        c: float | None,
        leaf: int,
        max_nodes: int | None,
        best: BestLine,
    ) -> None:
        self.rng = rng
        self.c = UCB_C if c is None else c
        self.leaf = max(1, leaf)
        self.max_nodes = max_nodes or PYTHON_TREE_NODES
        self.best = best
        self.game: Game[Any] | None = None
        self.nodes: dict[Hashable, Node] = {}
        self.root: Node | None = None
        self.compiled_playouts = False
        """This move's playouts run in the game's compiled kernels (the agent decides)."""

    def clear(self) -> None:
        """Forget the tree (a new match)."""
        self.game = None
        self.nodes = {}
        self.root = None

    def search(self, root: Node, deadline: float, playouts: float) -> tuple[int, int]:
        """Iterate from ``root`` until ``deadline``, ``playouts`` simulations or a proof:
        (iterations, simulations)."""
        game = self.game
        assert game is not None, "reroot first"
        iterations = 0
        done = 0
        try:
            while done < playouts and root.proven is None:
                if time.perf_counter() >= deadline:
                    break
                done += self._iterate(game, root, deadline)
                iterations += 1
        except _OutOfTime:
            pass
        return iterations, done

    def reroot(self, game: Game[Any], state: Hashable, started: float, deadline: float) -> Node:
        """The root node for ``state``, keeping only what is reachable from it."""
        self.game = game
        root = self.nodes.get(state)
        if root is None:
            self.nodes = {}
            root = self.nodes[state] = Node(game, state)
        elif root is not self.root:
            budget = started + 0.25 * (deadline - started) if deadline < math.inf else math.inf
            kept: dict[Hashable, Node] = {state: root}
            stack = [root]
            while stack:
                node = stack.pop()
                for child in node.children.values():
                    if child.state not in kept:
                        kept[child.state] = child
                        stack.append(child)
                if len(kept) % 1024 == 0 and time.perf_counter() > budget:
                    kept = {}  # cheaper to start again than to overrun the clock
                    root = Node(game, state)
                    kept[state] = root
                    break
            self.nodes = kept
        self.root = root
        return root

    def _iterate(self, game: Game[Any], root: Node, deadline: float) -> int:
        """One selection, expansion, playout and backup; returns the simulations it counted."""
        weight = 1
        path: list[tuple[Node, Joint]] = []
        seen = {root.state}
        node = root
        line: Line | None = [] if len(game.roles) == 1 else None
        while True:
            if node.proven is not None:
                reward = node.proven
                break
            joint = self._choose(node)
            child = node.children.get(joint)
            if child is None:
                moves = [node.moves[r][i] for r, i in enumerate(joint)]
                child_state = game._next(node.state, moves)
                child = self.nodes.get(child_state)
                if child is None:
                    child = Node(game, child_state)
                    if len(self.nodes) < self.max_nodes:
                        self.nodes[child_state] = child
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
        if line is not None:
            self.best.offer(reward[0], line)
        self._backup(path, reward, weight)
        return weight

    def _choose(self, node: Node) -> Joint:
        """The joint move: UCB for the one role with a choice, Exp3 for each when several."""
        joint = [0] * len(node.moves)
        if len(node.choosers) == 1:
            r = node.choosers[0]
            joint[r] = self._ucb_turn(node, r)
            return tuple(joint)
        for r in node.choosers:
            joint[r] = self._exp3(node, r)
        return tuple(joint)

    def _exp3(self, node: Node, r: int) -> int:
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

    def _ucb_turn(self, node: Node, r: int) -> int:
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
        c = self.c
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
        self, game: Game[Any], state: Hashable, deadline: float, line: Line | None
    ) -> tuple[Reward, int]:
        """Random play to the end: (mean reward per role, number of playouts).

        The compiled kernels when the game has them (and they are fast enough for the
        move's time: :attr:`compiled_playouts`), else a clocked loop on the API.
        """
        if self.compiled_playouts:
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

    def _backup(self, path: list[tuple[Node, Joint]], reward: Reward, weight: int) -> None:
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

    def _prove(self, node: Node) -> bool:
        """Try to prove ``node`` from its children; True when it became proven."""
        if not node.choosers:
            child = node.children.get(tuple(0 for _ in node.moves))
            if child is not None and child.proven is not None:
                node.proven = child.proven
            return node.proven is not None
        if len(node.choosers) == 1:
            return self._prove_turn(node, node.choosers[0])
        return self._prove_simultaneous(node)

    def _prove_turn(self, node: Node, m: int) -> bool:
        best: Reward | None = None
        complete = True
        for i in range(len(node.moves[m])):
            child = node.kids[i]
            if child is None or child.proven is None:
                complete = False
                continue
            value = child.proven
            if value[m] >= TOP:
                node.proven = value
                return True
            if best is None or value[m] > best[m]:
                best = value
        if complete and best is not None:
            node.proven = best
        return node.proven is not None

    def _prove_simultaneous(self, node: Node) -> bool:
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
        game = self.game
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

    def final_choice(self, root: Node, r: int) -> int:
        """The most visited move, never one proven worse than another proven move."""
        counts = root.counts[r]
        means = [s / n if n else -1.0 for s, n in zip(root.sums[r], counts, strict=True)]
        if len(root.choosers) != 1:
            return max(range(len(counts)), key=lambda i: (counts[i], means[i]))
        return choose(self.exact(root, r), counts, means)

    @staticmethod
    def exact(root: Node, r: int) -> list[float | None]:
        """Per move of role ``r`` at ``root``: its proven value for ``r``, or None."""
        if root.choosers != (r,):  # children are known by the one chooser's moves only
            return [None] * len(root.counts[r])
        out: list[float | None] = []
        for child in root.kids:
            out.append(None if child is None or child.proven is None else child.proven[r])
        return out

    def root_visits(self, role: str) -> dict[Term, int]:
        """How often the last search tried each of ``role``'s moves at its root, but the
        moves proven worse than another."""
        root, game = self.root, self.game
        if root is None or game is None or root.terminal:
            return {}
        r = game.role_index(role)
        return {root.moves[r][i]: root.counts[r][i] for i in candidates(self.exact(root, r))}

    def thoughts(self, role: str) -> Thoughts | None:
        """The last search's value for ``role`` and its most visited moves (top 3)."""
        root, game = self.root, self.game
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
        chosen = self.final_choice(root, r) if len(counts) > 1 else 0
        others = [i for i in range(len(counts)) if i != chosen and counts[i]]
        ranked = [chosen, *sorted(others, key=lambda i: -counts[i])][:3]
        shares = tuple((root.moves[r][i], counts[i] / max(total, 1)) for i in ranked)
        return Thoughts(value, shares, verdict)

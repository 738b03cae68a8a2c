"""The fast reasoner: GDL rules grounded by clingo, run as a propnet by numba kernels.

``PropnetReasoner.from_rules(rules)`` grounds the rules (``grounding.py``),
builds the network (``propnet.py``) and implements the :class:`Reasoner`
protocol on it. A state is ``bytes``: the base-proposition bitset, packed
(little bit order) over :attr:`Propnet.base`, which is sorted by text; so states
are immutable, hashable and compact enough for search trees.

:meth:`PropnetReasoner.playout_stats` runs whole random playouts inside one
compiled call: that is what a GDL-backed game delegates its playouts to.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from ggpkit.gdl.kif import Rule
from ggpkit.gdl.terms import Term, strip_pos
from ggpkit.reasoning.base import PlayoutStats, Propositions, ReasonerError
from ggpkit.reasoning.grounding.grounder import (
    DEFAULT_MAX_ATOMS,
    DEFAULT_TIMEOUT,
    Compiled,
    CompileJob,
    CompileReport,
    GroundingError,
    compile_rules,
)
from ggpkit.reasoning.propnet import graph as propnet_graph
from ggpkit.reasoning.propnet import kernels as k
from ggpkit.reasoning.propnet.batch import PropnetStepper
from ggpkit.reasoning.propnet.build import Propnet, build
from ggpkit.reasoning.propnet.incremental import work_arrays
from ggpkit.reasoning.propnet.layout import check_layout, legal_runs
from ggpkit.reasoning.propnet.split import (
    ERR_UNTIED,
    MAX_SPLIT_NODES,
    SplitPlayouts,
    find_sentinel,
    split,
)

DEFAULT_MAX_STEPS = 100_000
SPLIT_TRIAL_SECONDS, SPLIT_GAIN = 0.03, 1.15
"""CPU seconds each network gets to show its speed, and the gain that decides for the split."""
SPLIT_TRIAL_STEPS = 2_000
"""Longest trial playout: a game whose random playouts run longer keeps the full network
(a playout cannot be stopped midway, and the trial must stay short)."""
SENTINEL_LINES, SENTINEL_STEPS = 4, 40
"""Random lines (and their longest length) that look for whose turn it is."""
LANE_THRESHOLD = 8
"""Batches of at least this many playouts run 64 at a time (bit-parallel kernel)."""
SPLIT_TRIAL_PLAYOUTS = LANE_THRESHOLD - 1
"""The most playouts a scalar call makes: the size of the split trial's calls."""

__all__ = ["GroundingError", "PropnetReasoner"]


EXPANDED_KEPT = 4096
"""Successors one compiled call of :meth:`PropnetReasoner.seen_successors` returns at most
(it is called again for the states left)."""


class _Scratch:
    """One thread's working memory for evaluating the network."""

    __slots__ = ("goals_ready", "playout_val", "playout_work", "state", "val", "val64")

    def __init__(self, net: Propnet) -> None:
        self.val = np.zeros(net.size, dtype=np.uint8)
        self.val[1] = 1  # node 1 is the constant true
        self.playout_val = self.val.copy()
        self.playout_work: tuple[object, ...] | None = None
        """The scalar playouts' propagation state, kept between calls (made at the
        first; a thread that never plays out does not hold it); last, whether
        ``playout_val`` and it are consistent yet."""
        self.val64 = np.zeros(net.size, dtype=np.uint64)
        self.state: bytes | None = None
        """The state whose phase A ``val`` holds, or None."""
        self.goals_ready = False
        """True when ``val`` also holds the goal phase of ``state``."""


class PropnetReasoner:
    """A :class:`~ggpkit.reasoning.base.Reasoner` over ``bytes`` states, backed by a propnet."""

    def __init__(self, net: Propnet) -> None:
        check_layout(legal_runs(net.legal_lits, net.move_start), net.size)
        self.net = net
        self.compile_report: CompileReport | None = None
        """Where the compilation's time went, when it was compiled from rules here."""
        self.name = "propnet"
        self.roles: tuple[str, ...] = net.roles
        self.batch: PropnetReasoner | None = self
        self._scratch = threading.local()
        self._move_index = [
            {m: i for i, m in enumerate(moves)} for moves in net.moves
        ]  # role -> move -> index in its legal list
        self._base_index = {f: i for i, f in enumerate(net.base)}
        # Literals split into node index and negation bit, for vectorized reads.
        self._next_src = net.next_lits >> 1
        self._next_neg = (net.next_lits & 1).astype(np.uint8)
        self._legal_lits = [
            (
                net.legal_lits[net.move_start[r] : net.move_start[r + 1]] >> 1,
                (net.legal_lits[net.move_start[r] : net.move_start[r + 1]] & 1).astype(np.uint8),
            )
            for r in range(len(net.roles))
        ]
        self._sees_src = net.sees_lits >> 1
        self._sees_neg = (net.sees_lits & 1).astype(np.uint8)
        self._all_percepts = [(r, p) for r, ps in enumerate(net.percepts) for p in ps]
        """Each percept literal's role and term, in ``sees_lits`` order: a step reads
        the few that hold, not every one a role could ever see."""
        self._sees_of_role = [
            np.array([i for i, (owner, _) in enumerate(self._all_percepts) if owner == r],
                     dtype=np.int64)
            for r in range(len(net.roles))
        ]  # fmt: skip
        self._percept_position = [
            {self._all_percepts[i][1]: position for position, i in enumerate(lits)}
            for lits in self._sees_of_role
        ]
        init = np.asarray(net.init, dtype=np.uint8)
        self._initial = self._pack(init)
        self._split_lock = threading.Lock()
        self._split: SplitPlayouts | None = None
        self._split_tried = False
        # Compile (or load from cache) the kernels now, not in the middle of a game.
        self.terminal(self._initial)

    def _work(self) -> _Scratch:
        """This thread's working memory (node values, the state they hold), made on first use.

        Why per thread: the network is evaluated in place, so two threads sharing one
        value array would read each other's half-computed states.
        """
        work: _Scratch | None = getattr(self._scratch, "work", None)
        if work is None:
            work = _Scratch(self.net)
            self._scratch.work = work
        return work

    @classmethod
    def from_rules(
        cls,
        rules: Sequence[Rule],
        timeout: float | None = DEFAULT_TIMEOUT,
        max_atoms: int = DEFAULT_MAX_ATOMS,
    ) -> PropnetReasoner:
        """Ground ``rules`` and build the reasoner; GroundingError if the game is too big.

        Grounding and building both run in the grounder's killable child process.
        """
        # Loaded here once per process, the build's compiled passes are inherited by every
        # grounding child instead of being loaded from numba's cache in each (a cost per load).
        propnet_graph.warm_up()
        return cls.from_compiled(
            compile_rules(list(rules), build, timeout=timeout, max_atoms=max_atoms)
        )

    @classmethod
    def start_compiling(
        cls, rules: Sequence[Rule], limit: float, max_atoms: int = DEFAULT_MAX_ATOMS
    ) -> CompileJob[Propnet]:
        """The compilation of :meth:`from_rules` in a child, to wait for now or later."""
        propnet_graph.warm_up()
        return CompileJob(list(rules), build, limit, max_atoms)

    @classmethod
    def from_compiled(cls, compiled: Compiled[Propnet]) -> PropnetReasoner:
        """The reasoner on a compiled network, with its compilation's report."""
        made = cls(compiled.result)
        made.compile_report = compiled.report
        return made

    def _scalar_playouts(
        self, bits: npt.NDArray[np.uint8], count: int, seed: int, max_steps: int
    ) -> tuple[int, int, npt.NDArray[np.int64], int]:
        """Playouts one at a time: (done, joint moves, goal sums, kernel error code).

        On the network split on whose turn it is where the game has one; a state that
        breaks the split's ties drops it for good, and the batch runs again on the full
        network (with the same random streams, so the totals are the same either way).
        """
        turns = self._turn_split()
        if turns is not None:
            done, moves, sums, err = turns.run(bits, count, seed, max_steps)
            if err != ERR_UNTIED:
                return done, moves, sums, err
            with self._split_lock:
                self._split = None
        return self._full_playouts(bits, count, seed, max_steps)

    def _full_playouts(
        self, bits: npt.NDArray[np.uint8], count: int, seed: int, max_steps: int
    ) -> tuple[int, int, npt.NDArray[np.int64], int]:
        """:meth:`_scalar_playouts` on the full network."""
        net = self.net
        scratch = self._work()
        if scratch.playout_work is None:
            scratch.playout_work = (*work_arrays(net), np.zeros(1, dtype=np.uint8))
        w = scratch.playout_work
        done, moves, sums, err = k.playouts(
            net.kind, net.in_start, net.inputs, net.order, net.blocks, net.phases,
            net.base_nodes, net.next_lits, net.legal_lits, net.does_nodes, net.move_start,
            net.terminal_lit, net.goal_lits, net.goal_values, net.goal_start,
            net.fan_start, net.fanout, net.scc, net.scc_start, net.scc_nodes,
            net.needed, w[0], w[1], w[2], w[3], w[11] if net.watches_next else None, w[5], w[-1],
            bits, count, seed, max_steps, scratch.playout_val,
        )  # fmt: skip
        return int(done), int(moves), sums, int(err)

    def _turn_split(self) -> SplitPlayouts | None:
        """The network split on whose turn it is, for scalar playouts; None where no base
        fact flips at every step (or the network is too big to copy). Found once."""
        with self._split_lock:
            if not self._split_tried:
                self._split_tried = True
                tied = self._find_sentinel()
                if tied is not None:
                    turns = SplitPlayouts(split(self.net, tied))
                    if self._split_pays(turns):
                        self._split = turns
            return self._split

    def _split_pays(self, turns: SplitPlayouts) -> bool:
        """Whether playouts on the split network are clearly faster than on the full one.

        In connectFour or reversi whose turn it is decides little, and two copies to
        keep up to date cost more than they save; in breakthrough and checkers it
        decides every move, and the split is much faster (docs/results.md).
        Timed, by this thread's CPU, from the initial state: the choice changes the
        speed only, never the totals. In calls of
        the most playouts a scalar call makes (from one up, doubling, so a game of long
        playouts does not overrun the trial by much): in calls of one, the dispatch of
        the copies' arrays weighs as much as the kernels, and hid breakthroughSmallHoles'
        gain; in calls of seven it shows nearly whole.
        """
        bits = self._unpack(self._initial)
        rates = []
        for run in (turns.run, self._full_playouts):
            run(bits, 1, 0, SPLIT_TRIAL_STEPS)  # loaded (and compiled) before it is timed
            done, per_call, began = 0, 1, time.thread_time()
            while (spent := time.thread_time() - began) < SPLIT_TRIAL_SECONDS:
                done += run(bits, per_call, done + 1, SPLIT_TRIAL_STEPS)[0]
                per_call = min(SPLIT_TRIAL_PLAYOUTS, 2 * per_call)
            rates.append(done / spent)
        return rates[0] > SPLIT_GAIN * rates[1]

    def _find_sentinel(self) -> dict[int, bool] | None:
        """Whose turn it is (:func:`~ggpkit.reasoning.propnet.split.find_sentinel`), from a
        few random lines (seeded: the same each time), in a game of several roles."""
        if len(self.roles) < 2 or self.net.size > MAX_SPLIT_NODES:
            return None
        rng = random.Random(0)
        lines = []
        try:
            for _ in range(SENTINEL_LINES):
                state, line = self._initial, [self._initial]
                while not self.terminal(state) and len(line) < SENTINEL_STEPS:
                    joint = [rng.choice(self.legal(state, r)) for r in range(len(self.roles))]
                    state = self.next(state, joint)
                    line.append(state)
                lines.append(line)
        except (ReasonerError, IndexError):  # no legal move or no goal: no split either
            return None
        return find_sentinel(lines, self._unpack)

    # ---- states --------------------------------------------------------------------------

    def _pack(self, bits: npt.NDArray[np.uint8]) -> bytes:
        return np.packbits(bits, bitorder="little").tobytes()

    def _unpack(self, state: bytes) -> npt.NDArray[np.uint8]:
        raw = np.frombuffer(state, dtype=np.uint8)
        return np.unpackbits(raw, count=len(self.net.base), bitorder="little")

    def bits(self, state: bytes) -> npt.NDArray[np.uint8]:
        """The state as one byte (0 or 1) per base proposition, in :attr:`Propnet.base` order."""
        return self._unpack(state)

    def _load(self, state: bytes) -> _Scratch:
        """This thread's scratch, holding phase A of ``state`` (legal and terminal)."""
        work = self._work()
        if state == work.state:
            return work
        net = self.net
        work.state = None
        k.set_state(self._unpack(state), net.base_nodes, work.val)
        k.eval_phase(
            net.kind, net.in_start, net.inputs, net.order, net.blocks,
            net.phases[0], net.phases[1], work.val,
        )  # fmt: skip
        work.state = state
        work.goals_ready = False
        return work

    def state_from_facts(self, facts: Iterable[Term]) -> bytes:
        """The state whose true base facts are ``facts``; ReasonerError for an impossible fact."""
        bits = np.zeros(len(self.net.base), dtype=np.uint8)
        for f in facts:
            i = self._base_index.get(strip_pos(f))
            if i is None:
                raise ReasonerError(f"{f} is not a possible base fact of this game")
            bits[i] = 1
        return self._pack(bits)

    # ---- the Reasoner protocol -----------------------------------------------------------

    def initial(self) -> bytes:
        """The state described by ``init``."""
        return self._initial

    def legal(self, state: bytes, role_index: int) -> list[Term]:
        """The legal moves of one role, sorted by their text."""
        work = self._load(state)
        src, neg = self._legal_lits[role_index]
        moves = self.net.moves[role_index]
        return [moves[i] for i in np.flatnonzero(work.val[src] ^ neg)]

    def next(self, state: bytes, moves: Sequence[Term]) -> bytes:
        """The state after a joint move in role order."""
        val, does = self._with_moves(state, moves)
        bits = val[self._next_src] ^ self._next_neg
        val[does] = 0
        return self._pack(bits)

    def percepts(self, state: bytes, moves: Sequence[Term]) -> tuple[frozenset[Term], ...]:
        """GDL-II's ``sees`` after a joint move: phase B's percept literals, per role."""
        val, does = self._with_moves(state, moves)
        on = np.flatnonzero(val[self._sees_src] ^ self._sees_neg).tolist()
        val[does] = 0
        seen: list[list[Term]] = [[] for _ in self.roles]
        for i in on:  # a network built without percepts has none: GDL gives none
            role, percept = self._all_percepts[i]
            seen[role].append(percept)
        return tuple(frozenset(terms) for terms in seen)

    def seen_successors(
        self, states: Sequence[bytes], role_index: int, move: Term,
        seen: frozenset[Term] | None, widest: int,
    ) -> list[tuple[int, list[bytes]]]:  # fmt: skip
        """For each of ``states``, the joint moves in which role ``role_index`` plays
        ``move``: how many there are (none in a terminal state or where ``move`` is not
        legal), and the next state of each that gives that role exactly the percepts
        ``seen`` (each one where None); only the count where there are more than
        ``widest``. In compiled calls, 64 joint moves at a time."""
        net = self.net
        own = self._move_index[role_index].get(move)
        if own is None:  # never legal: no joint move has it
            return [(0, []) for _ in states]
        target = self._percept_target(role_index, seen)
        lits = self._sees_of_role[role_index] if seen is not None else self._sees_of_role[0][:0]
        bits = np.unpackbits(
            np.frombuffer(b"".join(states), dtype=np.uint8).reshape(len(states), -1),
            axis=1, count=len(net.base), bitorder="little",
        )  # fmt: skip
        if target is None:  # a percept the role can never get here: no joint move gives it
            target, lits = np.zeros(0, dtype=np.uint8), lits[:0]
            widest = -1  # counted only
        results: list[tuple[int, list[bytes]]] = []
        start, capacity = 0, EXPANDED_KEPT
        while start < len(states):
            done, counts, parents, out = k.expand_states(
                net.kind, net.in_start, net.inputs, net.order, net.blocks, net.phases,
                net.base_nodes, net.legal_lits, net.move_start, net.does_nodes,
                net.terminal_lit, bits[start:], role_index, own, max(widest, 0),
                self._sees_src[lits], self._sees_neg[lits], target,
                self._next_src, self._next_neg, capacity,
            )  # fmt: skip
            if done == 0:  # the first state alone has more successors: room for them
                capacity *= 4
                continue
            packed = np.packbits(out, axis=1, bitorder="little")
            found: list[list[bytes]] = [[] for _ in range(done)]
            for row, parent in zip(packed, parents.tolist(), strict=True):
                found[parent].append(row.tobytes())
            results += [(max(int(c), 0), f) for c, f in zip(counts[:done].tolist(), found,
                                                            strict=True)]  # fmt: skip
            start += done
        return results

    def _percept_target(
        self, role_index: int, seen: frozenset[Term] | None
    ) -> npt.NDArray[np.uint8] | None:
        """The values the role's percept literals take where it sees exactly ``seen``
        (none to read where None); None where it can never see one of them. Made anew
        each call (a call expands a batch of states): nothing shared between threads."""
        size = len(self._sees_of_role[role_index]) if seen is not None else 0
        target = np.zeros(size, dtype=np.uint8)
        positions = self._percept_position[role_index]
        for percept in seen or ():
            position = positions.get(percept)
            if position is None:
                return None
            target[position] = 1
        return target

    def _with_moves(
        self, state: bytes, moves: Sequence[Term]
    ) -> tuple[npt.NDArray[np.uint8], list[int]]:
        """This thread's node values with phase B of ``state`` under ``moves`` evaluated,
        and the move nodes set (the caller clears them once it has read what it needs)."""
        net = self.net
        if len(moves) != len(self.roles):
            raise ReasonerError(f"expected {len(self.roles)} moves, got {len(moves)}")
        does = []
        for r, m in enumerate(moves):
            i = self._move_index[r].get(m)  # positions take no part in term equality
            if i is None:
                raise ReasonerError(f"{m} is never a legal move of {self.roles[r]}")
            does.append(int(net.does_nodes[net.move_start[r] + i]))
        val = self._load(state).val
        val[net.does_nodes] = 0
        val[does] = 1
        k.eval_phase(
            net.kind, net.in_start, net.inputs, net.order, net.blocks,
            net.phases[2], net.phases[3], val,
        )  # fmt: skip
        return val, does

    def terminal(self, state: bytes) -> bool:
        """True in a terminal state."""
        work = self._load(state)
        x = self.net.terminal_lit
        return bool(work.val[x >> 1] ^ (x & 1))

    def goal(self, state: bytes, role_index: int) -> int:
        """The goal value of one role; ReasonerError unless exactly one is defined."""
        work = self._load(state)
        net = self.net
        if not work.goals_ready:
            k.eval_phase(
                net.kind, net.in_start, net.inputs, net.order, net.blocks,
                net.phases[4], net.phases[5], work.val,
            )  # fmt: skip
            work.goals_ready = True
        values = []
        for i in range(net.goal_start[role_index], net.goal_start[role_index + 1]):
            x = int(net.goal_lits[i])
            if work.val[x >> 1] ^ (x & 1):
                values.append(int(net.goal_values[i]))
        if len(values) != 1:
            raise ReasonerError(
                f"role {self.roles[role_index]} has {len(values)} goal values here"
                f" ({', '.join(map(str, values)) or 'none'}); GDL requires exactly one"
            )
        return values[0]

    def facts(self, state: bytes) -> frozenset[Term]:
        """The true base facts of ``state``."""
        bits = self._unpack(state)
        base = self.net.base
        return frozenset(base[i] for i in np.flatnonzero(bits))

    def stepper(self, count: int, max_steps: int) -> PropnetStepper:
        """``count`` matches stepped together in compiled code (a vector environment's core)."""
        return PropnetStepper(self.net, count, max_steps)

    def propositions(self) -> Propositions:
        """The network's base propositions and each role's input moves, sorted by text."""
        return Propositions(self.net.base, self.net.moves)

    # ---- compiled playouts ---------------------------------------------------------------

    def playout_stats(
        self, state: bytes, count: int, seed: int, max_steps: int = DEFAULT_MAX_STEPS
    ) -> PlayoutStats:
        """Run ``count`` uniformly random playouts from ``state`` in one compiled call.

        Each step every role picks uniformly among its legal moves; playout ``j`` of
        the batch draws from its own random stream (derived from ``seed`` and ``j``),
        so the totals depend only on ``(state, count, seed)``. Small batches run on
        the scalar kernel with differential propagation, larger ones 64 playouts at
        a time on the bit-parallel kernel; both give the same totals. ReasonerError
        when a role has no legal move, a terminal state lacks exactly one goal
        value per role, or a playout exceeds ``max_steps`` joint moves.
        """
        net = self.net
        if count <= 0:
            return PlayoutStats(0, 0, (0,) * len(self.roles))
        if self.terminal(state):
            goals = [self.goal(state, i) for i in range(len(self.roles))]
            return PlayoutStats(count, 0, tuple(count * g for g in goals))
        seed &= 0xFFFFFFFFFFFFFFFF
        if seed >= 1 << 63:  # numba takes a signed 64-bit int; the kernels wrap it back
            seed -= 1 << 64
        bits = self._unpack(state)
        if count < LANE_THRESHOLD:
            done, moves, sums, err = self._scalar_playouts(bits, count, seed, max_steps)
        else:
            done, moves, sums, err = k.playouts64(
                net.kind, net.in_start, net.inputs, net.order, net.blocks, net.phases,
                net.base_nodes, net.next_lits, net.legal_lits, net.does_nodes, net.move_start,
                net.terminal_lit, net.goal_lits, net.goal_values, net.goal_start,
                bits, count, seed, max_steps, self._work().val64,
            )  # fmt: skip
        if err == k.ERR_NO_LEGAL:
            raise ReasonerError("a role has no legal move in a non-terminal state")
        if err == k.ERR_GOAL:
            raise ReasonerError("a terminal state does not give exactly one goal value per role")
        if err == k.ERR_TOO_LONG:
            raise ReasonerError(f"a random playout did not end within {max_steps} moves")
        return PlayoutStats(int(done), int(moves), tuple(int(s) for s in sums))


_SMALL_GAME = """
(role r) (init (step 0)) (succ 0 1) (succ 1 2)
(legal r go) (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
(<= terminal (true (step 2))) (goal r 100)
"""


def warm_up() -> None:
    """Compile (or load) the scalar playout kernel for networks too small to keep a log
    of changed next literals (:data:`~ggpkit.reasoning.propnet.build.WATCH_MIN_BASE`): numba
    compiles that case apart, and the registered games' networks are all larger."""
    from ggpkit.gdl.kif import parse_rules

    small = PropnetReasoner.from_rules(parse_rules(_SMALL_GAME))
    small.playout_stats(small.initial(), 1, 0)

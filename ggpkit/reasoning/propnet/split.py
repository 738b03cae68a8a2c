"""A turn-taking game's propnet twice over, whose turn it is folded into each copy.

Why: in most two-player games one base proposition (``control white``) flips at
every step, and every legal move of both roles reads it. One network then settles
all of those gates at every step, though only the mover's moves matter; Sancho's
propnet keeps a network per value of such a proposition for this reason. Here the
proposition (the *sentinel*) is fixed to false in one copy and to true in the
other, constant folding removes what that decides, and a playout steps whichever
copy matches the state (:func:`~ggpkit.reasoning.propnet.split_kernels.split_playouts`).
Each copy keeps only the moves that can be legal in it, in the full network's
order, so the j-th legal move is the same move in both and a playout draws the
same moves as on the full network.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ggpkit.gdl.terms import Term
from ggpkit.reasoning.propnet.build import FALSE, TRUE, Builder, Propnet, schedule_network, simplify
from ggpkit.reasoning.propnet.graph import csr
from ggpkit.reasoning.propnet.incremental import net_arrays, work_arrays
from ggpkit.reasoning.propnet.layout import check_layout, lay_out, legal_runs
from ggpkit.reasoning.propnet.split_kernels import ERR_UNTIED, split_playouts

MAX_SPLIT_NODES = 30_000
"""Largest network worth copying twice: the copies are built when the first scalar
playout runs (a cost that grows with the network), and no bigger network measured gained."""


@dataclass(frozen=True, slots=True)
class SplitPropnet:
    """The network's two copies: ``nets[v]`` holds the sentinel fixed to ``v``."""

    tied: dict[int, bool]
    """The base facts fixed in the copies (index -> value in copy 1), the sentinel first."""
    nets: tuple[Propnet, Propnet]


def find_sentinel(
    lines: Sequence[Sequence[bytes]], unpack: Callable[[bytes], np.ndarray]
) -> dict[int, bool] | None:
    """Whose turn it is, from random lines of play: None, or the base facts that flip at
    every step of every line, each with its value when the first of them is true
    (``control white`` true, ``control black`` false). Lines of one state say nothing.
    """
    lines_bits = [[unpack(s).astype(bool) for s in line] for line in lines]
    flips: np.ndarray | None = None
    steps = 0
    for states in lines_bits:
        for before, after in itertools.pairwise(states):
            changed = before != after
            flips = changed if flips is None else flips & changed
            steps += 1
    if flips is None or steps < 4 or not flips.any():
        return None
    flipping = np.flatnonzero(flips)
    first = int(flipping[0])
    tied = {first: True}
    rows = [row for states in lines_bits for row in states]
    for i in flipping[1:]:
        agree = [row[i] == row[first] for row in rows]
        if all(agree) or not any(agree):
            tied[int(i)] = all(agree)
    return tied


def specialise(net: Propnet, values: dict[int, bool]) -> Propnet:
    """``net`` with base facts fixed (index -> value), simplified and rescheduled.

    A fixed fact keeps its input node (a state still loads into it) but nothing reads
    it; moves whose legality folds to false are dropped.
    """
    const = {int(net.base_nodes[i]): 2 * (TRUE if v else FALSE) for i, v in values.items()}

    def fixed(x: int) -> int:
        c = const.get(x >> 1)
        return x if c is None else c ^ (x & 1)

    starts, flat = net.in_start.tolist(), net.inputs.tolist()
    b = Builder()
    b.kind = net.kind.tolist()
    b.ins = [[fixed(x) for x in flat[starts[n] : starts[n + 1]]] for n in range(len(b.kind))]
    resolve = simplify(b)

    def lit(x: int) -> int:
        return resolve(fixed(int(x)))

    moves: list[tuple[Term, ...]] = []
    legal_lits: list[int] = []
    does_nodes: list[int] = []
    move_start = [0]
    for r, role_moves in enumerate(net.moves):
        kept = []
        for k in range(int(net.move_start[r]), int(net.move_start[r + 1])):
            x = lit(net.legal_lits[k])
            if x in (2 * FALSE, 2 * TRUE + 1):
                continue
            kept.append(role_moves[k - int(net.move_start[r])])
            legal_lits.append(x)
            does_nodes.append(int(net.does_nodes[k]))
        moves.append(tuple(kept))
        move_start.append(len(legal_lits))
    next_lits = [lit(x) for x in net.next_lits]
    in_start, inputs = csr(b.ins)
    groups = [legal_lits[move_start[r] : move_start[r + 1]] for r in range(len(moves))]
    kind, in_start, inputs, new, runs = lay_out(
        np.asarray(b.kind, dtype=np.int32), in_start, inputs, [*groups, next_lits]
    )

    def moved(x: int) -> int:
        return 2 * int(new[x >> 1]) | (x & 1)

    legal_lits = [x for run in runs[:-1] for x in run]
    next_lits = runs[-1]
    goal_lits = [moved(lit(x)) for x in net.goal_lits]
    terminal_lit = moved(lit(net.terminal_lit))
    order, blocks, phases, inc = schedule_network(
        kind, in_start, inputs, ([*legal_lits, terminal_lit], next_lits, goal_lits), False
    )

    def arr(xs: list[int]) -> np.ndarray:
        return np.asarray(xs, dtype=np.int32)

    return Propnet(
        roles=net.roles, base=net.base, init=net.init, moves=tuple(moves), kind=kind,
        in_start=in_start, inputs=inputs, order=order, blocks=blocks.reshape(-1, 3),
        phases=phases, base_nodes=arr([int(new[n]) for n in net.base_nodes.tolist()]),
        next_lits=arr(next_lits), legal_lits=arr(legal_lits),
        does_nodes=arr([int(new[n]) for n in does_nodes]), move_start=arr(move_start),
        terminal_lit=terminal_lit, goal_lits=arr(goal_lits), goal_values=net.goal_values,
        goal_start=net.goal_start, fan_start=inc[0], fanout=inc[1], scc=inc[2],
        scc_start=inc[3], scc_nodes=inc[4], needed=inc[5], watches_next=False,
    )  # fmt: skip


def split(net: Propnet, tied: dict[int, bool]) -> SplitPropnet:
    """Both copies of ``net`` on the sentinel (the first of ``tied``, see
    :func:`find_sentinel`): in copy ``v`` each tied fact has its value when the
    sentinel's is ``v``."""
    copies = (specialise(net, {i: not v for i, v in tied.items()}), specialise(net, tied))
    return SplitPropnet(dict(tied), copies)


class SplitPlayouts:
    """A split network ready to play: both copies' arrays, and each thread's own scratch.

    Why per thread: the copies are evaluated in place (see ``PropnetReasoner._work``).
    """

    def __init__(self, split: SplitPropnet) -> None:
        for net in split.nets:
            check_layout([*legal_runs(net.legal_lits, net.move_start), net.next_lits], net.size)
        self.split = split
        self._arrays = tuple(net_arrays(net) for net in split.nets)
        self._tied = np.asarray(list(split.tied), dtype=np.int64)
        self._tied_value = np.asarray(list(split.tied.values()), dtype=np.uint8)
        self._scratch = threading.local()

    def run(
        self, bits: np.ndarray, count: int, seed: int, max_steps: int
    ) -> tuple[int, int, np.ndarray, int]:
        """``count`` playouts from state ``bits``: (done, joint moves, goal sums, error);
        the error :data:`ERR_UNTIED` says to play them on the full network instead."""
        work = getattr(self._scratch, "work", None)
        if work is None:
            work = [(work_arrays(net), _values(net)) for net in self.split.nets]
            work.append(np.zeros(1, dtype=np.uint8))  # the copies are consistent
            self._scratch.work = work
        (work0, val0), (work1, val1), ready = work
        sums = np.zeros(len(self.split.nets[0].roles), dtype=np.int64)
        done, moves, err = split_playouts(
            self._arrays[0], work0, val0, self._arrays[1], work1, val1, ready, self._tied,
            self._tied_value, bits, count, seed, max_steps, sums,
        )  # fmt: skip
        return int(done), int(moves), sums, int(err)


def _values(net: Propnet) -> np.ndarray:
    val = np.zeros(net.size, dtype=np.uint8)
    val[TRUE] = 1
    return val


__all__ = [
    "ERR_UNTIED", "MAX_SPLIT_NODES", "SplitPlayouts", "SplitPropnet", "find_sentinel",
    "specialise", "split",
]  # fmt: skip

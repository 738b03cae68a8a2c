"""Puzzles whose every move flips a fixed set of facts, solved by linear algebra.

Why: in lights out a press flips its light and its neighbours', whatever they were,
and is legal always. Playing a set of presses in any order flips each light as many
times as presses touch it, so what matters is only which moves are played an odd
number of times: a vector over GF(2), the field of two elements. A goal that asks
given facts to be off (or on) then is a system of linear equations over that field,
one per fact, solved by Gaussian elimination at once, where a search would walk
through millions of states (lightsOut: 2^25 of them; its top goal is 9 presses deep).

GDL declares no such thing; random matches show it (:func:`find_toggles`): every
state seen has the same legal moves, and each move flips the same facts in every
state it is played in (a step counter left out). The facts the goal needs are those
whose value alone rules it out (:func:`~ggpkit.reasoning.propnet.latches.top_goal_blockers`).
Both are findings, not proofs, so the line found is played through on the rules before
it is offered, and offered with the goal it really reaches.
"""

from __future__ import annotations

import itertools
import random
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ggpkit.reasoning.propnet.latches import top_goal_blockers

if TYPE_CHECKING:
    from ggpkit.gdl.terms import Term
    from ggpkit.reasoning.propnet.reasoner import PropnetReasoner

MATCHES = 50
"""Random matches played to the end (or to :data:`MOST_STATES` states in all)."""
MOST_STATES = 2_000
"""States visited over all the matches."""
CPU_SECONDS = 0.5
"""Safety limit on the matches' CPU time (slow rules: fewer matches)."""
MIN_SEEN = 2
"""Times each move must be seen flipping its facts for the finding to count."""
MOST_FREE = 12
"""Free variables of a system whose solutions are all tried for the fewest moves
(2^12 of them); with more, one solution is taken."""


@dataclass(frozen=True)
class Toggles:
    """What random matches showed: role 0's moves (legal in every state seen, in the
    network's move order: indices into ``net.moves[0]``) and, per move, the base facts
    it flips (1), the step counter's left out."""

    moves: tuple[int, ...]
    flips: npt.NDArray[np.uint8]
    blocking: npt.NDArray[np.int8]
    """Per base fact, the value that alone rules out the top goal (-1: none)."""


def find_toggles(
    reasoner: PropnetReasoner, rng: random.Random, counter: npt.NDArray[np.uint8] | None
) -> Toggles | None:
    """Role 0's toggles, or None where random matches saw the legal moves change, a
    move flip different facts in two states, a move too seldom, or no move flip a
    fact, or no fact rule out the top goal alone. ``counter``: flags on the step
    counter's facts (left out of the flips)."""
    net = reasoner.net
    blocking = top_goal_blockers(net)
    if blocking is None or not (blocking >= 0).any():
        return None
    index = {move: i for i, move in enumerate(net.moves[0])}
    keep = np.ones(len(net.base), dtype=np.uint8) if counter is None else 1 - counter
    legal: list[Term] | None = None
    flips: dict[Term, npt.NDArray[np.uint8]] = {}
    seen: dict[Term, int] = {}
    states, cpu_limit = 0, time.process_time() + CPU_SECONDS
    for _ in range(MATCHES):
        state = reasoner.initial()
        while not reasoner.terminal(state) and states < MOST_STATES:
            if time.process_time() > cpu_limit:
                break
            moves = reasoner.legal(state, 0)
            if legal is None:
                legal = moves
            if moves != legal:
                return None
            bits = reasoner.bits(state)
            for move in {rng.choice(moves), rng.choice(moves)}:
                flip = (bits ^ reasoner.bits(reasoner.next(state, [move]))) & keep
                if move in flips and not np.array_equal(flips[move], flip):
                    return None
                flips[move], seen[move] = flip, seen.get(move, 0) + 1
            state = reasoner.next(state, [rng.choice(moves)])
            states += 1
    if not legal or any(seen.get(move, 0) < MIN_SEEN for move in legal):
        return None
    order = sorted(legal, key=index.__getitem__)
    table = np.array([flips[move] for move in order], dtype=np.uint8)
    if not table.any():
        return None
    return Toggles(tuple(index[move] for move in order), table, blocking)


def toggle_line(
    reasoner: PropnetReasoner, toggles: Toggles, state: bytes
) -> tuple[float, tuple[int, ...]] | None:
    """The line of :func:`fewest_presses` from ``state``, played through on the rules:
    role 0's goal where it ends (0..1) and its moves (indices into ``net.moves[0]``);
    None where there is no such line, or it does not end the game where it ends."""
    line = fewest_presses(toggles, reasoner.bits(state))
    if not line:
        return None
    moves = reasoner.net.moves[0]
    for i in line:
        if reasoner.terminal(state):
            return None
        state = reasoner.next(state, [moves[i]])
    if not reasoner.terminal(state):
        return None
    return reasoner.goal(state, 0) / 100, line


def fewest_presses(toggles: Toggles, bits: npt.NDArray[np.uint8]) -> tuple[int, ...] | None:
    """The fewest of ``toggles``' moves (indices into ``net.moves[0]``, in that order)
    that together leave no fact of state ``bits`` at the value that rules out the top
    goal, or None where no set does."""
    blocking = toggles.blocking
    facts = np.flatnonzero(blocking >= 0)
    system = toggles.flips[:, facts].T.astype(bool)  # one equation per fact
    wrong = bits[facts] == blocking[facts]
    solution = _solve(system, wrong)
    if solution is None:
        return None
    particular, null_space = solution
    best = particular
    if len(null_space) <= MOST_FREE:
        for picks in itertools.product((False, True), repeat=len(null_space)):
            x = particular.copy()
            for pick, vector in zip(picks, null_space, strict=True):
                if pick:
                    x ^= vector
            if x.sum() < best.sum():
                best = x
    return tuple(toggles.moves[i] for i in np.flatnonzero(best))


def _solve(
    a: npt.NDArray[np.bool_], b: npt.NDArray[np.bool_]
) -> tuple[npt.NDArray[np.bool_], list[npt.NDArray[np.bool_]]] | None:
    """A solution of ``a x = b`` over GF(2) (free variables 0) and a basis of the
    solutions of ``a x = 0``; None where there is no solution. Gauss-Jordan
    elimination on the augmented rows."""
    rows, cols = a.shape
    m = np.concatenate([a, b[:, None]], axis=1)
    pivots: list[int] = []
    r = 0
    for c in range(cols):
        hits = np.flatnonzero(m[r:, c]) + r if r < rows else np.zeros(0, dtype=np.int64)
        if len(hits) == 0:
            continue
        m[[r, hits[0]]] = m[[hits[0], r]]
        for other in np.flatnonzero(m[:, c]):
            if other != r:
                m[other] ^= m[r]
        pivots.append(c)
        r += 1
    if m[r:, cols].any():  # a row 0 = 1
        return None
    x = np.zeros(cols, dtype=bool)
    for i, c in enumerate(pivots):
        x[c] = m[i, cols]
    basis = []
    for free in (c for c in range(cols) if c not in pivots):
        v = np.zeros(cols, dtype=bool)
        v[free] = True
        for i, c in enumerate(pivots):
            v[c] = m[i, free]
        basis.append(v)
    return x, basis

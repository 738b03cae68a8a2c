"""The 64-lane kernel's greedy playouts against a plain replay through the reasoner API.

The replay below is written from the policy's description, not from the kernel: a
sole chooser takes the first of its flagged legal moves (literal order) that ends the
game at its best goal; where the next chooser has such a win and the last ply was
another role's choice with moves left untried, that ply is taken back and its chooser
plays its next move. Each playout draws from its own stream, so every lane's playout
can be replayed exactly.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
import pytest

from ggpkit.reasoning.propnet import kernels as k
from ggpkit.reasoning.propnet.reasoner import PropnetReasoner

from .test_propnet import _corpus, _rand_below, _stream


@dataclass
class _Ply:
    """A ply with one role choosing: where from, who, and which of its moves it tried."""

    state: bytes
    role: int
    first: int
    tries: int
    choices: int


def _best_goals(r: PropnetReasoner) -> list[int]:
    net = r.net
    return [
        int(max(net.goal_values[net.goal_start[i] : net.goal_start[i + 1]]))
        for i in range(len(r.roles))
    ]


def _win(r: PropnetReasoner, s: bytes, joint: list, role: int, flagged: set, best: list) -> object:
    """The first flagged move of ``role`` that ends the game at its best goal, or None."""
    start = int(r.net.move_start[role])
    for move in r.legal(s, role):
        literal = start + r.net.moves[role].index(move)
        if literal not in flagged:
            continue
        tried = list(joint)
        tried[role] = move
        t = r.next(s, tried)
        if r.terminal(t) and r.goal(t, role) == best[role]:
            return move
    return None


def _greedy_replay(
    r: PropnetReasoner, start: bytes, count: int, seed: int, flagged: set, first: int = 0
) -> tuple[int, list[int]]:
    """Playouts ``first`` .. ``first + count - 1`` of a greedy batch, through the API."""
    best = _best_goals(r)
    moves, sums = 0, [0] * len(r.roles)
    for j in range(first, first + count):
        rng, s = _stream(seed, j), start
        last: _Ply | None = None
        retrying = False
        while not r.terminal(s):
            legal = [r.legal(s, i) for i in range(len(r.roles))]
            drawn = []
            for moves_i in legal:
                rng, d = _rand_below(rng, len(moves_i))
                drawn.append(d)
            joint = [legal[i][drawn[i]] for i in range(len(r.roles))]
            choosers = [i for i in range(len(r.roles)) if len(legal[i]) > 1]
            this: _Ply | None = None
            if len(choosers) == 1:
                c = choosers[0]
                n = len(legal[c])
                if retrying:
                    assert last is not None
                    this = _Ply(s, c, last.first, last.tries + 1, n)
                else:
                    this = _Ply(s, c, drawn[c], 1, n)
                joint[c] = legal[c][(this.first + this.tries - 1) % n]
                win = _win(r, s, joint, c, flagged, best)
                if win is not None:
                    if last is not None and last.role != c and last.tries < last.choices:
                        s, retrying = last.state, True
                        moves -= 1
                        continue
                    joint[c] = win
            retrying = False
            s = r.next(s, joint)
            moves += 1
            last = this
        for i in range(len(r.roles)):
            sums[i] += r.goal(s, i)
    return moves, sums


def _kernel(
    r: PropnetReasoner,
    starts: list[bytes],
    per_start: int,
    seed: int,
    decisive: np.ndarray,
    greedy: bool = True,
) -> tuple[int, int, np.ndarray]:
    net = r.net
    sums = np.zeros((len(starts), len(r.roles)), dtype=np.int64)
    done, moves, err = k.playouts64_from(
        net.kind, net.in_start, net.inputs, net.order, net.blocks, net.phases,
        net.base_nodes, net.next_lits, net.legal_lits, net.does_nodes, net.move_start,
        net.terminal_lit, net.goal_lits, net.goal_values, net.goal_start,
        np.array([r._unpack(s) for s in starts]), per_start, seed, 10_000,
        np.zeros(net.size, dtype=np.uint64), sums, decisive, greedy,
    )  # fmt: skip
    assert err == k.ERR_NONE
    return done, moves, sums


def _starts(r: PropnetReasoner, seed: int, plies: tuple[int, ...]) -> list[bytes]:
    rng = random.Random(seed)
    out = []
    for n in plies:
        s = r.initial()
        for _ in range(n):
            if r.terminal(s):
                break
            s = r.next(s, [rng.choice(r.legal(s, i)) for i in range(len(r.roles))])
        out.append(s)
    return out


@pytest.mark.parametrize(
    ("name", "per_start", "plies"),
    [("ticTacToe", 20, (0, 2, 4, 5)), ("connectFour", 3, (0, 10, 16, 22))],
)
def test_greedy_playouts_replay_exactly(name: str, per_start: int, plies: tuple[int, ...]) -> None:
    """Every move flagged: each start's sums and the moves played are the replay's."""
    r = _corpus(name)
    starts = _starts(r, per_start, plies)
    decisive = np.ones(len(r.net.legal_lits), dtype=np.uint8)
    done, moves, sums = _kernel(r, starts, per_start, 31, decisive)
    assert done == len(starts) * per_start
    flagged = set(range(len(decisive)))
    replays = [
        _greedy_replay(r, s, per_start, 31, flagged, i * per_start) for i, s in enumerate(starts)
    ]
    assert [list(row) for row in sums] == [row for _, row in replays]
    assert moves == sum(m for m, _ in replays)


def test_flags_are_learned_only_for_moves_that_won() -> None:
    """From nothing flagged, the kernel flags moves as playouts end; each flagged move is
    a sole chooser's that ended some game at its best goal: here checked through the
    API on ticTacToe, where a win ends the game on the winner's own move."""
    r = _corpus("ticTacToe")
    decisive = np.zeros(len(r.net.legal_lits), dtype=np.uint8)
    _kernel(r, [r.initial()], 400, 5, decisive)
    flagged = {int(i) for i in np.flatnonzero(decisive)}
    assert flagged
    noops = {
        int(r.net.move_start[i]) + r.net.moves[i].index(m)
        for i in range(len(r.roles))
        for m in r.net.moves[i]
        if str(m) == "noop"
    }
    assert not flagged & noops

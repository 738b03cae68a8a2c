"""Wins in one at new nodes (``propnet_wins``) and the flags they try, against the API.

The models below are written from the descriptions, not from the kernels: a state
where one role alone chooses is won in one by the first flagged legal move (literal
order) after which the game is over with that role at 100; a uniform playout flags
its last move where one role alone chose it and the game ended at that role's best
goal. Each playout draws from its own stream, so the flags can be replayed exactly.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from reasoning.test_greedy_playouts import _best_goals, _kernel
from reasoning.test_propnet import _corpus, _rand_below, _stream

from ggpkit.reasoning.propnet.reasoner import PropnetReasoner
from ggpkit.search.propnet.wins import TOP_GOAL, scratch_arrays, wins_in_one


def _states(r: PropnetReasoner, count: int, seed: int, longest: int) -> list[bytes]:
    """Random states ``0 .. longest`` plies in (terminal ones among them)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = r.initial()
        for _ in range(rng.randrange(longest + 1)):
            if r.terminal(s):
                break
            s = r.next(s, [rng.choice(r.legal(s, i)) for i in range(len(r.roles))])
        out.append(s)
    return out


def _literal(r: PropnetReasoner, role: int, move: Any) -> int:
    return int(r.net.move_start[role]) + r.net.moves[role].index(move)


def _expected_win(r: PropnetReasoner, s: bytes, flagged: list[int]) -> Any:
    """(literal, end state, goals) of the state's win in one by a flagged move, or None."""
    if r.terminal(s):
        return None
    legal = [r.legal(s, i) for i in range(len(r.roles))]
    choosers = [i for i, moves in enumerate(legal) if len(moves) > 1]
    if len(choosers) != 1:
        return None
    c = choosers[0]
    joint = [moves[0] for moves in legal]
    for move in sorted(legal[c], key=lambda m: _literal(r, c, m)):
        if _literal(r, c, move) not in flagged:
            continue
        joint[c] = move
        t = r.next(s, joint)
        if r.terminal(t) and r.goal(t, c) == TOP_GOAL:
            return _literal(r, c, move), t, [r.goal(t, i) for i in range(len(r.roles))]
    return None


def _kernel_wins(r: PropnetReasoner, states: list[bytes], flagged: list[int]) -> list[Any]:
    net = r.net
    n, nb = len(states), len(net.base)
    rows = np.array([r._unpack(s) for s in states], dtype=np.uint8)
    legal = np.zeros((n, len(net.legal_lits)), dtype=np.uint8)
    term = np.zeros(n, dtype=np.uint8)
    for j, s in enumerate(states):
        term[j] = r.terminal(s)
        for i in range(len(r.roles)):
            for move in [] if term[j] else r.legal(s, i):
                legal[j, _literal(r, i, move)] = 1
    move = np.zeros(n, dtype=np.int64)
    end = np.zeros((n, nb), dtype=np.uint8)
    goals = np.zeros((n, len(r.roles)), dtype=np.int64)
    # the rows in reverse: the kernel must read states[rows[j]] but write row j
    wins_in_one(
        net.kind, net.in_start, net.inputs, net.order, net.blocks, net.phases, net.base_nodes,
        net.next_lits, net.does_nodes, net.move_start, net.terminal_lit, net.goal_lits,
        net.goal_values, net.goal_start, rows[::-1].copy(), np.arange(n)[::-1].copy(),
        legal, term, np.array(sorted(flagged), dtype=np.int64),
        np.zeros(net.size, dtype=np.uint64), scratch_arrays(len(flagged), nb), move, end, goals,
    )  # fmt: skip
    return [
        None if move[j] < 0 else (int(move[j]), r._pack(end[j]), [int(g) for g in goals[j]])
        for j in range(n)
    ]


@pytest.mark.parametrize(
    ("name", "longest"),
    [("ticTacToe", 8), ("connectFour", 30), ("breakthroughSmall", 60), ("sheepAndWolf", 60)],
)
@pytest.mark.parametrize("share", [1.0, 0.5])
def test_wins_in_one_are_the_apis(name: str, longest: int, share: float) -> None:
    """Over 150 states (three 64-lane blocks), with every move or half of them flagged,
    each state's win in one, the state it leads to and its goals are the API's
    (sheepAndWolf: some moves end the game at another goal than the top one)."""
    r = _corpus(name)
    states = _states(r, 150, 3, longest)
    rng = random.Random(4)
    flagged = [i for i in range(len(r.net.legal_lits)) if rng.random() < share]
    expected = [_expected_win(r, s, flagged) for s in states]
    assert _kernel_wins(r, states, flagged) == expected
    assert any(e is not None for e in expected), "the sample holds wins in one"


def _uniform_flags(r: PropnetReasoner, start: bytes, count: int, seed: int) -> set[int]:
    """The moves a batch of uniform playouts flags, replayed through the API."""
    best = _best_goals(r)
    flags = set()
    for j in range(count):
        rng, s = _stream(seed, j), start
        last: tuple[int, int] | None = None
        while not r.terminal(s):
            joint, choosers = [], []
            for i in range(len(r.roles)):
                legal = r.legal(s, i)
                rng, d = _rand_below(rng, len(legal))
                joint.append(legal[d])
                if len(legal) > 1:
                    choosers.append(i)
            last = (
                (choosers[0], _literal(r, choosers[0], joint[choosers[0]]))
                if len(choosers) == 1
                else None
            )
            s = r.next(s, joint)
        if last is not None and r.goal(s, last[0]) == best[last[0]]:
            flags.add(last[1])
    return flags


@pytest.mark.parametrize("name", ["ticTacToe", "connectFour"])
def test_uniform_playouts_flag_the_moves_that_won_and_stay_uniform(name: str) -> None:
    """Flags kept without greedy play: the goal sums are those of playouts without flags,
    and the flags are exactly the last moves that won, replayed through the API."""
    r = _corpus(name)
    start = r.initial()
    flags = np.zeros(len(r.net.legal_lits), dtype=np.uint8)
    done, _moves, sums = _kernel(r, [start], 200, 17, flags, greedy=False)
    assert done == 200
    _done, _moves2, plain = _kernel(r, [start], 200, 17, np.zeros(0, dtype=np.uint8))
    assert list(sums[0]) == list(plain[0])
    assert {int(i) for i in np.flatnonzero(flags)} == _uniform_flags(r, start, 200, 17)

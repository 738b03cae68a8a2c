"""Latches (``reasoning/latches.py``) against the rules' own transitions.

What a latch claims is checked where it can be seen: on every reachable transition of
small games (exhaustively), and on random lines of corpus games whose latches settle
goals early. Expected latches of the small games are read from their rules by hand.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import pairwise

import numpy as np
import pytest

from ggpkit.gdl.kif import parse_rules
from ggpkit.reasoning.grounding import grounder as grounding
from ggpkit.reasoning.propnet.latches import Latches, decided_goals, find_latches, goal_latches
from ggpkit.reasoning.propnet.reasoner import PropnetReasoner

from .test_propnet import _corpus


@pytest.fixture(autouse=True)
def _patient_estimate(monkeypatch: pytest.MonkeyPatch) -> None:
    """The grounding estimate's CPU limit guards against untrusted rules; here it only
    refused a known corpus game (battle) once, on a loaded machine with a cold numba
    cache (a clean clone's first run)."""
    monkeypatch.setattr(grounding, "ESTIMATE_CPU_SECONDS", 30.0)


CLAIM = """
(role red) (role blue)
(init (control red)) (init (step 0))
(<= (legal ?r claim) (true (control ?r)) (not claimed))
(<= (legal ?r wait) (true (control ?r)))
(<= (legal ?r noop) (role ?r) (not (true (control ?r))))
(<= claimed (true (winner ?r)))
(<= (next (winner ?r)) (true (winner ?r)))
(<= (next (winner ?r)) (does ?r claim))
(<= (next (control red)) (true (control blue)))
(<= (next (control blue)) (true (control red)))
(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(<= terminal (true (step 6)))
(<= (goal ?r 100) (true (winner ?r)))
(<= (goal ?r 0) (role ?r) (true (winner ?o)) (distinct ?r ?o))
(<= (goal ?r 50) (role ?r) (not claimed))
"""
"""Two roles take turns for six plies; the first to claim wins. ``winner`` facts are
positive latches and settle both goals; ``control`` and ``step`` change every ply."""

CAREFUL = """
(role p)
(init (step 0)) (init intact)
(<= (legal p good) (true (step ?n)))
(<= (legal p bad) (true (step ?n)))
(<= (next intact) (true intact) (does p good))
(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
(<= terminal (true (step 4)))
(<= (goal p 100) (true intact))
(<= (goal p 0) (not (true intact)))
"""
"""One role, four plies: one ``bad`` move spoils the result for good (``intact`` is a
negative latch whose absence forces the goal 0)."""


def _reasoner(rules: str) -> PropnetReasoner:
    return PropnetReasoner.from_rules(parse_rules(rules))


def _named(r: PropnetReasoner, flags: np.ndarray) -> set[str]:
    return {str(r.net.base[i]) for i in np.flatnonzero(flags)}


def test_the_latches_the_rules_say() -> None:
    r = _reasoner(CLAIM)
    latches = find_latches(r.net)
    assert _named(r, latches.positive) == {"(winner red)", "(winner blue)"}
    assert _named(r, latches.negative) == {"(step 0)"}  # nothing makes it again
    r = _reasoner(CAREFUL)
    latches = find_latches(r.net)
    assert _named(r, latches.positive) == set()
    assert _named(r, latches.negative) == {"intact", "(step 0)"}


def test_goal_literals_forced_by_each_latch() -> None:
    r = _reasoner(CLAIM)
    latches = find_latches(r.net)
    net = r.net
    red_wins = [str(b) for b in net.base].index("(winner red)")
    forced = {
        (net.roles[_role_of(net.goal_start, g)], int(net.goal_values[g]))
        for g in np.flatnonzero(latches.forces_true[1, red_wins])
    }
    assert forced == {("red", 100), ("blue", 0)}
    excluded = {
        (net.roles[_role_of(net.goal_start, g)], int(net.goal_values[g]))
        for g in np.flatnonzero(latches.forces_false[1, red_wins])
    }
    # red's 0 needs blue to have won too: impossible in play, but one latch alone
    # does not rule the other out (the analysis is sound, not complete)
    assert excluded == {("red", 50), ("blue", 50)}
    assert goal_latches(net) is not None


def _role_of(goal_start: np.ndarray, g: int) -> int:
    return int(np.searchsorted(goal_start, g, side="right")) - 1


def _reachable(r: PropnetReasoner) -> Iterator[tuple[bytes, list[bytes]]]:
    """Every reachable state with the states its joint legal moves lead to."""
    seen, todo = {r.initial()}, [r.initial()]
    while todo:
        s = todo.pop()
        if r.terminal(s):
            yield s, []
            continue
        children = []
        for joint in _joints([r.legal(s, i) for i in range(len(r.roles))]):
            t = r.next(s, joint)
            children.append(t)
            if t not in seen:
                seen.add(t)
                todo.append(t)
        yield s, children


def _joints(legal: list[list[object]]) -> Iterator[list[object]]:
    if not legal:
        yield []
        return
    for move in legal[0]:
        for rest in _joints(legal[1:]):
            yield [move, *rest]


def _check_exhaustively(r: PropnetReasoner, latches: Latches) -> int:
    """Every claim on every reachable transition and terminal state; returns how many
    states were checked."""
    count = 0
    for s, children in _reachable(r):
        count += 1
        bits = r.bits(s).astype(bool)
        for t in children:
            after = r.bits(t).astype(bool)
            assert not (latches.positive & bits & ~after).any(), "a positive latch fell"
            assert not (latches.negative & ~bits & after).any(), "a negative latch rose"
        if r.terminal(s):
            _check_goals(r, latches, s, bits)
    return count


def _check_goals(r: PropnetReasoner, latches: Latches, s: bytes, bits: np.ndarray) -> int:
    """The goal literals the active latches of the terminal state ``s`` force, checked
    against its goals: how many were forced."""
    net = r.net
    goals = [r.goal(s, i) for i in range(len(net.roles))]
    forced = 0
    for value, active in ((1, latches.positive & bits), (0, latches.negative & ~bits)):
        for g in range(len(net.goal_lits)):
            holds = goals[_role_of(net.goal_start, g)] == int(net.goal_values[g])
            if latches.forces_true[value, active, g].any():
                assert holds, f"goal literal {g} was forced true"
                forced += 1
            if latches.forces_false[value, active, g].any():
                assert not holds, f"goal literal {g} was forced false"
                forced += 1
    return forced


@pytest.mark.parametrize("rules", [CLAIM, CAREFUL])
def test_latches_hold_on_every_reachable_transition(rules: str) -> None:
    r = _reasoner(rules)
    assert _check_exhaustively(r, find_latches(r.net)) >= 9


def test_tictactoe_latches_hold_everywhere() -> None:
    r = _corpus("ticTacToe")
    latches = find_latches(r.net)
    marks = {f"(cell {x} {y} {p})" for x in "123" for y in "123" for p in "xo"}
    blanks = {f"(cell {x} {y} b)" for x in "123" for y in "123"}
    assert _named(r, latches.positive) == marks
    assert _named(r, latches.negative) == blanks
    assert _check_exhaustively(r, latches) == 5478


def _lines(r: PropnetReasoner, count: int, seed: int) -> Iterator[tuple[list[bytes], list[int]]]:
    """Random lines to the end (at most 400 plies) with their final goals."""
    rng = random.Random(seed)
    for _ in range(count):
        s, line = r.initial(), []
        while not r.terminal(s) and len(line) < 400:
            line.append(s)
            s = r.next(s, [rng.choice(r.legal(s, i)) for i in range(len(r.roles))])
        if r.terminal(s):
            yield [*line, s], [r.goal(s, i) for i in range(len(r.roles))]


DECIDING = ["factoringEasyTurtleBrain", "factoringGeorgeForman", "nonogram_5x5_1"]
"""Corpus puzzles whose latched facts settle the goal well before the end."""

BOUNDING = ["2pffa", "battle", "beatMania", "escortLatch", "blocker"]
"""Corpus games with latches that bound a goal (or, blocker, settle it only at the
end) without settling it before the end on random lines."""


def _decided_on_random_lines(r: PropnetReasoner, seed: int) -> tuple[int, int]:
    """Check, on 30 random lines, that latches never change, that each end meets the
    goal literals its latches force, and that every decided goal is the line's final
    one: (states decided for every role before the end, claims checked)."""
    latches = find_latches(r.net)
    early = claims = lines = 0
    for line, final in _lines(r, 30, seed):
        lines += 1
        rows = np.asarray([r.bits(s) for s in line], dtype=bool)
        for before, after in pairwise(rows):
            assert not (latches.positive & before & ~after).any(), "a positive latch fell"
            assert not (latches.negative & ~before & after).any(), "a negative latch rose"
        claims += _check_goals(r, latches, line[-1], rows[-1])
        decided = decided_goals(r.net, latches, rows.astype(np.uint8))
        for k, row in enumerate(decided):
            for role, value in enumerate(row):
                assert value in (-1, final[role]), f"ply {k}: decided {value}, ended {final}"
            claims += int((row >= 0).sum())
            early += int(k < len(line) - 1 and (row >= 0).all())
    assert lines >= 20, "most random lines end within 400 plies"
    return early, claims


@pytest.mark.parametrize("name", DECIDING)
def test_corpus_latches_decide_early_and_rightly(name: str) -> None:
    early, _claims = _decided_on_random_lines(_corpus(name), seed=7)
    assert early > 0


@pytest.mark.parametrize("name", BOUNDING)
def test_corpus_latches_never_decide_wrongly(name: str) -> None:
    early, claims = _decided_on_random_lines(_corpus(name), seed=11)
    assert early == 0 and claims > 0


def test_inline_games_are_decided_early() -> None:
    assert _decided_on_random_lines(_reasoner(CLAIM), seed=3)[0] > 0
    assert _decided_on_random_lines(_reasoner(CAREFUL), seed=3)[0] > 0


def test_no_goal_latches_no_analysis() -> None:
    assert goal_latches(_corpus("connectFour").net) is None

"""Whether pieces found by random matches guide play: a greedy player against random ones.

:func:`~ggpkit.agents.mcts.material_heuristic.material_sets` picks the piece counts that
go with the results of random matches. That is not enough: in suicide breakthrough (you
win when the other side breaks through) random matches run as in breakthrough, and the
same counts go with the results as well, the sides flipped; yet the default player that
valued its leaves by them lost every match to itself without them. A player that takes,
in each state, the move whose next state's piece balance is best for it (one ply, ties
broken at random) shows the difference at once: against random players it wins most
matches of breakthrough and half of its suicide variant's (docs/results.md, "suicide
breakthrough"). So the pieces are kept only where
such a player beats random ones by :data:`MIN_GAIN` points over what its seats score in
random matches, or where too few such matches end within :data:`CHECK_CPU_SECONDS` to
tell (the big games: they keep the pieces, as before this check).
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Hashable, Sequence
from typing import Any

from ggpkit.agents.mcts.probe import ProbeMatch
from ggpkit.games.api import Game
from ggpkit.gdl.terms import Term

CHECK_MATCHES = 40
"""Matches of the greedy player against random ones, its seat going round the roles."""
MIN_CHECK_MATCHES = 10
"""Fewer matches ended within the budget tell nothing: the pieces are kept."""
CHECK_CPU_SECONDS = 1.0
"""CPU seconds the check may take (of the start clock's metagaming)."""
MIN_GAIN = 10.0
"""Points (of 100) a greedy seat must score above that seat's mean in random matches."""


def pieces_guide_play(
    game: Game[Any],
    pieces: Sequence[frozenset[Term]],
    matches: Sequence[ProbeMatch],
    rng: random.Random,
) -> bool:
    """Whether a one-ply greedy player by ``pieces`` (each role's, in role order) beats
    random players by :data:`MIN_GAIN` points over its seats' means in ``matches``."""
    deadline = time.process_time() + CHECK_CPU_SECONDS
    gains: list[float] = []
    for index in range(CHECK_MATCHES):
        seat = index % len(game.roles)
        goal = _greedy_match(game, pieces, seat, rng, deadline)
        if goal is None:
            break
        role = game.roles[seat]
        gains.append(goal - statistics.fmean(m.final[role] for m in matches))
    if len(gains) < MIN_CHECK_MATCHES:
        return True
    return statistics.fmean(gains) >= MIN_GAIN


def _greedy_match(
    game: Game[Any],
    pieces: Sequence[frozenset[Term]],
    seat: int,
    rng: random.Random,
    deadline: float,
) -> float | None:
    """The greedy seat's goal at the end of one match against random players; None
    past ``deadline`` (``time.process_time()``)."""

    def worth(state: Hashable, joint: list[Term], move: Term) -> float:
        after = game.next_state(state, [move if k == seat else m for k, m in enumerate(joint)])
        return _balance(game, after, pieces, seat) + rng.random() / 2  # ties at random

    state = game.initial_state()
    while not game.is_terminal(state):
        if time.process_time() > deadline:
            return None
        legal = game.all_legal_moves(state)
        joint = [rng.choice(moves) for moves in legal]
        if len(legal[seat]) > 1:
            joint[seat] = max(legal[seat], key=lambda move: worth(state, joint, move))
        state = game.next_state(state, joint)
    return float(game.goals(state)[game.roles[seat]])


def _balance(game: Game[Any], state: Hashable, pieces: Sequence[frozenset[Term]], seat: int) -> int:
    """The seat's pieces in ``state`` less all the other roles' (a terminal state too:
    what is checked is the pieces alone, not a win in one taken)."""
    facts = game.facts(state)
    counts = [len(facts & own) for own in pieces]
    return 2 * counts[seat] - sum(counts)

"""A role's view of a GDL-II match as the arrays and text learning libraries expect.

In a game of imperfect information (``game.info.imperfect``) a seat is never shown the
state: all it may know is its :class:`~ggpkit.games.views.RoleView`, its own moves as
played and its percepts. The environments encode that view, never the state:

* **information state** (:meth:`ViewEncoding.information`), a 0/1 ``int8`` vector:
  the moves the seat has played (multi-hot over its possible moves), the percepts it
  has had (multi-hot over its percept vocabulary), its last move (one-hot), its last
  percepts (multi-hot), and the turn number in :data:`TURN_BITS` binary digits;
* **observation** (:meth:`ViewEncoding.observation`): the last move and last percepts
  only, what the last joint move told the seat;
* **text** (:func:`view_text`): every turn's move and percepts, in GDL.

The moves are the game's ``propositions().moves``. GDL gives no list of the percepts a
role may get, so the vocabulary is gathered per game by playing it
(:func:`gather_percepts`): every reachable state where the game is small, random lines
beyond that. A percept the gathering never met still shows in the text but has no place
in the vectors (they must keep one size).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Hashable, Iterable
from typing import Any

import numpy as np

from ggpkit.games.api import Game
from ggpkit.games.encoding import Int8Array
from ggpkit.games.views import RoleView
from ggpkit.gdl.terms import Term

TURN_BITS = 16
"""Binary digits of the turn number in an information state (matches up to 65,535 steps)."""

GATHER_STATES = 4_000
"""States whose every joint move is tried when gathering percepts (breadth first)."""

GATHER_PLAYOUTS = 200
"""Random lines played after the breadth-first walk, to reach deeper percepts."""

JOINTS_PER_STATE = 64
"""Joint moves tried per state of the walk (drawn at random where there are more)."""


def _joints(game: Game[Any], state: Hashable, rng: random.Random) -> list[list[Term]]:
    """Up to :data:`JOINTS_PER_STATE` joint moves of ``state``, all of them when few."""
    legal = game.all_legal_moves(state)
    count = 1
    for moves in legal:
        count *= len(moves)
    if count <= JOINTS_PER_STATE:
        joints: list[list[Term]] = [[]]
        for moves in legal:
            joints = [[*j, m] for j in joints for m in moves]
        return joints
    return [[rng.choice(moves) for moves in legal] for _ in range(JOINTS_PER_STATE)]


def gather_percepts(game: Game[Any], seed: int = 0) -> dict[str, tuple[Term, ...]]:
    """Every percept each role was seen to get, sorted by text: from a breadth-first walk
    over :data:`GATHER_STATES` states, then :data:`GATHER_PLAYOUTS` random lines (whose
    length the game's declared maximum, else 1,000, bounds)."""
    rng = random.Random(seed)
    found: dict[str, set[Term]] = {role: set() for role in game.roles}

    def note(state: Hashable, joint: list[Term]) -> Hashable:
        for role, seen in game.percepts(state, joint).items():
            found[role].update(seen)
        after: Hashable = game.next_state(state, joint)
        return after

    start = game.initial_state()
    queue, met = deque([start]), {start}
    while queue and len(met) <= GATHER_STATES:
        state = queue.popleft()
        if game.is_terminal(state):
            continue
        for joint in _joints(game, state, rng):
            after = note(state, joint)
            if after not in met:
                met.add(after)
                queue.append(after)
    if queue:  # the walk stopped short of the whole game: random lines go deeper
        for _ in range(GATHER_PLAYOUTS):
            state, steps = start, 0
            while not game.is_terminal(state) and steps < (game.info.max_length or 1000):
                state = note(state, rng.choice(_joints(game, state, rng)))
                steps += 1
    return {role: tuple(sorted(terms, key=str)) for role, terms in found.items()}


class ViewEncoding:
    """One seat's information state and observation layout (see the module docstring)."""

    def __init__(self, game: Game[Any], role: str, percepts: Iterable[Term]) -> None:
        self.role = role
        self.moves: tuple[Term, ...] = game.propositions().moves[game.role_index(role)]
        self.percepts = tuple(percepts)
        self._move = {m: i for i, m in enumerate(self.moves)}
        self._percept = {p: i for i, p in enumerate(self.percepts)}

    @property
    def observation_size(self) -> int:
        """Length of :meth:`observation`: the last move, then the last percepts."""
        return len(self.moves) + len(self.percepts)

    @property
    def information_size(self) -> int:
        """Length of :meth:`information`."""
        return 2 * self.observation_size + TURN_BITS

    def _marks(self, moves: Iterable[Term], percepts: Iterable[Term]) -> Int8Array:
        """Multi-hot over the moves then the percepts (terms outside the vocabulary left out)."""
        bits = np.zeros(self.observation_size, dtype=np.int8)
        for move in moves:
            if (i := self._move.get(move)) is not None:
                bits[i] = 1
        for percept in percepts:
            if (i := self._percept.get(percept)) is not None:
                bits[len(self.moves) + i] = 1
        return bits

    def observation(self, view: RoleView) -> Int8Array:
        """What the last joint move told the seat: its move and its percepts (zeros before)."""
        if not view.turn:
            return self._marks((), ())
        return self._marks((view.moves[-1],), view.percepts[-1])

    def information(self, view: RoleView) -> Int8Array:
        """All the seat knows: moves and percepts ever, the last ones, and the turn."""
        ever = self._marks(view.moves, (p for seen in view.percepts for p in seen))
        turn = np.asarray([(view.turn >> k) & 1 for k in range(TURN_BITS)], dtype=np.int8)
        return np.concatenate([ever, self.observation(view), turn])


def view_text(view: RoleView) -> str:
    """The view in GDL, one line per turn: ``turn 2: played (choose 1), sees 3``."""
    lines = [f"{view.role}, turn {view.turn}"]
    for k, (move, seen) in enumerate(zip(view.moves, view.percepts, strict=True), 1):
        percepts = " ".join(sorted(map(str, seen))) or "nothing"
        lines.append(f"turn {k}: played {move}, sees {percepts}")
    return "\n".join(lines)


def last_text(view: RoleView) -> str:
    """What the last joint move told the seat, in GDL (before the first: ``turn 0``)."""
    if not view.turn:
        return f"{view.role}, turn 0"
    percepts = " ".join(sorted(map(str, view.percepts[-1]))) or "nothing"
    return f"{view.role}, turn {view.turn}: played {view.moves[-1]}, sees {percepts}"


__all__ = ["TURN_BITS", "ViewEncoding", "gather_percepts", "last_text", "view_text"]

"""States, moves and goals of any ggpkit game as the arrays learning code expects.

It sits in the games layer because more than the environments read it: the learned
players (:mod:`ggpkit.agents.learned`) feed the same planes and action numbers to their
network; :mod:`ggpkit.games.encoding` re-exports it for the environments.

Everything here is read through the game contract (``propositions``, ``facts``,
``legal_moves``, ``goals``) and ``game.info``, never from a game's name or class, so
every game, native or GDL, gets the same layout:

* **observation**, for a game with a board layout (declared by the game's board style,
  or inferred from its facts as the web app does): ``int8`` planes of shape
  ``(kinds, rows, cols)``, plane ``k`` marking the cells whose content is the ``k``-th
  kind (kinds sorted by name; empty cells are all zero; rows top to bottom as drawn);
  the base facts that are not board cells (whose turn, counters) go to ``extra``, a
  0/1 vector in the order of :meth:`~ggpkit.games.api.Game.propositions`.
  For a game without a board: a 0/1 ``int8`` vector over all its base facts.
* **actions**: role ``r``'s action ``i`` is the move ``propositions().moves[r][i]``;
  ``action_mask`` is 1 for the legal ones.
* **rewards**: the goals at the end, scaled from the declared goal range to
  ``[-1, 1]`` for zero-sum games and ``[0, 1]`` otherwise.
"""

from __future__ import annotations

import operator
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ggpkit.games.api import Game, GameError, Utility
from ggpkit.games.board.layout import EMPTY_WORDS, Layout, infer_layout, natural_key
from ggpkit.games.registry import load
from ggpkit.gdl.terms import Func, Term

Int8Array = npt.NDArray[np.int8]


@dataclass(frozen=True, slots=True)
class Planes:
    """Where each board fact of a game lands in the observation planes."""

    kinds: tuple[str, ...]
    """The cell contents, one plane each, in plane order."""
    rows: tuple[str, ...]
    cols: tuple[str, ...]
    cell_of: dict[int, tuple[int, int, int]]
    """Base-fact index -> (plane, row, column)."""
    covered: frozenset[int]
    """Indices of every board fact on the grid, the empty cells' too (implied by all-zero
    planes); any other base fact goes to ``extra``."""

    @property
    def shape(self) -> tuple[int, int, int]:
        """``(kinds, rows, cols)``."""
        return (len(self.kinds), len(self.rows), len(self.cols))


def _is_board_fact(layout: Layout, fact: Term) -> bool:
    return (
        isinstance(fact, Func) and fact.name == layout.relation and len(fact.args) == layout.arity
    )


def _content(layout: Layout, fact: Term) -> tuple[str, str, str] | None:
    """(column, row, content) of a board fact with a real content, else None."""
    if not isinstance(fact, Func) or not _is_board_fact(layout, fact):
        return None
    content = " ".join(str(a) for a in fact.args[2:])
    if content.lower() in EMPTY_WORDS:
        return None
    return str(fact.args[layout.col_arg]), str(fact.args[layout.row_arg]), content


def board_planes(game: Game[Any], base: Sequence[Term]) -> Planes | None:
    """The planes of a game's board, or None when its facts show no board."""
    style = game.info.capabilities.board
    layout = infer_layout(game.facts(game.initial_state()), base, style)
    if layout is None:
        return None
    cols, rows = layout.cols, layout.rows
    on_grid = {
        i for i, f in enumerate(base)
        if isinstance(f, Func) and _is_board_fact(layout, f)
        and str(f.args[layout.col_arg]) in cols and str(f.args[layout.row_arg]) in rows
    }  # fmt: skip
    found = {i: c for i in on_grid if (c := _content(layout, base[i])) is not None}
    kinds = tuple(sorted({c[2] for c in found.values()}, key=natural_key))
    if not kinds:
        return None
    cell_of = {
        i: (kinds.index(kind), rows.index(row), cols.index(col))
        for i, (col, row, kind) in found.items()
    }
    return Planes(kinds, rows, cols, cell_of, frozenset(on_grid))


def as_game(game: str | Path | Game[Any]) -> Game[Any]:
    """A loaded game from anything :func:`ggpkit.load` accepts, or the game itself."""
    if isinstance(game, Game):
        return game
    return load(str(game))


class Encoding:
    """One game's observation, action and reward layout (see the module docstring)."""

    def __init__(self, game: Game[Any]) -> None:
        self.game = game
        props = game.propositions()
        self.base = props.base
        self.moves = props.moves
        self._base_index = {f: i for i, f in enumerate(props.base)}
        self._move_index = [{m: i for i, m in enumerate(ms)} for ms in props.moves]
        self.planes = board_planes(game, props.base)
        on_board = frozenset() if self.planes is None else self.planes.covered
        self.extra = np.asarray(
            [i for i in range(len(props.base)) if i not in on_board], dtype=np.intp
        )
        """Indices of the base facts that are not board cells (the ``extra`` vector)."""
        for role, moves in zip(game.roles, props.moves, strict=True):
            if not moves:
                raise GameError(f"{game.name}: role {role} has no possible move")

    # ---- observations -----------------------------------------------------------------

    def base_bits(self, state: Hashable) -> Int8Array:
        """The state as a 0/1 vector over the game's base facts."""
        bits = np.zeros(len(self.base), dtype=np.int8)
        for fact in self.game.facts(state):
            i = self._base_index.get(fact)
            if i is None:
                raise GameError(f"{self.game.name}: {fact} is not among the possible facts")
            bits[i] = 1
        return bits

    def observation(self, state: Hashable) -> dict[str, Int8Array]:
        """``observation`` (planes or the base vector) and, with planes, ``extra``."""
        bits = self.base_bits(state)
        if self.planes is None:
            return {"observation": bits}
        planes = np.zeros(self.planes.shape, dtype=np.int8)
        for i, (k, r, c) in self.planes.cell_of.items():
            if bits[i]:
                planes[k, r, c] = 1
        out = {"observation": planes}
        if len(self.extra):
            out["extra"] = bits[self.extra]
        return out

    # ---- actions ----------------------------------------------------------------------

    def legal_mask(self, state: Hashable, role_index: int) -> Int8Array:
        """1 for each of the role's actions that is legal in ``state`` (all 0 at the end)."""
        mask = np.zeros(len(self.moves[role_index]), dtype=np.int8)
        index = self._move_index[role_index]
        role = self.game.roles[role_index]
        for move in self.game.legal_moves(state, role):
            i = index.get(move)
            if i is None:
                raise GameError(f"{self.game.name}: {move} of {role} is not a possible move")
            mask[i] = 1
        return mask

    def move(self, role_index: int, action: Any) -> Term:
        """The move an action stands for; GameError for a number outside the action space."""
        moves = self.moves[role_index]
        try:
            i = operator.index(action)  # ints and numpy integers; never a float cut short
        except TypeError:
            raise GameError(f"an action is an integer, got {action!r}") from None
        if not 0 <= i < len(moves):
            role = self.game.roles[role_index]
            raise GameError(f"action {i} is outside {role}'s actions 0..{len(moves) - 1}")
        return moves[i]

    def action(self, role_index: int, move: Term) -> int:
        """The action number of a move."""
        return self._move_index[role_index][move]

    # ---- rewards ----------------------------------------------------------------------

    @property
    def reward_range(self) -> tuple[float, float]:
        """``(-1, 1)`` for zero-sum games, ``(0, 1)`` otherwise."""
        return (-1.0, 1.0) if self.game.info.utility is Utility.ZERO_SUM else (0.0, 1.0)

    def scale(self, goals: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Goal values scaled from the declared goal range into :attr:`reward_range`."""
        lo, hi = self.game.info.goal_range
        low, high = self.reward_range
        values = np.asarray(goals, dtype=np.float64)
        if hi <= lo:
            return np.zeros_like(values)
        share = (np.clip(values, lo, hi) - lo) / (hi - lo)
        return low + share * (high - low)

    def scaled(self, goal: int) -> float:
        """One goal value scaled (see :meth:`scale`)."""
        return float(self.scale(goal))

    def final_rewards(self, state: Hashable) -> dict[str, float]:
        """Every role's scaled goal in a terminal state."""
        return {role: self.scaled(goal) for role, goal in self.game.goals(state).items()}

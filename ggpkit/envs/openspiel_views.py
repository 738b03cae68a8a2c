"""A GDL-II game (``game.info.imperfect``) as an OpenSpiel game of imperfect information.

OpenSpiel's players are the game's seats; nature (GDL-II's ``random``) is OpenSpiel's
chance player: where it has more than one legal move, the state is a chance node whose
outcomes are its legal moves, uniformly (outcome ``k`` is its ``k``-th possible move,
``propositions().moves``). The game is sequential: each GGP step is the chance node
first, then every seat with a choice in role order; the joint move is played once all
have chosen. A seat that acts after another in the same step does not know that move:
its information state is its view (:class:`~ggpkit.games.views.RoleView`), which grows
only when the joint move is played. So a simultaneous GDL-II step is an OpenSpiel
sequence of moves under imperfect information, as OpenSpiel models them.

* ``information_state_string(p)``: the seat's view as text (its moves and percepts,
  turn by turn); ``information_state_tensor(p)``: its encoding
  (:meth:`~ggpkit.envs.views.ViewEncoding.information`);
* ``observation_string(p)`` and ``observation_tensor(p)``: the last move and percepts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pyspiel

from ggpkit.envs.views import ViewEncoding, last_text, view_text
from ggpkit.games.api import GameError, IllegalMoveError
from ggpkit.games.views import RoleView
from ggpkit.gdl.terms import Term

if TYPE_CHECKING:
    from collections.abc import Hashable

    from ggpkit.envs.openspiel import SpielGame


class HiddenState(pyspiel.State):  # type: ignore[misc]
    """A position of a GDL-II game, the moves chosen so far in its step, and every seat's view."""

    def __init__(self, game: SpielGame, position: Hashable) -> None:
        super().__init__(game)
        self.position = position
        self.steps = 0
        self.pending: dict[str, Term] = {}
        """The moves chosen in this step so far (nature's among them once drawn)."""
        self.views = {seat: RoleView(seat) for seat in game.ggp.seats}
        self._settle()

    @property
    def game_(self) -> SpielGame:
        """The game, as OpenSpiel holds it."""
        game: SpielGame = self.get_game()
        return game

    def _legal(self, role: str) -> list[Term]:
        return self.game_.ggp.legal_moves(self.position, role)

    def _waiting(self) -> list[str]:
        """The roles still to choose in this step: nature first, then seats in role order."""
        ggp = self.game_.ggp
        chance = ggp.info.chance_role
        order = ([chance] if chance is not None else []) + list(ggp.seats)
        return [r for r in order if r not in self.pending and len(self._legal(r)) > 1]

    # ---- what OpenSpiel asks --------------------------------------------------------------

    def current_player(self) -> int:
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        role = self._waiting()[0]
        if role == self.game_.ggp.info.chance_role:
            return int(pyspiel.PlayerId.CHANCE)
        return self.game_.ggp.seats.index(role)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Nature's legal moves, uniformly (OpenSpiel's chance player)."""
        chance = self.game_.ggp.info.chance_role
        assert chance is not None and self.is_chance_node()
        legal = self._legal(chance)
        outcome = self.game_.chance_outcome
        return [(a, 1.0 / len(legal)) for a in sorted(outcome[m] for m in legal)]

    def _legal_actions(self, player: int) -> list[int]:
        if self.is_terminal():
            return []
        seat = self.game_.ggp.seats[player]
        return sorted(self.game_.action_of[m] for m in self._legal(seat))

    def _apply_action(self, action: int) -> None:
        if self.is_chance_node():
            role = self.game_.ggp.info.chance_role
            assert role is not None
            move = self.game_.chance_moves[action]
        else:
            role = self.game_.ggp.seats[self.current_player()]
            move = self.game_.actions[action]
        if move not in self._legal(role):
            raise IllegalMoveError(str(action), role, "not among the legal actions here")
        self.pending[role] = move
        self._settle()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == int(pyspiel.PlayerId.CHANCE):
            return str(self.game_.chance_moves[action])
        return str(self.game_.actions[action])

    def is_terminal(self) -> bool:
        return self.game_.ggp.is_terminal(self.position) or self.steps >= self.game_.max_steps

    def returns(self) -> list[float]:
        ggp = self.game_.ggp
        if not ggp.is_terminal(self.position):
            return [0.0] * len(ggp.seats)
        rewards = self.game_.encoding.final_rewards(self.position)
        return [rewards.get(seat, 0.0) for seat in ggp.seats]

    def __str__(self) -> str:
        return self.game_.ggp.render(self.position)

    # ---- stepping ---------------------------------------------------------------------

    def _settle(self) -> None:
        """Play the step's joint move once nobody is left to choose (the single moves
        filled in), and go on through steps where nobody chooses."""
        ggp = self.game_.ggp
        while not self.is_terminal() and not self._waiting():
            joint = []
            for role in ggp.roles:
                legal = self._legal(role)
                if role not in self.pending and len(legal) != 1:
                    raise GameError(f"{ggp.name}: {role} has no legal move here")
                joint.append(self.pending.get(role, legal[0]))
            seen = ggp.percepts(self.position, joint)
            for role, move in zip(ggp.roles, joint, strict=True):
                if role in self.views:
                    self.views[role] = self.views[role].then(move, seen[role])
            self.position = ggp.next_state(self.position, joint)
            self.pending = {}
            self.steps += 1


class ViewObserver:
    """OpenSpiel's observer protocol over a seat's view: its information state (perfect
    recall) or its last observation (see the module docstring)."""

    def __init__(self, game: SpielGame, perfect_recall: bool, params: Any) -> None:
        if params:
            raise GameError(f"observation parameters are not supported; got {params}")
        self.views: dict[str, ViewEncoding] = game.views
        self.seats = game.ggp.seats
        self.perfect_recall = perfect_recall
        sizes = [self._size(self.views[s]) for s in self.seats]
        self.tensor = np.zeros(max(sizes), np.float32)
        self.dict: dict[str, Any] = {"view": self.tensor}

    def _size(self, view: ViewEncoding) -> int:
        return view.information_size if self.perfect_recall else view.observation_size

    def set_from(self, state: HiddenState, player: int) -> None:
        seat = self.seats[player]
        encoding, view = self.views[seat], state.views[seat]
        bits = encoding.information(view) if self.perfect_recall else encoding.observation(view)
        self.tensor[...] = 0
        self.tensor[: len(bits)] = bits

    def string_from(self, state: HiddenState, player: int) -> str:
        view = state.views[self.seats[player]]
        return view_text(view) if self.perfect_recall else last_text(view)

"""One match of a game as learning environments step it: the position, the step count,
the spaces, and the moves an agent's actions stand for. The PettingZoo and Gymnasium
environments are thin layers over it, so they behave alike."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ggpkit.envs import spaces as ggp_spaces
from ggpkit.envs.encoding import Encoding, Int8Array
from ggpkit.games.api import Game, GameError, IllegalMoveError
from ggpkit.gdl.terms import Term

DEFAULT_MAX_STEPS = 1000
"""Joint moves before truncation, for games that declare no maximum length."""


class Session:
    """The state shared by both environments: the game, the position, the step count."""

    def __init__(self, game: Game[Any], max_steps: int | None) -> None:
        self.game = game
        self.encoding = Encoding(game)
        self.max_steps = max_steps or game.info.max_length or DEFAULT_MAX_STEPS
        self.state: Hashable = game.initial_state()
        self.steps = 0
        self.obs_spaces = {
            r: ggp_spaces.observation_space(self.encoding, i) for i, r in enumerate(game.roles)
        }
        self.act_spaces = {
            r: ggp_spaces.action_space(self.encoding, i) for i, r in enumerate(game.roles)
        }

    def restart(self) -> None:
        self.state = self.game.initial_state()
        self.steps = 0

    def observe(self, role: str) -> dict[str, Int8Array]:
        i = self.game.role_index(role)
        out = self.encoding.observation(self.state)
        out["action_mask"] = self.encoding.legal_mask(self.state, i)
        return out

    def choosers(self) -> list[str]:
        """The roles with more than one legal move, in role order."""
        legal = self.game.all_legal_moves(self.state)
        return [r for r, ms in zip(self.game.roles, legal, strict=True) if len(ms) > 1]

    def chosen(self, role: str, action: Any) -> Term:
        """The move of a legal action; IllegalMoveError (with the game's reason) otherwise."""
        move = self.encoding.move(self.game.role_index(role), action)
        if move not in self.game.legal_moves(self.state, role):
            reason = self.game.why_illegal(self.state, role, move)
            raise IllegalMoveError(move, role, f"action {int(action)}: {reason}")
        return move

    def play(self, given: dict[str, Term]) -> None:
        """One joint move: the given moves, and the only legal move of every other role."""
        joint = []
        for role in self.game.roles:
            if role in given:
                joint.append(given[role])
                continue
            legal = self.game.legal_moves(self.state, role)
            if not legal:
                raise GameError(f"{self.game.name}: {role} has no legal move here")
            if len(legal) > 1:
                raise IllegalMoveError("<none>", role, "it has a choice: give it an action")
            joint.append(legal[0])
        self.state = self.game.next_state(self.state, joint)
        self.steps += 1

    def over(self) -> tuple[bool, bool]:
        """(terminated, truncated)."""
        if self.game.is_terminal(self.state):
            return True, False
        return False, self.steps >= self.max_steps

    def end_rewards(self) -> dict[str, float]:
        terminated, _ = self.over()
        if terminated:
            return self.encoding.final_rewards(self.state)
        return dict.fromkeys(self.game.roles, 0.0)

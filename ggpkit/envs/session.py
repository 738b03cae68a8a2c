"""One match of a game as learning environments step it: the position, the step count,
the spaces, and the moves an agent's actions stand for. The PettingZoo and Gymnasium
environments are thin layers over it, so they behave alike.

The agents are the game's seats (``game.seats``): in a game of chance nobody takes
nature's role (GDL-II's ``random``), whose moves are drawn here, uniformly among its
legal moves, from the session's own generator (seeded by ``restart(seed)``). In a game
of imperfect information (``game.info.imperfect``) an agent observes its view
(:mod:`ggpkit.envs.views`), never the state; its action mask is still the true state's
legal moves, which a GDL-II role may know (its legal moves are its own to play).
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from typing import Any

from gymnasium import spaces

from ggpkit.envs import spaces as ggp_spaces
from ggpkit.envs.views import ViewEncoding, gather_percepts, view_text
from ggpkit.games.api import Game, GameError, IllegalMoveError
from ggpkit.games.encoding import Encoding, Int8Array
from ggpkit.games.views import RoleView
from ggpkit.gdl.terms import Term

DEFAULT_MAX_STEPS = 1000
"""Joint moves before truncation, for games that declare no maximum length."""


class Session:
    """The state shared by both environments: the game, the position, the step count."""

    def __init__(self, game: Game[Any], max_steps: int | None) -> None:
        self.game = game
        self.encoding = Encoding(game)
        self.max_steps = max_steps or game.info.max_length or DEFAULT_MAX_STEPS
        self.seats = game.seats
        self.chance_role = game.info.chance_role
        self.rng = random.Random()
        self.state: Hashable = game.initial_state()
        self.steps = 0
        self.views: dict[str, ViewEncoding] = {}
        if game.info.imperfect:
            vocabulary = gather_percepts(game)
            self.views = {r: ViewEncoding(game, r, vocabulary[r]) for r in self.seats}
        self.seen: dict[str, RoleView] = {r: RoleView(r) for r in self.seats}
        self.obs_spaces = {r: self._observation_space(r) for r in self.seats}
        self.act_spaces = {
            r: ggp_spaces.action_space(self.encoding, game.role_index(r)) for r in self.seats
        }

    def _observation_space(self, role: str) -> spaces.Dict:
        index = self.game.role_index(role)
        if role in self.views:
            return ggp_spaces.view_space(self.views[role], len(self.encoding.moves[index]))
        return ggp_spaces.observation_space(self.encoding, index)

    def restart(self, seed: int | None = None) -> None:
        """A new match; ``seed`` (when given) seeds nature's draws from here on."""
        if seed is not None:
            self.rng.seed(seed)
        self.state = self.game.initial_state()
        self.steps = 0
        self.seen = {r: RoleView(r) for r in self.seats}

    def observe(self, role: str) -> dict[str, Int8Array]:
        """The agent's observation: its view's information state in a game of imperfect
        information, else the state; with the action mask."""
        i = self.game.role_index(role)
        if role in self.views:
            out = {"observation": self.views[role].information(self.seen[role])}
        else:
            out = self.encoding.observation(self.state)
        out["action_mask"] = self.encoding.legal_mask(self.state, i)
        return out

    def info(self, role: str) -> dict[str, Any]:
        """The agent's ``infos`` entry: its view as text, in a game of imperfect information."""
        return {"view": view_text(self.seen[role])} if role in self.views else {}

    def choosers(self) -> list[str]:
        """The seats with more than one legal move, in role order (nature is drawn)."""
        legal = self.game.all_legal_moves(self.state)
        return [
            r for r, ms in zip(self.game.roles, legal, strict=True)
            if len(ms) > 1 and r != self.chance_role
        ]  # fmt: skip

    def chosen(self, role: str, action: Any) -> Term:
        """The move of a legal action; IllegalMoveError (with the game's reason) otherwise."""
        move = self.encoding.move(self.game.role_index(role), action)
        if move not in self.game.legal_moves(self.state, role):
            reason = self.game.why_illegal(self.state, role, move)
            raise IllegalMoveError(move, role, f"action {int(action)}: {reason}")
        return move

    def play(self, given: dict[str, Term]) -> None:
        """One joint move: the given moves, nature's drawn, and the only legal move of
        every other seat."""
        joint = []
        for role in self.game.roles:
            legal = self.game.legal_moves(self.state, role)
            if role == self.chance_role and legal:
                joint.append(self.rng.choice(sorted(legal, key=str)))
            elif role in given:
                joint.append(given[role])
            elif not legal:
                raise GameError(f"{self.game.name}: {role} has no legal move here")
            elif len(legal) > 1:
                raise IllegalMoveError("<none>", role, "it has a choice: give it an action")
            else:
                joint.append(legal[0])
        if self.views:
            seen = self.game.percepts(self.state, joint)
            for role, move in zip(self.game.roles, joint, strict=True):
                if role in self.seen:
                    self.seen[role] = self.seen[role].then(move, seen[role])
        self.state = self.game.next_state(self.state, joint)
        self.steps += 1

    def over(self) -> tuple[bool, bool]:
        """(terminated, truncated)."""
        if self.game.is_terminal(self.state):
            return True, False
        return False, self.steps >= self.max_steps

    def end_rewards(self) -> dict[str, float]:
        """Every seat's scaled goal at the end, zero before."""
        terminated, _ = self.over()
        if terminated:
            rewards = self.encoding.final_rewards(self.state)
            return {r: rewards.get(r, 0.0) for r in self.seats}
        return dict.fromkeys(self.seats, 0.0)

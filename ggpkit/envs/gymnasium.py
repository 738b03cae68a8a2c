"""Any one-role ggpkit game as a Gymnasium environment: ``make(GAME)``.

``GAME`` is anything :func:`ggpkit.load` accepts or a loaded game with exactly one seat
(peg solitaire, any one-role GDL game, a GDL-II game of one role against nature, whose
moves are drawn inside ``step`` from the generator ``reset(seed)`` seeds). Observations,
actions and rewards follow :mod:`ggpkit.games.encoding`: a dict with ``observation``
(board planes or the base-fact vector), ``extra`` where the board leaves facts out, and
``action_mask``; the reward is zero until the end, then the scaled goal. In a game of
imperfect information the ``observation`` is the role's view, never the state
(:mod:`ggpkit.envs.views`), and ``info["view"]`` has it as text.

Gymnasium has no masked sampling in its own checks, so an action that is not legal here
does not raise: it ends the episode (``terminated``) with the lowest reward and says so
in ``info["illegal_move"]``, as PettingZoo's ``TerminateIllegalWrapper`` does. After
``max_steps`` moves (default: the declared maximum length, else 1,000) the episode is
truncated with reward zero.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium
from gymnasium import spaces

from ggpkit.envs.session import Session
from ggpkit.games.api import Game, GameError, IllegalMoveError
from ggpkit.games.encoding import Int8Array, as_game

Observation = dict[str, Int8Array]

ENV_ID = "ggpkit/Game-v0"
"""Registered with Gymnasium on import: ``gymnasium.make(ENV_ID, game="peg")``."""


class GgpEnv(gymnasium.Env[Observation, Any]):
    """A one-role ggpkit game as a Gymnasium environment (see the module docstring)."""

    def __init__(
        self, game: Game[Any], max_steps: int | None = None, render_mode: str | None = None
    ) -> None:
        if len(game.seats) != 1:
            kind = "roles" if game.seats == game.roles else "seats (roles but nature)"
            raise GameError(
                f"{game.name} has {len(game.seats)} {kind}; Gymnasium environments are for"
                " one-seat games (use ggpkit.envs.pettingzoo for more)"
            )
        self.metadata = {"render_modes": ["ansi"], "render_fps": 1}
        self.session = Session(game, max_steps)
        self.role = game.seats[0]
        self.render_mode = render_mode
        self.observation_space: spaces.Space[Any] = self.session.obs_spaces[self.role]
        self.action_space: spaces.Space[Any] = self.session.act_spaces[self.role]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """A new game; ``seed`` seeds ``np_random`` and nature's draws."""
        super().reset(seed=seed)
        self.session.restart(seed)
        return self.session.observe(self.role), self.session.info(self.role)

    def step(self, action: Any) -> tuple[Observation, SupportsFloat, bool, bool, dict[str, Any]]:
        """Play the action's move; an illegal one ends the episode with the lowest reward."""
        try:
            move = self.session.chosen(self.role, action)
        except (IllegalMoveError, GameError) as e:
            low = self.session.encoding.reward_range[0]
            return self.session.observe(self.role), low, True, False, {"illegal_move": str(e)}
        self.session.play({self.role: move})
        terminated, truncated = self.session.over()
        reward = self.session.end_rewards()[self.role]
        info = self.session.info(self.role)
        return self.session.observe(self.role), reward, terminated, truncated, info

    def render(self) -> str | None:
        """The game's own text picture of the position (``render_mode="ansi"``)."""
        if self.render_mode != "ansi":
            return None
        return self.session.game.render(self.session.state)


def make(game: str | Path | Game[Any], **kwargs: Any) -> GgpEnv:
    """The Gymnasium environment of a one-role game (a name, a ``.kif`` path or a Game)."""
    return GgpEnv(as_game(game), **kwargs)


gymnasium.register(id=ENV_ID, entry_point="ggpkit.envs.gymnasium:make")

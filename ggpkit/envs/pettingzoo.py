"""Any ggpkit game as a PettingZoo environment: ``env(GAME)`` (AEC) and ``parallel_env(GAME)``.

``GAME`` is anything :func:`ggpkit.load` accepts (a registered name or a ``.kif`` path)
or a loaded :class:`~ggpkit.games.api.Game`. The agents are the game's seats (every
role but nature's, GDL-II's ``random``, whose moves are drawn inside ``step`` from the
generator ``reset(seed)`` seeds). The observation, action and reward layout is
:mod:`ggpkit.games.encoding`'s: in a game of perfect information every agent sees the
whole state; in one of imperfect information (GDL-II, ``game.info.imperfect``) an agent
sees only its view, its own moves and percepts (:mod:`ggpkit.envs.views`), and
``infos[agent]["view"]`` has it as text.

* **AEC** (turn-taking games, and simultaneous ones by collecting the moves one role
  after another): the agent to act is a role with a choice (more than one legal move);
  roles with a single legal move play it without being asked, and a state where no
  role has a choice is played through at once.
* **Parallel**: every live agent gives an action each step; an agent with a single
  legal move may leave it out.

An action that is not legal raises :class:`~ggpkit.games.api.IllegalMoveError` (use the
``action_mask``). Rewards are zero until the game ends; then every agent gets its scaled
goal. After ``max_steps`` joint moves (default: the game's declared maximum length,
else 1,000) every agent is truncated with reward zero.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from ggpkit.envs.session import Session
from ggpkit.games.api import Game, IllegalMoveError
from ggpkit.games.encoding import Int8Array, as_game
from ggpkit.gdl.terms import Term


class GgpAecEnv(AECEnv):  # type: ignore[misc]
    """A ggpkit game as a PettingZoo AEC environment (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {"name": "ggpkit_aec_v0", "render_modes": ["ansi"]}

    def __init__(
        self, game: Game[Any], max_steps: int | None = None, render_mode: str | None = None
    ) -> None:
        super().__init__()
        self.session = Session(game, max_steps)
        self.render_mode = render_mode
        self.possible_agents = list(game.seats)
        self._pending: dict[str, Term] = {}
        self._queue: list[str] = []
        self.agent_selection: str = game.seats[0]
        self.reset()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.session.obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.session.act_spaces[agent]

    def observe(self, agent: str) -> dict[str, Int8Array]:
        return self.session.observe(agent)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new match; ``seed`` seeds nature's draws (the rest is deterministic)."""
        self.session.restart(seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {}
        self._pending = {}
        self._queue = []
        self._next_turn()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._pending[agent] = self.session.chosen(agent, action)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if not self._queue:
            self.session.play(self._pending)
            self._pending = {}
            self._next_turn()
        else:
            self.agent_selection = self._queue.pop(0)
        self._accumulate_rewards()

    def _next_turn(self) -> None:
        """Play through choiceless states, then select the next chooser or end the match."""
        self.infos = {a: self.session.info(a) for a in self.agents}
        while True:
            terminated, truncated = self.session.over()
            if terminated or truncated:
                self.rewards = self.session.end_rewards()
                self.terminations = dict.fromkeys(self.agents, terminated)
                self.truncations = dict.fromkeys(self.agents, truncated)
                self.agent_selection = self.agents[0]
                return
            choosers = self.session.choosers()
            if choosers:
                self.agent_selection, *self._queue = choosers
                return
            self.session.play({})
            self.infos = {a: self.session.info(a) for a in self.agents}

    def render(self) -> str | None:
        """The game's own text picture of the position (``render_mode="ansi"``)."""
        if self.render_mode != "ansi":
            return None
        return self.session.game.render(self.session.state)

    def close(self) -> None:
        """Nothing to release."""


class GgpParallelEnv(ParallelEnv):  # type: ignore[misc]
    """A ggpkit game as a PettingZoo Parallel environment (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {"name": "ggpkit_parallel_v0", "render_modes": ["ansi"]}

    def __init__(
        self, game: Game[Any], max_steps: int | None = None, render_mode: str | None = None
    ) -> None:
        self.session = Session(game, max_steps)
        self.render_mode = render_mode
        self.possible_agents = list(game.seats)
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.session.obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.session.act_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """A new match; ``seed`` seeds nature's draws (the rest is deterministic)."""
        self.session.restart(seed)
        self.agents = list(self.possible_agents)
        return self._observations(), {a: self.session.info(a) for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], ...]:
        """One joint move; the dicts returned cover the agents live before it."""
        for agent in actions:
            if agent not in self.agents:
                raise IllegalMoveError("<any>", agent, "it is not a live agent of this match")
        self.session.play({a: self.session.chosen(a, act) for a, act in actions.items()})
        terminated, truncated = self.session.over()
        rewards = self.session.end_rewards()
        observations = self._observations()
        live = self.agents
        if terminated or truncated:
            self.agents = []
        return (
            observations,
            {a: rewards[a] for a in live},
            dict.fromkeys(live, terminated),
            dict.fromkeys(live, truncated),
            {a: self.session.info(a) for a in live},
        )

    def _observations(self) -> dict[str, Any]:
        return {a: self.session.observe(a) for a in self.possible_agents if a in self.agents}

    def render(self) -> str | None:
        """The game's own text picture of the position (``render_mode="ansi"``)."""
        if self.render_mode != "ansi":
            return None
        return self.session.game.render(self.session.state)

    def close(self) -> None:
        """Nothing to release."""


def env(game: str | Path | Game[Any], **kwargs: Any) -> GgpAecEnv:
    """The AEC environment of a game (a registered name, a ``.kif`` path or a Game)."""
    return GgpAecEnv(as_game(game), **kwargs)


def parallel_env(game: str | Path | Game[Any], **kwargs: Any) -> GgpParallelEnv:
    """The Parallel environment of a game (a registered name, a ``.kif`` path or a Game)."""
    return GgpParallelEnv(as_game(game), **kwargs)


__all__ = ["GgpAecEnv", "GgpParallelEnv", "env", "parallel_env"]

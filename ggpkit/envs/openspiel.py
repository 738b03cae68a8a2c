"""Any ggpkit game as an OpenSpiel (``pyspiel``) Python game: ``load_game(GAME)``.

One Python game, ``python_ggpkit``, is registered with pyspiel on import; its parameter
``game`` is anything :func:`ggpkit.load` accepts, so ``pyspiel.load_game("python_ggpkit",
{"game": "ticTacToe.kif"})`` works as ``load_game("ticTacToe.kif")`` does, and
serialised states name their game. Each loaded game declares its own ``GameType`` from
``game.info``:

* **dynamics**: sequential for turn-taking games (the player to move is the role with
  a choice; positions where no role has one are played through), simultaneous otherwise;
* **utility**: zero-sum for two-role zero-sum games, general-sum otherwise;
* **rewards**: terminal only, the goals scaled as in :mod:`ggpkit.games.encoding`
  (``[-1, 1]`` zero-sum, ``[0, 1]`` otherwise).

Actions are the union of the roles' possible moves (``propositions().moves``, first
appearance first), so an action means the same move whoever plays it. Observation
tensors are the environments' observation (board planes or base-fact vector) followed
by ``extra``, as float32. A match is cut after ``max_steps`` joint moves (default: the
declared maximum length, else 1,000) as a terminal state with all returns zero.

A game of imperfect information (GDL-II, ``game.info.imperfect``) is an OpenSpiel game
of imperfect information: its players are the seats, nature is OpenSpiel's chance
player, and information states are the seats' views (:mod:`ggpkit.envs.openspiel_views`).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

from ggpkit.envs.openspiel_views import HiddenState, ViewObserver
from ggpkit.envs.session import DEFAULT_MAX_STEPS
from ggpkit.envs.views import ViewEncoding, gather_percepts
from ggpkit.games.api import Game, GameError, IllegalMoveError
from ggpkit.games.encoding import Encoding, as_game
from ggpkit.gdl.terms import Term

SHORT_NAME = "python_ggpkit"

NODE_CACHE = 200_000
"""Positions whose answers a game keeps (then it starts again)."""

_REGISTERED_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="ggpkit game",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=100,
    min_num_players=1,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"game": "breakthrough-holes", "max_steps": 0},
)
"""What the registry lists; each loaded game reports its own type (see the docstring)."""


@cache
def _loaded(name: str) -> Game[Any]:
    """One game object per parameter (games are immutable and shareable)."""
    return as_game(name)


def _game_type(game: Game[Any]) -> Any:
    info = game.info
    lo, hi = info.goal_range
    zero_sum = info.zero_sum and len(game.seats) == 2 and lo + hi == 100
    hidden = info.imperfect  # sequential, with chance nodes: see openspiel_views
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name=f"ggpkit {game.name}",
        dynamics=(
            pyspiel.GameType.Dynamics.SEQUENTIAL
            if info.turn_taking or hidden
            else pyspiel.GameType.Dynamics.SIMULTANEOUS
        ),
        chance_mode=(
            pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
            if hidden and info.chance_role is not None
            else pyspiel.GameType.ChanceMode.DETERMINISTIC
        ),
        information=(
            pyspiel.GameType.Information.IMPERFECT_INFORMATION
            if hidden
            else pyspiel.GameType.Information.PERFECT_INFORMATION
        ),
        utility=(
            pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM
        ),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=len(game.seats) if hidden else len(game.roles),
        min_num_players=len(game.seats) if hidden else len(game.roles),
        provides_information_state_string=True,
        provides_information_state_tensor=hidden,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"game": game.name, "max_steps": 0},
    )


class SpielGame(pyspiel.Game):  # type: ignore[misc]
    """A ggpkit game seen by OpenSpiel (see the module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        name = str(params.get("game", _REGISTERED_TYPE.parameter_specification["game"]))
        self.ggp = _loaded(name)
        self.encoding = Encoding(self.ggp)
        self.max_steps = int(params.get("max_steps", 0)) or (
            self.ggp.info.max_length or DEFAULT_MAX_STEPS
        )
        self.hidden = self.ggp.info.imperfect
        players = self.ggp.seats if self.hidden else self.ggp.roles
        self.actions: tuple[Term, ...] = tuple(
            dict.fromkeys(m for r in players for m in self.encoding.moves[self.ggp.role_index(r)])
        )
        self.action_of = {m: i for i, m in enumerate(self.actions)}
        self.chance_moves, self.views = _hidden_parts(name) if self.hidden else ((), {})
        self.chance_outcome = {m: i for i, m in enumerate(self.chance_moves)}
        self._nodes: dict[Hashable, _Node] = {}
        low, high = self.encoding.reward_range
        spiel_type = _game_type(self.ggp)
        info = pyspiel.GameInfo(
            num_distinct_actions=len(self.actions),
            max_chance_outcomes=len(self.chance_moves),
            num_players=len(players),
            min_utility=low,
            max_utility=high,
            utility_sum=0.0 if spiel_type.utility == pyspiel.GameType.Utility.ZERO_SUM else None,
            max_game_length=self.max_steps * max(1, len(self.ggp.roles)),
        )
        super().__init__(
            spiel_type, info, {"game": name, "max_steps": int(params.get("max_steps", 0))}
        )

    def node(self, position: Hashable) -> _Node:
        """What OpenSpiel asks of a position, from a bounded cache."""
        node = self._nodes.get(position)
        if node is None:
            if len(self._nodes) >= NODE_CACHE:
                self._nodes.clear()
            node = self._nodes[position] = self._make_node(position)
        return node

    def _make_node(self, position: Hashable) -> _Node:
        ggp = self.ggp
        legal = ggp.all_legal_moves(position)
        terminal = ggp.is_terminal(position)
        rewards = self.encoding.final_rewards(position) if terminal else {}
        return _Node(
            terminal,
            tuple(tuple(sorted(self.action_of[m] for m in moves)) for moves in legal),
            tuple(moves[0] if len(moves) == 1 else None for moves in legal),
            tuple(rewards.get(r, 0.0) for r in ggp.roles),
        )

    def __deepcopy__(self, memo: dict[int, Any]) -> SpielGame:
        """The game itself: cloned states share it (it is immutable)."""
        return self

    def new_initial_state(self) -> SpielState | HiddenState:
        if self.hidden:
            return HiddenState(self, self.ggp.initial_state())
        return SpielState(self, self.ggp.initial_state(), 0)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        """Board planes (or facts) for the public view; OpenSpiel's history-based
        observer for perfect-recall information states. In a game of imperfect
        information, the seat's view (information state) or last percepts."""
        if self.hidden:
            recall = iig_obs_type is not None and bool(iig_obs_type.perfect_recall)
            return ViewObserver(self, recall, params)
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return Observer(self, params)
        from open_spiel.python.observation import IIGObserverForPublicInfoGame

        return IIGObserverForPublicInfoGame(iig_obs_type, params)


@cache
def _hidden_parts(name: str) -> tuple[tuple[Term, ...], dict[str, ViewEncoding]]:
    """Nature's possible moves (its chance outcomes, in order) and each seat's view layout,
    once per game: OpenSpiel makes the game again for every state it deserialises."""
    game = _loaded(name)
    chance = game.info.chance_role
    moves = game.propositions().moves[game.role_index(chance)] if chance is not None else ()
    vocabulary = gather_percepts(game)
    return tuple(moves), {s: ViewEncoding(game, s, vocabulary[s]) for s in game.seats}


@dataclass(frozen=True, slots=True)
class _Node:
    """What OpenSpiel asks of one position, computed once (tree searches revisit positions)."""

    terminal: bool
    legal: tuple[tuple[int, ...], ...]
    """Each player's legal actions, ascending."""
    only: tuple[Term | None, ...]
    """Each player's one legal move, or None when it has a choice."""
    returns: tuple[float, ...]


class SpielState(pyspiel.State):  # type: ignore[misc]
    """A position of a ggpkit game, stepped by OpenSpiel."""

    def __init__(self, game: SpielGame, position: Hashable, steps: int) -> None:
        super().__init__(game)
        self.position = position
        self.steps = steps
        self._skip_choiceless()

    @property
    def game_(self) -> SpielGame:
        """The game, as OpenSpiel holds it (not kept here: states are pickled by value)."""
        game: SpielGame = self.get_game()
        return game

    def _node(self) -> _Node:
        return self.game_.node(self.position)

    # ---- what OpenSpiel asks --------------------------------------------------------------

    def current_player(self) -> int:
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        if not self.game_.ggp.info.turn_taking:
            return int(pyspiel.PlayerId.SIMULTANEOUS)
        return self._choosers()[0]

    def _legal_actions(self, player: int) -> list[int]:
        if self.is_terminal():
            return []
        return list(self._node().legal[player])

    def _apply_action(self, action: int) -> None:
        self._play({self.current_player(): self._checked(self.current_player(), action)})

    def _apply_actions(self, actions: list[int]) -> None:
        self._play({p: self._checked(p, a) for p, a in enumerate(actions)})

    def _action_to_string(self, player: int, action: int) -> str:
        return str(self.game_.actions[action])

    def is_terminal(self) -> bool:
        return self._node().terminal or self.steps >= self.game_.max_steps

    def returns(self) -> list[float]:
        return list(self._node().returns)

    def __str__(self) -> str:
        return self.game_.ggp.render(self.position)

    # ---- stepping ---------------------------------------------------------------------

    def _choosers(self) -> list[int]:
        return [i for i, only in enumerate(self._node().only) if only is None]

    def _checked(self, player: int, action: int) -> Term:
        if action not in self._node().legal[player]:
            role = self.game_.ggp.roles[player]
            raise IllegalMoveError(str(action), role, "not among the legal actions here")
        return self.game_.actions[action]

    def _play(self, chosen: dict[int, Term]) -> None:
        joint: list[Term] = []
        for i, move in enumerate(self._node().only):
            given = chosen.get(i, move)
            if given is None:
                raise IllegalMoveError("<none>", self.game_.ggp.roles[i], "it has a choice here")
            joint.append(given)
        self.position = self.game_.ggp.next_state(self.position, joint)
        self.steps += 1
        self._skip_choiceless()

    def _skip_choiceless(self) -> None:
        """Play through positions where no role has a choice (OpenSpiel needs a mover);
        a turn-taking game where two roles have one is refused with a clear error."""
        while not self.is_terminal():
            choosers = self._choosers()
            if len(choosers) > 1 and self.game_.ggp.info.turn_taking:
                raise GameError(
                    f"{self.game_.ggp.name} was declared turn-taking, but here"
                    f" {len(choosers)} roles have a choice"
                )
            if choosers:
                return
            self._play({})


class Observer:
    """OpenSpiel's observer protocol: ``tensor`` (flat float32), ``dict`` (shaped views)."""

    def __init__(self, game: SpielGame, params: Any) -> None:
        if params:
            raise GameError(f"observation parameters are not supported; got {params}")
        self.encoding = game.encoding
        first = self.encoding.observation(game.ggp.initial_state())
        sizes = {k: int(np.prod(v.shape)) for k, v in first.items()}
        self.tensor = np.zeros(sum(sizes.values()), np.float32)
        self.dict: dict[str, Any] = {}
        offset = 0
        for key, array in first.items():
            view = self.tensor[offset : offset + sizes[key]]
            self.dict[key] = view.reshape(array.shape)
            offset += sizes[key]

    def set_from(self, state: SpielState, player: int) -> None:
        for key, array in self.encoding.observation(state.position).items():
            self.dict[key][...] = array

    def string_from(self, state: SpielState, player: int) -> str:
        return str(state)


def load_game(game: str | Path | Game[Any], max_steps: int = 0) -> Any:
    """The pyspiel game of a ggpkit game (a registered name or ``.kif`` path)."""
    if isinstance(game, Game):
        raise GameError("give the game by name or path: OpenSpiel games are made from parameters")
    return pyspiel.load_game(SHORT_NAME, {"game": str(game), "max_steps": max_steps})


pyspiel.register_game(_REGISTERED_TYPE, SpielGame)

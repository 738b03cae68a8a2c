"""The player-skill suite: positions of public games where some moves are good and some not.

The idea of ggp-base's PlayerTester. Each position is a game, the joint moves that lead
to it from the start, the role to move and the set of *good* moves: those that keep the
role's exact value (its goal under perfect play), as an exact solver found them. An
agent scores a point for each position where its move is one of them. The positions
live in ``skill_positions.json`` (made by ``benchmarks/make_skill_positions.py`` with
:func:`good_moves`, which the tests run again on a sample).

A position names its game as a registered game or as a public ``.kif`` file (with a
SHA-256 of its rules, so a changed game is noticed rather than scored); public games are
read from a folder given, else from the game library (a fetched ``ticTacToe`` for
``ticTacToe.kif``), and positions of games that are not there are reported as skipped.
The hash is taken over the text with its line ends made ``\n`` (:func:`rules_digest`):
a repository server sends its files so, whatever line ends the file was written with.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ggpkit.agents.base import Limit
from ggpkit.agents.solvers.agent import solver_for
from ggpkit.agents.specs import make_agent
from ggpkit.games.api import Game, GameError
from ggpkit.games.library import find_game
from ggpkit.games.registry import games, load, load_kif

POSITIONS_FILE = "skill_positions.json"


@dataclass(frozen=True, slots=True)
class Position:
    """A position reached by ``moves`` from the start, where ``role`` should play ``good``."""

    id: str
    game: str
    """A registered game's name, or a public game's file name (``ticTacToe.kif``)."""
    sha256: str
    """The public game's :func:`rules_digest` ("" for a registered game)."""
    moves: tuple[tuple[str, ...], ...]
    role: str
    good: frozenset[str]
    value: int
    """The role's goal under perfect play from here."""


@dataclass(frozen=True, slots=True)
class Answer:
    """What the agent played at one position, and whether it was good."""

    position: Position
    move: str
    good: bool


def load_positions() -> list[Position]:
    """The positions shipped with ggpkit."""
    text = (resources.files("ggpkit.tools") / POSITIONS_FILE).read_text(encoding="utf-8")
    return [
        Position(
            p["id"],
            p["game"],
            p["sha256"],
            tuple(tuple(j) for j in p["moves"]),
            p["role"],
            frozenset(p["good"]),
            p["value"],
        )
        for p in json.loads(text)["positions"]
    ]


def rules_digest(data: bytes) -> str:
    """The SHA-256 of rules with every line ended by one ``\n``: the same for a file as
    written (``\r\n``, no final line end) and as a repository server sends it (its
    lines read one by one and each ended by ``\n``)."""
    lines = data.splitlines()
    return hashlib.sha256(b"".join(line + b"\n" for line in lines)).hexdigest()


def open_game(position: Position, games_dir: Path | None = None) -> Game[Any] | None:
    """The position's game; None when its public file is missing (from ``games_dir``, or
    from the game library when that is None) or is not the one it was made on."""
    if position.game in games():
        return load(position.game)
    if games_dir is not None:
        path: Path | None = games_dir / position.game
    else:
        found = find_game(Path(position.game).stem)
        path = found.path if found is not None else None
    if path is None or not path.is_file():
        return None
    data = path.read_bytes()
    if rules_digest(data) != position.sha256:
        return None
    return load_kif(data.decode("utf-8"), path.stem)


def reach(game: Game[Any], moves: Sequence[Sequence[str]]) -> Hashable:
    """The state after playing ``moves`` (joint moves in role order) from the start."""
    state: Hashable = game.initial_state()
    for joint in moves:
        state = game.next_state(
            state, [game.check_move(state, r, m) for r, m in zip(game.roles, joint, strict=True)]
        )
    return state


def good_moves(
    game: Game[Any], state: Hashable, role: str, node_limit: int = 2_000_000
) -> tuple[frozenset[str], int]:
    """The moves of ``role`` that keep its exact value, and that value (by an exact solver).

    ``role`` must be the only role with a choice in ``state`` (a turn-taking position).
    """
    solver = solver_for(game, node_limit)
    values: dict[str, int] = {}
    for move in game.legal_moves(state, role):
        joint = [move if r == role else game.legal_moves(state, r)[0] for r in game.roles]
        child = game.next_state(state, joint)
        if game.is_terminal(child):
            values[str(move)] = game.goals(child)[role]
        else:  # ask as whoever chooses there: the values are every role's either way
            mover = next((r for r in game.roles if len(game.legal_moves(child, r)) > 1), role)
            values[str(move)] = solver.solve(game, child, mover).goals[role]
    best = max(values.values())
    return frozenset(m for m, v in values.items() if v == best), best


def answer(position: Position, game: Game[Any], spec: str, seconds: float, seed: int) -> Answer:
    """Ask a fresh agent of ``spec`` for its move at ``position`` within ``seconds``."""
    state = reach(game, position.moves)
    agent = make_agent(spec, seed)
    agent.start(game, position.role)
    try:
        move = str(agent.select(game, state, position.role, Limit(time=seconds)))
    finally:
        agent.stop()
    return Answer(position, move, move in position.good)


def check_position(position: Position, game: Game[Any]) -> None:
    """GameError unless the solver finds the position's good moves and value again."""
    good, value = good_moves(game, reach(game, position.moves), position.role)
    if (good, value) != (position.good, position.value):
        raise GameError(f"{position.id}: the solver now finds {sorted(good)} worth {value}")
